package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/replay"
)

// Deep replay (docs/replay.md, "Deep replay") against the engine itself:
// the engine's own full Runs of generated programs re-decide to exactly
// what they recorded, and every tampering of one of them that changes a
// decision, an input, an output or what ran after a failure is caught by
// the rule that names it. Both run over the property test's generator
// (propgen_test.go) and catalog, whose scripted devices stub the outputs.

// deepCase is one generated program run at full, with what deep replay
// needs to re-decide it.
type deepCase struct {
	c    *genCase
	plan *replay.Plan
	deep *replay.Deep
	lang *replay.Language
	resp *pilotage.ExecuteResponse
}

// deepCases runs the valid programs of seeds 1..n at full.
func deepCases(t *testing.T, n int) []deepCase {
	deepMemo.Lock()
	defer deepMemo.Unlock()
	if cs, ok := deepMemo.cases[n]; ok {
		return cs
	}
	p := newPropEnv(t)
	srv := propServer()
	var out []deepCase
	for seed := uint64(1); seed <= uint64(n); seed++ {
		c := generate(seed)
		if c.expect != expectValid {
			continue
		}
		v, err := p.e.Validate(bg, alice, c.lang, pilotage.ValidateRequest{Program: c.program})
		if err != nil || !v.Valid {
			t.Fatalf("seed %d: validate: %v %+v", seed, err, v)
		}
		planJSON, _ := json.Marshal(v)
		plan, err := replay.LoadPlan("plan.json", planJSON, 0)
		if err != nil {
			t.Fatal(err)
		}
		l, err := srv.Pick(c.lang)
		if err != nil {
			t.Fatal(err)
		}
		d, err := replay.LoadDeep("program.json", c.program, srv, l)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		in := c.input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		if d.Input, err = expr.DecodeJSON(in); err != nil {
			t.Fatal(err)
		}
		resp, err := p.e.Execute(bg, alice, c.lang, pilotage.ExecuteRequest{Program: c.program, Input: c.input, TraceLevel: new(pilotage.LevelFull), Store: boolp(false)})
		if err != nil || resp.Trace == nil {
			t.Fatalf("seed %d: execute: %v", seed, err)
		}
		out = append(out, deepCase{c: c, plan: plan, deep: d, lang: p.rl[c.lang], resp: resp})
	}
	deepMemo.cases[n] = out
	return out
}

// deepMemo keeps deepCases' answer for each n: both tests of this file
// replay the same Runs (a tampering replays a clone), and running them,
// a commit to the engine's store each, is most of what either costs.
var deepMemo = struct {
	sync.Mutex
	cases map[int][]deepCase
}{cases: map[int][]deepCase{}}

// deepReplay replays resp deeply, with the Language's closed sets, and
// returns its deep findings and the others above info: what replay
// holds against the Run. (The engine of propEnv does not check its own
// traces; this is the check of the Runs deepCases makes.)
func (dc deepCase) deepReplay(resp *pilotage.ExecuteResponse) ([]report.Finding, []byte) {
	src, _ := json.Marshal(resp)
	res := replay.Replay(dc.plan, "run.json", bytes.NewReader(src), replay.Options{Deep: dc.deep, Language: dc.lang, MaxPerRule: 1000})
	var out []report.Finding
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Rule, "deep-") || f.Severity != report.Info {
			out = append(out, f)
		}
	}
	return out, src
}

// clip keeps a failure's message readable.
func clip(b []byte) []byte {
	if len(b) > 1500 {
		return append(b[:1500:1500], "…"...)
	}
	return b
}

// deepSeeds is how many seeds deepCases runs: -short's 30 give 19 Runs,
// each tampering applied to at least 4 of them.
func deepSeeds() int {
	if testing.Short() {
		return 30
	}
	return 400
}

// deepLeast is how many Runs of deepSeeds a tampering, or a promoted
// body, must reach for the corpus to exercise it: -short's sample
// reaches fewer.
func deepLeast() int {
	if testing.Short() {
		return 3
	}
	return 10
}

// TestEngineRunsPassDeepReplay: the engine decided every Run as its
// program says, the expanded bodies of the promoted programs it runs
// included (§5.8.3, re-decided as the Language defines them), so deep
// replay of its full traces finds nothing, not even what it could not
// re-decide, and replay's other checks nothing above info; at least
// deepLeast of the Runs expand a body.
func TestEngineRunsPassDeepReplay(t *testing.T) {
	cases := deepCases(t, deepSeeds())
	if len(cases) < deepSeeds()/2 {
		t.Fatalf("only %d of %d seeds gave a valid program", len(cases), deepSeeds())
	}
	bodies := 0
	for _, dc := range cases {
		if slices.ContainsFunc(dc.resp.Trace.Steps, func(s pilotage.TraceStep) bool { return !own(s) }) {
			bodies++
		}
		fs, src := dc.deepReplay(dc.resp)
		for _, f := range fs {
			t.Errorf("seed %d: %s %s: %s\nprogram: %s\ninput: %s\nrun: %s", dc.c.seed, f.Rule, f.Severity, f.Message, dc.c.program, dc.c.input, clip(src))
		}
	}
	if bodies < deepLeast() {
		t.Errorf("only %d Runs expand a promoted body: the corpus no longer exercises their deep replay", bodies)
	}
	t.Logf("%d of %d Runs expand a promoted body", bodies, len(cases))
}

// tampering is one way to falsify a recorded Run, with the rule that
// must catch it; apply reports false when the Run has nothing to tamper.
type tampering struct {
	name  string
	rule  string
	apply func(*pilotage.ExecuteResponse) bool
}

// own are the entries of the program itself, not of an expanded body.
func own(s pilotage.TraceStep) bool { return !strings.Contains(s.ID, "/") }

var tamperings = []tampering{
	{"arm flipped", replay.RuleDeepBranch, func(r *pilotage.ExecuteResponse) bool {
		for i, s := range r.Trace.Steps {
			if own(s) && s.Kind == pilotage.KindBranch && len(s.Decisions) == 1 && s.Outcome.OK {
				d := &r.Trace.Steps[i].Decisions[0]
				d.Took = map[string]string{"then": "else", "else": "then"}[d.Took]
				return true
			}
		}
		return false
	}},
	{"iteration dropped", replay.RuleDeepLoop, func(r *pilotage.ExecuteResponse) bool {
		return editLoop(r, func(ds []pilotage.Decision) []pilotage.Decision {
			i := slices.IndexFunc(ds, func(d pilotage.Decision) bool { return d.Took == pilotage.DecisionContinue })
			if i < 0 {
				return nil
			}
			return slices.Delete(ds, i, i+1)
		})
	}},
	{"iteration added", replay.RuleDeepLoop, func(r *pilotage.ExecuteResponse) bool {
		return editLoop(r, func(ds []pilotage.Decision) []pilotage.Decision {
			return slices.Insert(ds, 0, pilotage.Decision{At: ds[0].At, Took: pilotage.DecisionContinue})
		})
	}},
	{"input changed", replay.RuleDeepInput, func(r *pilotage.ExecuteResponse) bool {
		for i, s := range r.Trace.Steps {
			if own(s) && s.Kind == pilotage.KindStep && bytes.HasPrefix(s.Input, []byte("{")) {
				var m map[string]any
				if json.Unmarshal(s.Input, &m) != nil {
					continue
				}
				m["tampered"] = true
				r.Trace.Steps[i].Input, _ = json.Marshal(m)
				return true
			}
		}
		return false
	}},
	{"output changed", replay.RuleDeepOutput, func(r *pilotage.ExecuteResponse) bool {
		if !r.Outcome.OK || r.Output == nil {
			return false
		}
		r.Output = json.RawMessage(`{"tampered": true}`)
		return true
	}},
	{"body iteration dropped or added", replay.RuleDeepLoop, func(r *pilotage.ExecuteResponse) bool {
		return editBody(r, pilotage.KindLoop, func(s *pilotage.TraceStep) bool {
			ds := slices.Clone(s.Decisions)
			if i := slices.IndexFunc(ds, func(d pilotage.Decision) bool { return d.Took == pilotage.DecisionContinue }); i >= 0 {
				s.Decisions = slices.Delete(ds, i, i+1)
			} else {
				s.Decisions = slices.Insert(ds, 0, pilotage.Decision{At: s.ID, Took: pilotage.DecisionContinue})
			}
			return true
		})
	}},
	{"body input changed", replay.RuleDeepInput, func(r *pilotage.ExecuteResponse) bool {
		return editBody(r, pilotage.KindStep, func(s *pilotage.TraceStep) bool {
			s.Input = json.RawMessage(`{"room": "tampered", "on": false}`)
			return true
		})
	}},
	{"body output changed", replay.RuleDeepOutput, func(r *pilotage.ExecuteResponse) bool {
		for i, s := range r.Trace.Steps {
			if own(s) && s.Outcome.OK && i+1 < len(r.Trace.Steps) && strings.HasPrefix(r.Trace.Steps[i+1].ID, s.ID+"/") {
				r.Trace.Steps[i].Output = json.RawMessage(`-1`)
				return true
			}
		}
		return false
	}},
	{"body drifted", replay.RuleDeepDrift, func(r *pilotage.ExecuteResponse) bool {
		for i, s := range r.Trace.Steps {
			if !own(s) {
				r.Trace.Steps[i].ID += "x"
				return true
			}
		}
		return false
	}},
	{"step after a failure", replay.RuleDeepAfterFailure, func(r *pilotage.ExecuteResponse) bool {
		steps := r.Trace.Steps
		for i, s := range steps {
			if own(s) && s.Kind == pilotage.KindStep && s.Outcome.OK && i+1 < len(steps) && own(steps[i+1]) {
				steps[i].Outcome = pilotage.Outcome{OK: false, Status: pilotage.StatusPartial, Error: "tampered"}
				steps[i].Output = nil
				return true
			}
		}
		return false
	}},
}

// editLoop applies edit to the decisions of the first successful loop
// entry of the program that edit changes.
func editLoop(r *pilotage.ExecuteResponse, edit func([]pilotage.Decision) []pilotage.Decision) bool {
	for i, s := range r.Trace.Steps {
		if own(s) && s.Kind == pilotage.KindLoop && s.Outcome.OK && len(s.Decisions) > 0 {
			if ds := edit(slices.Clone(s.Decisions)); ds != nil {
				r.Trace.Steps[i].Decisions = ds
				return true
			}
		}
	}
	return false
}

// editBody applies edit to the first successful entry of kind kind of
// an expanded promoted body that edit changes.
func editBody(r *pilotage.ExecuteResponse, kind string, edit func(*pilotage.TraceStep) bool) bool {
	for i, s := range r.Trace.Steps {
		if !own(s) && s.Kind == kind && s.Outcome.OK && edit(&r.Trace.Steps[i]) {
			return true
		}
	}
	return false
}

// clone copies a response through JSON, so a tampering leaves the
// engine's own untouched.
func clone(r *pilotage.ExecuteResponse) *pilotage.ExecuteResponse {
	var out pilotage.ExecuteResponse
	b, _ := json.Marshal(r)
	_ = json.Unmarshal(b, &out)
	return &out
}

// TestTamperedTracesCaught: every tampering of every generated Run it
// applies to is caught, and by its own rule; each tampering applied to
// at least ten Runs, so none is vacuous.
func TestTamperedTracesCaught(t *testing.T) {
	applied := map[string]int{}
	for _, dc := range deepCases(t, deepSeeds()) {
		for _, tm := range tamperings {
			r := clone(dc.resp)
			if !tm.apply(r) {
				continue
			}
			applied[tm.name]++
			fs, src := dc.deepReplay(r)
			if !slices.ContainsFunc(fs, func(f report.Finding) bool { return f.Rule == tm.rule && f.Severity == report.Error }) {
				var got []string
				for _, f := range fs {
					got = append(got, fmt.Sprintf("%s: %s", f.Rule, f.Message))
				}
				t.Errorf("seed %d, %s: no %s finding; got %q\nprogram: %s\ninput: %s\nrun: %s", dc.c.seed, tm.name, tm.rule, got, dc.c.program, dc.c.input, clip(src))
			}
		}
	}
	for _, tm := range tamperings {
		if applied[tm.name] < deepLeast() {
			t.Errorf("%s applied to %d Runs only: the corpus no longer exercises it", tm.name, applied[tm.name])
		}
	}
	t.Logf("tampered Runs by mutation: %v", applied)
}
