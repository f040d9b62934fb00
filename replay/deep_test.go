package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// testLanguage is the Language the deep replay fixtures' programs are
// written in: the engine tests' grammar (homeflow's), three devices and
// the entries named in more.
func testLanguage(more ...string) (*language.Server, *language.Language) {
	l := &language.Language{ID: "home/v1", Locator: pilotage.LocatorJSONPointer,
		Grammar: language.Grammar{Call: "call", Args: "with", Branch: "if", Arms: []string{"then", "else"},
			Loop: "for_each", Item: "as", Body: "do", Run: "run", RunArgs: "with", Expressions: "cel", Input: true},
		Limits: language.Limits{Steps: 100, Time: time.Second, Depth: 8, Iterations: 50, Expansion: 2, MemoryBytes: 1 << 20, ProgramBytes: 1 << 16}}
	srv := &language.Server{Languages: []*language.Language{l}}
	for _, id := range append([]string{"sensors.read", "fan.set", "lights.set"}, more...) {
		srv.Catalog = append(srv.Catalog, &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: id, Kind: "device", Risk: "write"}})
	}
	return srv, l
}

// deepFixture loads an archive's program.json (and input.json) for deep
// replay in testLanguage. An archive's body.json is the body of the
// promoted program prog.body@1 of that Language, whose entries its traces
// expand (§5.8.3).
func deepFixture(t testing.TB, prog []byte, a *golden.Archive) *Deep {
	t.Helper()
	srv, l := testLanguage()
	if body, ok := a.File("body.json"); ok {
		srv.Catalog = append(srv.Catalog, &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: "prog.body@1", Kind: "program", Risk: "write",
			InputSchema: json.RawMessage(`{"type": "object"}`)}, Program: body, Pos: language.Pos{File: "body.pdl", Line: 1, Column: 1}})
		l.TraceSubprogram = pilotage.SubprogramExpanded
	}
	d, err := LoadDeep("program.json", prog, srv, l)
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := a.File("input.json"); ok {
		if d.Input, err = expr.DecodeJSON(in); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// deepFuzzContext is the plan, program and input of the deep-branch
// fixture, which the deep replay fuzz targets replay against.
func deepFuzzContext(f testing.TB) (*Plan, *golden.Archive) { return fuzzArchive(f, "deep-branch") }

// fuzzArchive is the plan and archive of the deep rule fixture rule.
func fuzzArchive(f testing.TB, rule string) (*Plan, *golden.Archive) {
	a := golden.ReadArchive(f, filepath.Join("testdata", "rules", rule+".txtar"))
	src, _ := a.File("plan.json")
	plan, err := LoadPlan("plan.json", src, 0)
	if err != nil {
		f.Fatal(err)
	}
	return plan, a
}

// FuzzDeepReplay feeds arbitrary bytes as a trace to deep replay: it
// ends with findings of known rules, each at a position, never a panic
// or a hang, however the trace departs from the program.
func FuzzDeepReplay(f *testing.F) { fuzzDeep(f, "deep-branch") }

// FuzzDeepReplayBody is FuzzDeepReplay with a program that runs a
// promoted body (deep-drift's), whose expanded entries deep replay
// re-decides: however they depart from the body, nest or end.
func FuzzDeepReplayBody(f *testing.F) { fuzzDeep(f, "deep-drift") }

func fuzzDeep(f *testing.F, rule string) {
	plan, a := fuzzArchive(f, rule)
	prog, _ := a.File("program.json")
	for _, seed := range traceSeeds(f) {
		f.Add(seed)
	}
	d := deepFixture(f, prog, a)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Replay(plan, "fuzz.json", bytes.NewReader(data), Options{Deep: d, MaxPerRule: 5})
		for _, fd := range res.Findings {
			if RuleByID(fd.Rule) == nil {
				t.Fatalf("finding of unknown rule %q", fd.Rule)
			}
			if fd.Line < 1 && !strings.Contains(fd.Message, "are not listed") {
				t.Fatalf("finding without a position: %+v", fd)
			}
		}
	})
}

// FuzzLoadDeep feeds arbitrary bytes as the program: LoadDeep returns
// what to re-decide with or an error, and a fixture trace deep-replays
// against whatever it returned.
func FuzzLoadDeep(f *testing.F) {
	plan, a := deepFuzzContext(f)
	trace, _ := a.File("fail_flipped.json")
	prog, _ := a.File("program.json")
	f.Add(prog)
	f.Add([]byte(`{"steps": [{"id": "x", "if": "1/0 == 1", "then": [], "else": []}], "output": "steps.x.output"}`))
	f.Add([]byte(`{"steps": [{"id": "x", "for_each": "[1,2,3].map(i, [i, i])", "as": "v", "do": []}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		srv, l := testLanguage()
		d, err := LoadDeep("fuzz.program.json", data, srv, l)
		if err != nil {
			return
		}
		Replay(plan, "trace.json", bytes.NewReader(trace), Options{Deep: d})
	})
}

// TestDeepSkipsInstallation: a deploy installation trace (§6.5.7) and a
// refused Run executed no Run of the program, so deep replay says nothing
// of them; deploy-trace and refused-run say what they are.
func TestDeepSkipsInstallation(t *testing.T) {
	plan, a := deepFuzzContext(t)
	prog, _ := a.File("program.json")
	d := deepFixture(t, prog, a)
	for name, trace := range map[string]string{
		"installation": `{"run_id": "r1", "level": "summary", "outcome": {"ok": true, "status": "success"}, "mode": "deploy",
 "steps": [{"id": "install", "calls": ["rules.install"], "outcome": {"ok": true, "status": "success"}}]}`,
		"refused": `{"run_id": "r1", "level": "full", "outcome": {"ok": false, "status": "validation_error"}, "steps": []}`,
	} {
		res := Replay(plan, name+".json", strings.NewReader(trace), Options{Deep: d})
		for _, f := range res.Findings {
			if strings.HasPrefix(f.Rule, "deep-") {
				t.Errorf("%s: %s: %s", name, f.Rule, f.Message)
			}
		}
	}
}

// bodyDeep is the deep-drift fixture's plan and program with body as the
// body of prog.body@1, in a Language whose trace_subprogram is sub.
func bodyDeep(t *testing.T, body, sub string) (*Plan, *Deep) {
	t.Helper()
	a := golden.ReadArchive(t, filepath.Join("testdata", "rules", "deep-drift.txtar"))
	src, _ := a.File("plan.json")
	plan, err := LoadPlan("plan.json", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	prog, _ := a.File("program.json")
	srv, l := testLanguage()
	srv.Catalog = append(srv.Catalog, &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: "prog.body@1", Kind: "program", Risk: "write",
		InputSchema: json.RawMessage(`{"type": "object"}`)}, Program: json.RawMessage(body), Pos: language.Pos{File: "body.pdl", Line: 7, Column: 1}})
	l.TraceSubprogram = sub
	d, err := LoadDeep("program.json", prog, srv, l)
	if err != nil {
		t.Fatal(err)
	}
	d.Input = map[string]any{"rooms": []any{"hall", "den"}}
	return plan, d
}

// deepFindings replays trace (its steps array) deeply and returns its
// deep findings as "rule: message".
func deepFindings(plan *Plan, d *Deep, level, steps string) []string {
	trace := `{"run_id": "r1", "outcome": {"ok": true, "status": "success"}, "output": 2, "trace": {"run_id": "r1", "level": "` + level +
		`", "outcome": {"ok": true, "status": "success"}, "steps": [` + steps + `]}}`
	var out []string
	for _, f := range Replay(plan, "run.json", strings.NewReader(trace), Options{Deep: d}).Findings {
		if strings.HasPrefix(f.Rule, "deep-") {
			out = append(out, f.Rule+": "+f.Message)
		}
	}
	return out
}

const (
	okJSON   = `"outcome": {"ok": true, "status": "success"}`
	nBody    = `{"steps": [{"id": "each", "for_each": "input.rooms", "as": "r", "do": [{"id": "off", "call": "lights.set", "with": {"room": "r", "on": "false"}}]}], "output": "size(steps.each.output)"}`
	nEntry   = `{"id": "n", "kind": "step", "calls": ["prog.body@1"], "output": 2, ` + okJSON + `}`
	nEntries = nEntry + `,
 {"id": "n/each", "kind": "loop", ` + okJSON + `, "decisions": [{"at": "each", "took": "continue"}, {"at": "each", "took": "continue"}, {"at": "each", "took": "exit"}]},
 {"id": "n/off#1", "kind": "step", "calls": ["lights.set"], ` + okJSON + `},
 {"id": "n/off#2", "kind": "step", "calls": ["lights.set"], ` + okJSON + `}`
)

// TestDeepPromotedUndecided: what of a promoted body deep replay cannot
// re-decide is said, with why, never passed silently (§5.8.3, §10.3), and
// a summary trace's body is still re-decided as far as its input, bound
// from the run step's arguments, goes.
func TestDeepPromotedUndecided(t *testing.T) {
	for _, c := range []struct {
		name, body, sub, level, steps string
		want                          []string
	}{
		{"opaque Language", nBody, "", "summary", nEntry,
			[]string{"deep-undecided: not re-decided (1×) call inputs: a summary trace does not record them (§5.8.1)", "deep-undecided: not re-decided (1×) the body of prog.body@1: the trace shows it as one opaque entry, since the Language's trace_subprogram is opaque (§5.8.3)"}},
		{"concealed body", nBody, pilotage.SubprogramExpanded, "summary", nEntry,
			[]string{"deep-undecided: not re-decided (1×) call inputs: a summary trace does not record them (§5.8.1)", "deep-undecided: not re-decided (1×) the body of prog.body@1: the trace shows it as one opaque entry, as a server shows a body that names entries the caller may not see or that runs under the promoter's authority (§10.3)"}},
		{"summary trace", nBody, pilotage.SubprogramExpanded, "summary", nEntries,
			[]string{"deep-undecided: not re-decided (3×) call inputs: a summary trace does not record them (§5.8.1)"}},
		{"summary trace, iteration added", nBody, pilotage.SubprogramExpanded, "summary", strings.Replace(nEntries, `"took": "exit"`, `"took": "continue"}, {"at": "each", "took": "exit"`, 1),
			[]string{"deep-loop: loop n/each ran 3 iteration(s), but its list input.rooms has 2 element(s) over the recorded values",
				"deep-undecided: not re-decided (3×) call inputs", "deep-undecided: not re-decided (1×) the rest of the expanded entries of n: they depart from the body after a divergence reported in it"}},
		// A took loop-decisions cannot read leaves the iterations
		// unknown: no deep-loop "ran 1 iteration(s)" or deep-output
		// after it.
		{"summary trace, a took misspelt", nBody, pilotage.SubprogramExpanded, "summary", strings.Replace(nEntries, `"took": "continue"`, `"took": "contniue"`, 1),
			[]string{"deep-undecided: not re-decided (1×) call inputs", "deep-undecided: not re-decided (1×) loops and what follows them: a decision's took is neither continue nor exit"}},
		{"body that does not validate", `{"steps": [{"id": "x", "call": "nowhere.at_all"}]}`, pilotage.SubprogramExpanded, "summary", nEntries,
			[]string{"deep-undecided: not re-decided (1×) call inputs: a summary trace does not record them (§5.8.1)", "deep-undecided: not re-decided (1×) entries of an expanded sub-program: the body of prog.body@1 the Language defines does not validate in it ("}},
		{"deeper than the expansion limit", `{"steps": [{"id": "m", "run": "prog.body@1", "with": {}}]}`, pilotage.SubprogramExpanded, "summary",
			nEntry + `, {"id": "n/m", "kind": "step", "calls": ["prog.body@1"], ` + okJSON + `}, {"id": "n/m/m", "kind": "step", "calls": ["prog.body@1"], ` + okJSON + `}, {"id": "n/m/m/m", "kind": "step", "calls": ["prog.body@1"], ` + okJSON + `}`,
			[]string{"deep-undecided: not re-decided (3×) call inputs", "deep-undecided: not re-decided (1×) entries of an expanded sub-program: they are nested deeper than the Language's expansion limit of 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, d := bodyDeep(t, c.body, c.sub)
			got := deepFindings(plan, d, c.level, c.steps)
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("got %q, want %q", got[i], c.want[i])
				}
			}
		})
	}
}

// TestLoadDeepProgramError: a program that does not validate (not JSON,
// or a call of no entry) is a *ProgramError carrying every diagnostic of
// the check that refused it, which pilotage replay prints as pilotage
// validate does (issue 13 item 13), while Error still names the first
// error at its file:line:col for callers that print one line.
func TestLoadDeepProgramError(t *testing.T) {
	for _, c := range []struct {
		name, prog, code, msg string
	}{
		{"trailing comma", `{"steps": [],}`, "syntax", "program.json:1:13: the program does not validate: the program is not valid JSON"},
		{"no such entry", `{"steps": [{"id": "x", "call": "nowhere.at_all"}, {"id": "y", "call": "nor.here"}]}`, "unknown_name", "program.json:1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, l := testLanguage()
			_, err := LoadDeep("program.json", []byte(c.prog), srv, l)
			var pe *ProgramError
			if !errors.As(err, &pe) {
				t.Fatalf("LoadDeep: %v (%T), want a *ProgramError", err, err)
			}
			if len(pe.Diagnostics) == 0 || pe.Diagnostics[0].Code != c.code {
				t.Errorf("diagnostics %+v, want the first of code %s", pe.Diagnostics, c.code)
			}
			if c.code == "unknown_name" && len(pe.Diagnostics) != 2 {
				t.Errorf("%d diagnostics, want both unknown names: %+v", len(pe.Diagnostics), pe.Diagnostics)
			}
			if !strings.HasPrefix(err.Error(), c.msg) {
				t.Errorf("Error() = %q, want it to start %q", err, c.msg)
			}
		})
	}
}

// TestDeepOutputDoesNotEvaluate: a program whose output expression fails
// over the recorded values (an index out of range, or over the engine's
// cost limit) could not have given the output of a Run that succeeded,
// so deep replay reports it as deep-output, as a branch's failing
// condition is deep-branch, never passing silently; a Run that failed is
// what such an expression gives, and says nothing.
func TestDeepOutputDoesNotEvaluate(t *testing.T) {
	plan, a := fuzzArchive(t, "deep-output")
	pass, _ := a.File("pass.json")
	input, _ := a.File("input.json")
	steps := `[{"id": "read", "call": "sensors.read", "with": {"room": "input.room"}},
 {"id": "hot", "if": "steps.read.output.temp > 25.0", "then": [{"id": "fan", "call": "fan.set", "with": {"room": "input.room", "on": "true"}}], "else": []},
 {"id": "each", "for_each": "input.rooms", "as": "r", "do": [{"id": "off", "call": "lights.set", "with": {"room": "r", "on": "false"}}]}]`
	failed := strings.Replace(string(pass), `"outcome": {"ok": true, "status": "success"}, "output": {"temp": 21, "lux": 150}`, `"outcome": {"ok": false, "status": "partial"}, "output": null`, 1)
	failed = strings.Replace(failed, `"level": "full", "outcome": {"ok": true, "status": "success"}`, `"level": "full", "outcome": {"ok": false, "status": "partial"}`, 1)
	for _, c := range []struct {
		name, output, trace, want string
	}{
		{"index out of range", `[steps.read.output][5000]`, string(pass),
			"deep-output: the Run's output expression [steps.read.output][5000] does not evaluate over the recorded values (index out of bounds: 5000), yet the Run succeeded"},
		{"over the cost limit", `steps.each.output.map(a, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49].map(b, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49].map(c, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49].map(d, d))))`, string(pass),
			"deep-output: the Run's output expression steps.each.output.map(a, [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33… does not evaluate over the recorded values (expression exceeded its evaluation cost limit"},
		{"the Run failed", `[steps.read.output][5000]`, failed, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name == "over the cost limit" {
				t.Skip("evaluating to the cost limit is the full suite's; -short's index out of range fails the output's evaluation the same way")
			}
			srv, l := testLanguage()
			prog, err := json.Marshal(map[string]any{"steps": json.RawMessage(steps), "output": c.output})
			if err != nil {
				t.Fatal(err)
			}
			d, err := LoadDeep("program.json", prog, srv, l)
			if err != nil {
				t.Fatal(err)
			}
			if d.Input, err = expr.DecodeJSON(input); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Replay(plan, "run.json", strings.NewReader(c.trace), Options{Deep: d}).Findings {
				if strings.HasPrefix(f.Rule, "deep-") {
					got = append(got, f.Rule+": "+f.Message)
				}
			}
			if c.want == "" {
				if len(got) != 0 {
					t.Errorf("got %q, want no deep finding", got)
				}
				return
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
				t.Errorf("got %q, want one finding starting %q", got, c.want)
			}
		})
	}
}

// TestDeepWithoutInput: a deep replay given no --input says once that
// what reads the Run's input was not re-decided, and to give it, with
// the count of all it left undecided: a loop over the input does not add
// one finding per iteration's arguments, which are undecided only
// because its list is (review 1, #16g).
func TestDeepWithoutInput(t *testing.T) {
	plan, a := fuzzArchive(t, "deep-undecided")
	prog, _ := a.File("program.json")
	d := deepFixture(t, prog, a)
	d.Input = nil // no --input
	trace, _ := a.File("pass.json")
	var got []string
	for _, f := range Replay(plan, "pass.json", bytes.NewReader(trace), Options{Deep: d}).Findings {
		got = append(got, f.Rule+": "+f.Message)
	}
	want := []string{"deep-undecided: not re-decided (4×) what reads the Run's input: no trace records it (give it with --input)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
