package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// guidePrograms returns the fenced blocks of a guide body that the
// Language's syntax takes for example programs.
func guidePrograms(body string, syn syntax.Syntax) [][]byte {
	src := []byte(body)
	var out [][]byte
	doc, err := guidemd.Parse(src)
	if err != nil {
		return nil
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fb, ok := n.(*ast.FencedCodeBlock); ok && entering {
			var b bytes.Buffer
			for i := 0; i < fb.Lines().Len(); i++ {
				seg := fb.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if syn.Example(string(fb.Language(src)), b.Bytes()) {
				out = append(out, b.Bytes())
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// TestExampleLanguages compiles every langs/*/*.pdl, validates every
// program its guides teach (each must be valid, issue 3), executes it
// (as a test run where the Language deploys) and replays the trace
// against the plan with the Language's closed sets: every trace the
// engine returns must replay clean.
func TestExampleLanguages(t *testing.T) {
	files, _ := filepath.Glob("../../langs/*/*.pdl")
	if len(files) < 3 {
		t.Fatalf("found %d example Languages under langs/, want at least 3 (issue 3)", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, _, err := compile.Load(f, report.DefaultMaxPerRule)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK() {
				t.Fatalf("%s does not compile: %+v", f, res.Findings)
			}
			e := newEngine(t, res.Server, t.TempDir())
			snap, err := json.Marshal(emit.Snapshot(res.Server))
			if err != nil {
				t.Fatal(err)
			}
			principal := ""
			if len(res.Server.Principals) > 0 {
				principal = res.Server.Principals[0].Name
			}
			for _, l := range res.Server.Languages {
				checkLanguagePrograms(t, e, snap, l, callerOf(principal, "s"), runData(t)[l.ID])
			}
		})
	}
}

// langRun is the input and context the example programs of one Language
// run with (testdata/langs.json); a Language not listed runs with none.
type langRun struct {
	Input   json.RawMessage `json:"input"`
	Context json.RawMessage `json:"context"`
}

func runData(t *testing.T) map[string]langRun {
	data, err := os.ReadFile(filepath.Join("testdata", "langs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]langRun
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func checkLanguagePrograms(t *testing.T, e *Engine, snap []byte, l *language.Language, c service.Caller, data langRun) {
	_, lg, _ := e.language(l.ID)
	rl, err := loadReplayLanguage(snap, l.ID)
	if err != nil {
		t.Fatalf("%s: %v", l.ID, err)
	}
	n := 0
	for _, g := range l.Guides {
		if g.Generated {
			continue
		}
		for i, prog := range guidePrograms(g.Body, syntax.For(l)) {
			n++
			program, _ := syntax.Wire(l.Locator, prog)
			v, err := e.Validate(bg, c, l.ID, pilotage.ValidateRequest{Program: program, Context: data.Context})
			if err != nil {
				t.Fatalf("%s guide %s example %d: %v", l.ID, g.ID, i+1, err)
			}
			if !v.Valid {
				t.Errorf("%s guide %s example %d is not valid: %+v", l.ID, g.ID, i+1, v.Diagnostics)
				continue
			}
			if !lg.caps.Has(pilotage.CapExecute) || v.Plan == nil {
				continue
			}
			req := pilotage.ExecuteRequest{Program: program, Input: data.Input, Context: data.Context, Store: boolp(false)}
			if lg.ExecutionMode == pilotage.ModeDeploy {
				if !lg.caps.HasSub(pilotage.CapExecute, pilotage.SubTestRun) {
					continue
				}
				req.TestRun = boolp(true)
			}
			resp, err := e.Execute(bg, c, l.ID, req)
			if err != nil {
				t.Fatalf("%s guide %s example %d: execute: %v", l.ID, g.ID, i+1, err)
			}
			if !resp.Outcome.OK {
				t.Errorf("%s guide %s example %d: %s %s", l.ID, g.ID, i+1, resp.Outcome.Status, resp.Outcome.Error)
			}
			replayClean(t, v, resp, rl)
		}
	}
	t.Logf("%s: %d guide programs", l.ID, n)
}

// replayClean runs replay on the trace of resp against the plan in v.
func replayClean(t *testing.T, v *pilotage.ValidateResponse, resp *pilotage.ExecuteResponse, rl *replay.Language) {
	t.Helper()
	if resp.Trace == nil {
		return
	}
	planJSON, _ := json.Marshal(v)
	plan, err := replay.LoadPlan("plan.json", planJSON, 0)
	if err != nil {
		t.Fatal(err)
	}
	traceJSON, _ := json.Marshal(resp.Trace)
	out := replay.Replay(plan, "trace.json", bytes.NewReader(traceJSON), replay.Options{Language: rl})
	for _, f := range out.Findings {
		if f.Severity != report.Info {
			t.Errorf("replay: %s %s: %s\ntrace: %s", f.Rule, f.Severity, f.Message, traceJSON)
		}
	}
}

// TestReplayHarnessCanFail: the replay harness the other tests rely on
// reports a trace that lost an executed arm step.
func TestReplayHarnessCanFail(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	prog := raw(`{"steps": [{"id": "h", "if": "true", "then": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}], "else": []}]}`)
	v, _ := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: prog})
	resp := exec(t, e, "alice", "s", "home/v1", pilotage.ExecuteRequest{Program: prog})
	resp.Trace.Steps = resp.Trace.Steps[:1]
	planJSON, _ := json.Marshal(v)
	plan, err := replay.LoadPlan("plan.json", planJSON, 0)
	if err != nil {
		t.Fatal(err)
	}
	traceJSON, _ := json.Marshal(resp.Trace)
	if out := replay.Replay(plan, "trace.json", bytes.NewReader(traceJSON), replay.Options{}); len(out.Findings) == 0 {
		t.Error("replay accepted a successful trace without the taken arm's step")
	}
}

// TestGuidesNameOnlyWhatEachCallerSees: guides are Language-wide, so no
// principal's learn may return a guide naming an entry its lookup calls
// nonexistent (§10.3; issue 13, item 3: a guest's learn core named
// fan.set and prog.nightly@1), nor may anything else every caller
// receives: the manifest's titles and descriptions, the guide index's
// titles, descriptions and topics, the closed-sets guide. Every such text
// of every langs/ Language, as each principal receives it, is checked
// against what that principal's lookup get finds.
func TestGuidesNameOnlyWhatEachCallerSees(t *testing.T) {
	files, _ := filepath.Glob("../../langs/*/*.pdl")
	for _, f := range files {
		res, _, err := compile.Load(f, report.DefaultMaxPerRule)
		if err != nil || !res.OK() {
			t.Fatalf("%s: %v %+v", f, err, res.Findings)
		}
		e := newEngine(t, res.Server, t.TempDir())
		m, err := e.Discover(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Server.Principals {
			c := callerOf(p.Name, "s")
			for _, l := range m.Languages {
				// check reports an entry text names that c's lookup of
				// Language l does not find.
				check := func(what, text string) {
					for _, en := range res.Server.Catalog {
						if !strings.ContainsAny(en.ID, ".@") || !strings.Contains(text, en.ID) {
							continue
						}
						if _, err := e.Lookup(bg, c, l.ID, pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(en.ID)}); err != nil {
							t.Errorf("%s: %s's %s of %s names %s, which its lookup get answers %v", filepath.Base(f), p.Name, what, l.ID, en.ID, err)
						}
					}
				}
				check("manifest entry", l.Title+"\n"+l.Description+"\n"+string(l.ContextSchema))
				idx, err := e.Learn(bg, c, l.ID, pilotage.LearnRequest{})
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range idx.(*pilotage.LearnIndex).Guides {
					check("index entry of guide "+g.ID, g.ID+"\n"+g.Title+"\n"+g.Description+"\n"+strings.Join(g.Topics, "\n"))
					got, err := e.Learn(bg, c, l.ID, pilotage.LearnRequest{ID: &g.ID})
					if err != nil {
						t.Fatal(err)
					}
					check("learn of guide "+g.ID, *got.(*pilotage.LearnFetch).Guide.Body)
				}
			}
		}
	}
}
