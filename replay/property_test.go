package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// The property test runs random programs on a small reference interpreter
// written from §5.8.2 alone (it shares no code with the checker): every
// trace it records must replay clean against the plan derived from the
// same program, and every single mutation of such a trace must be caught.

// node is one step of a random program.
type node struct {
	id   string
	kind string
	arms []string
	// body holds a branch's arms by label, a loop's body under "".
	body map[string][]*node
	// expanded is how many expanded sub-program entries a step emits.
	expanded int
}

type progGen struct {
	r *rand.Rand
	n int
}

func (g *progGen) seq(depth int) []*node {
	var out []*node
	for range g.r.IntN(4) + 1 {
		out = append(out, g.node(depth))
	}
	return out
}

func (g *progGen) node(depth int) *node {
	g.n++
	n := &node{id: fmt.Sprintf("s%d", g.n), kind: pilotage.KindStep}
	switch k := g.r.IntN(10); {
	case depth < 3 && k < 2:
		n.kind, n.arms, n.body = pilotage.KindBranch, []string{"then", "else"}, map[string][]*node{}
		if g.r.IntN(3) == 0 {
			n.arms = append(n.arms, "maybe")
		}
		for _, a := range n.arms {
			if g.r.IntN(4) > 0 { // some arms are empty
				n.body[a] = g.seq(depth + 1)
			}
		}
	case depth < 3 && k < 4:
		n.kind, n.body = pilotage.KindLoop, map[string][]*node{"": g.seq(depth + 1)}
	case k == 9:
		n.expanded = g.r.IntN(3) + 1
	}
	return n
}

// planOf derives the plan the way §5.6 says: every construct is a step,
// every arm and body contributes its steps once, marked with arm or loop.
func planOf(r *rand.Rand, prog []*node) pilotage.Plan {
	p := pilotage.Plan{MaxRisk: "write", MaxRiskHints: pilotage.RiskHints{}}
	var walk func(ns []*node, parent *node, label string, inLoop string)
	walk = func(ns []*node, parent *node, label, inLoop string) {
		for _, n := range ns {
			s := pilotage.PlanStep{ID: n.id, Kind: n.kind, Arms: n.arms}
			if n.kind == pilotage.KindStep {
				s.Calls = []string{"svc." + n.id}
				s.Risk, s.RiskHints = "write", &pilotage.RiskHints{}
			}
			switch {
			case parent != nil && parent.kind == pilotage.KindBranch:
				s.Arm = &pilotage.ArmRef{Branch: parent.id, Label: label}
				if inLoop != "" && r.IntN(2) == 0 {
					s.Loop = inLoop // an arm step in a loop MAY also carry loop
				}
			case parent != nil:
				s.Loop = parent.id
			}
			p.Steps = append(p.Steps, s)
			enclosingLoop := inLoop
			if n.kind == pilotage.KindLoop {
				enclosingLoop = n.id
			}
			for _, a := range append(slices.Clone(n.arms), "") {
				walk(n.body[a], n, a, enclosingLoop)
			}
		}
	}
	walk(prog, nil, "", "")
	// max_risk_hints is the aggregate of the steps' hints (§5.3): read-only
	// when no step calls anything.
	var hints []pilotage.RiskHints
	for _, s := range p.Steps {
		if s.RiskHints != nil {
			hints = append(hints, *s.RiskHints)
		}
	}
	if p.MaxRiskHints = pilotage.Aggregate(hints...); p.MaxRiskHints.ReadOnly {
		p.MaxRisk = "safe"
	}
	return p
}

// interp records a Run of a program as a trace (§5.8.2), choosing arms
// and iteration counts at random and stopping early when budget runs out.
type interp struct {
	r       *rand.Rand
	full    bool
	budget  int // entries left before the Run stops; -1 never stops
	stopped bool
	steps   []pilotage.TraceStep
	// armEntries counts, per branch entry index, the entries its arm made.
	armEntries map[int]int
}

var okOutcome = pilotage.Outcome{OK: true, Status: pilotage.StatusSuccess}

func (x *interp) emit(s pilotage.TraceStep) int {
	if x.budget == 0 {
		x.stopped = true
		return -1
	}
	x.budget--
	if x.budget == 0 && s.Kind == "" {
		s.Outcome = pilotage.Outcome{Status: pilotage.StatusPartial, Error: "the call failed"} // the step that stopped the Run
		x.stopped = true
	}
	if x.full && s.Kind == "" {
		s.Input = json.RawMessage(`{"n": 1}`)
	}
	x.steps = append(x.steps, s)
	return len(x.steps) - 1
}

func (x *interp) seq(ns []*node, quals []int) {
	for _, n := range ns {
		if x.stopped {
			return
		}
		x.exec(n, quals)
	}
}

func (x *interp) exec(n *node, quals []int) {
	id := pilotage.TraceSegment{Base: n.id, Iterations: quals}.String()
	switch n.kind {
	case pilotage.KindStep:
		x.emit(pilotage.TraceStep{ID: id, Calls: []string{"svc." + n.id}, Outcome: okOutcome, Output: json.RawMessage(`"done"`)})
		for k := 1; k <= n.expanded && !x.stopped; k++ {
			x.emit(pilotage.TraceStep{ID: fmt.Sprintf("%s/inner#%d", id, k), Calls: []string{"svc.inner"}, Outcome: okOutcome})
		}
	case pilotage.KindBranch:
		label := n.arms[x.r.IntN(len(n.arms))]
		i := x.emit(pilotage.TraceStep{ID: id, Kind: n.kind, Outcome: okOutcome,
			Decisions: []pilotage.Decision{{At: id, Took: label, Because: "chosen"}}})
		if i < 0 {
			return
		}
		before := len(x.steps)
		x.seq(n.body[label], quals)
		x.armEntries[i] = len(x.steps) - before
	case pilotage.KindLoop:
		i := x.emit(pilotage.TraceStep{ID: id, Kind: n.kind, Outcome: okOutcome})
		if i < 0 {
			return
		}
		for it := range x.r.IntN(4) {
			// The loop entry's decisions fill in as the loop runs (reading 7).
			x.steps[i].Decisions = append(x.steps[i].Decisions, pilotage.Decision{At: id, Took: pilotage.DecisionContinue})
			x.seq(n.body[""], append(slices.Clone(quals), it+1))
			if x.stopped {
				return
			}
		}
		x.steps[i].Decisions = append(x.steps[i].Decisions, pilotage.Decision{At: id, Took: pilotage.DecisionExit})
	}
}

// recorded is one random Run: its plan and trace.
type recorded struct {
	plan     []byte
	steps    []pilotage.TraceStep
	outcome  pilotage.Outcome
	level    string
	response bool
	// stepsFirst writes steps before level and outcome, as engines that
	// stream their traces do.
	stepsFirst bool
	armEntries map[int]int
}

func record(seed uint64) recorded {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &progGen{r: r}
	prog := g.seq(0)
	plan, _ := json.MarshalIndent(planOf(r, prog), "", " ")
	x := &interp{r: r, full: r.IntN(2) == 0, budget: -1, armEntries: map[int]int{}}
	if r.IntN(2) == 0 {
		x.budget = r.IntN(12) + 1
	}
	x.seq(prog, nil)
	rec := recorded{plan: plan, steps: x.steps, outcome: okOutcome, level: "summary", response: r.IntN(2) == 0,
		stepsFirst: r.IntN(2) == 0, armEntries: x.armEntries}
	if x.full {
		rec.level = "full"
	}
	if x.stopped {
		rec.outcome = pilotage.Outcome{Status: pilotage.StatusPartial, Error: "stopped"}
	}
	return rec
}

// traceJSON writes the trace, one entry per line, in the member order the
// Run chose, wrapped in an execute response or not.
func (rec recorded) traceJSON(steps []pilotage.TraceStep) []byte {
	var b bytes.Buffer
	outcome, _ := json.Marshal(rec.outcome)
	head := fmt.Sprintf(`"run_id": "run-1", "level": %q, "outcome": %s`, rec.level, outcome)
	var entries []string
	for _, s := range steps {
		e, _ := json.Marshal(s)
		entries = append(entries, string(e))
	}
	body := "\"steps\": [\n" + strings.Join(entries, ",\n") + "\n]"
	if rec.stepsFirst {
		fmt.Fprintf(&b, "{%s,\n%s}", body, head)
	} else {
		fmt.Fprintf(&b, "{%s,\n%s}", head, body)
	}
	if rec.response {
		return []byte(fmt.Sprintf(`{"run_id": "run-1", "outcome": %s, "trace": %s}`, outcome, b.String()))
	}
	return b.Bytes()
}

func replayBytes(t *testing.T, planSrc, trace []byte) []report.Finding {
	t.Helper()
	return replayPlan(loadDerived(t, planSrc), trace)
}

// loadDerived loads a plan the generator derived, which has no findings.
func loadDerived(t *testing.T, planSrc []byte) *Plan {
	t.Helper()
	plan, err := LoadPlan("plan.json", planSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Findings) > 0 {
		t.Fatalf("derived plan has findings: %v\n%s", plan.Findings, planSrc)
	}
	return plan
}

func replayPlan(plan *Plan, trace []byte) []report.Finding {
	return Replay(plan, "trace.json", bytes.NewReader(trace), Options{}).Findings
}

func TestRecordedTracesReplayClean(t *testing.T) {
	seeds := uint64(600)
	if testing.Short() {
		seeds = 120 // the edit loop; each shape still reached often
	}
	seen := map[string]int{}
	for seed := range seeds {
		rec := record(seed)
		if fs := replayBytes(t, rec.plan, rec.traceJSON(rec.steps)); len(fs) > 0 {
			t.Fatalf("seed %d: a recorded trace has findings:\n%s\nplan:\n%s\ntrace:\n%s", seed, findingLines(fs), rec.plan, rec.traceJSON(rec.steps))
		}
		for k, v := range map[string]bool{"stopped early": !rec.outcome.OK, "full": rec.level == "full",
			"steps before outcome": rec.stepsFirst, "execute response": rec.response} {
			if v {
				seen[k]++
			}
		}
		for _, s := range rec.steps {
			id, _ := pilotage.ParseTraceID(s.ID)
			switch {
			case id.Prefixed():
				seen["expanded entry"]++
			case len(id.Iterations) >= 2:
				seen["nested loop entry"]++
			case s.Kind == pilotage.KindLoop && len(s.Decisions) == 1:
				seen["zero-iteration loop"]++
			case s.Kind == pilotage.KindBranch:
				seen["branch"]++
			}
		}
	}
	// The generator must keep producing every shape the checker handles,
	// or this test would pass without testing them.
	t.Logf("shapes reached: %v", seen)
	for _, k := range []string{"stopped early", "full", "steps before outcome", "execute response", "expanded entry",
		"nested loop entry", "zero-iteration loop", "branch"} {
		if seen[k] < int(seeds/12) {
			t.Errorf("only %d recorded traces or entries have %s", seen[k], k)
		}
	}
}

func findingLines(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %d:%d %s %s: %s\n", f.Line, f.Column, f.Severity, f.Rule, f.Message)
	}
	return b.String()
}

// mutation changes one entry of a recorded trace; ok is false when the
// trace has no entry the mutation applies to.
type mutation func(r *rand.Rand, rec recorded) (steps []pilotage.TraceStep, ok bool)

// unprefixed lists the indexes of entries the plan speaks about; expanded
// sub-program entries have no plan (§5.8.3) and are not mutated.
func unprefixed(steps []pilotage.TraceStep) []int {
	var out []int
	for i, s := range steps {
		if !strings.Contains(s.ID, "/") {
			out = append(out, i)
		}
	}
	return out
}

func pick(r *rand.Rand, xs []int) (int, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	return xs[r.IntN(len(xs))], true
}

var mutations = map[string]mutation{
	// Dropping an entry is visible only when the Run completed: a Run that
	// stopped may legitimately end before any entry (§5.8.4).
	"drop": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		i, ok := pick(r, unprefixed(rec.steps))
		if !ok || !rec.outcome.OK {
			return nil, false
		}
		return slices.Delete(slices.Clone(rec.steps), i, i+1), true
	},
	// In a Run that stopped, dropping a step that a later entry shows
	// was passed (a later sibling, the next iteration, an entry after its
	// arm or body) is caught by expected-reached (§5.8.4): only steps not
	// yet reached may be absent.
	"drop-passed": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		if rec.outcome.OK {
			return nil, false
		}
		idx := unprefixed(rec.steps)
		var passed []int
		for k, i := range idx[:max(len(idx)-1, 0)] {
			if rec.steps[i].Kind == "" && idx[k+1] > i {
				passed = append(passed, i)
			}
		}
		i, ok := pick(r, passed)
		if !ok {
			return nil, false
		}
		return slices.Delete(slices.Clone(rec.steps), i, i+1), true
	},
	"duplicate": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		i, ok := pick(r, unprefixed(rec.steps))
		return slices.Insert(slices.Clone(rec.steps), i+1, rec.steps[i]), ok
	},
	"rename": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		i, ok := pick(r, unprefixed(rec.steps))
		if !ok {
			return nil, false
		}
		var plan pilotage.Plan
		_ = json.Unmarshal(rec.plan, &plan)
		id, _ := pilotage.ParseTraceID(rec.steps[i].ID)
		other := plan.Steps[r.IntN(len(plan.Steps))].ID
		if other == id.Base {
			other = "renamed"
		}
		steps := slices.Clone(rec.steps)
		id.Base = other
		steps[i].ID = id.String()
		return steps, true
	},
	"reorder": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		idx := unprefixed(rec.steps)
		if len(idx) < 2 {
			return nil, false
		}
		k := r.IntN(len(idx) - 1)
		steps := slices.Clone(rec.steps)
		steps[idx[k]], steps[idx[k+1]] = steps[idx[k+1]], steps[idx[k]]
		return steps, true
	},
	// Flipping a label is visible when the arm taken made entries, which
	// now stand in an arm that was not selected.
	"flip-arm": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		var branches []int
		for i, n := range rec.armEntries {
			if n > 0 {
				branches = append(branches, i)
			}
		}
		slices.Sort(branches)
		i, ok := pick(r, branches)
		if !ok {
			return nil, false
		}
		steps := slices.Clone(rec.steps)
		d := slices.Clone(steps[i].Decisions)
		d[0].Took = map[string]string{"then": "else", "else": "then", "maybe": "then"}[d[0].Took]
		steps[i].Decisions = d
		return steps, true
	},
	"break-qualifier": func(r *rand.Rand, rec recorded) ([]pilotage.TraceStep, bool) {
		var qualified []int
		for _, i := range unprefixed(rec.steps) {
			if strings.Contains(rec.steps[i].ID, "#") {
				qualified = append(qualified, i)
			}
		}
		i, ok := pick(r, qualified)
		if !ok {
			return nil, false
		}
		id, _ := pilotage.ParseTraceID(rec.steps[i].ID)
		q := slices.Clone(id.Iterations)
		switch r.IntN(3) {
		case 0:
			q[len(q)-1]++
		case 1:
			q = q[:len(q)-1]
		default:
			q = append(q, 1)
		}
		id.Iterations = q
		steps := slices.Clone(rec.steps)
		steps[i].ID = id.String()
		return steps, true
	},
}

func TestMutationsAreCaught(t *testing.T) {
	seeds := uint64(600)
	if testing.Short() {
		seeds = 60 // the edit loop; the full suite tries every seed
	}
	// Each mutation starts from the same recorded Runs and plans: made
	// once, not once a mutation.
	recs, plans := make([]recorded, seeds), make([]*Plan, seeds)
	for seed := range seeds {
		recs[seed] = record(seed)
		plans[seed] = loadDerived(t, recs[seed].plan)
	}
	for name, m := range mutations {
		t.Run(name, func(t *testing.T) {
			applied := 0
			for seed := range seeds {
				rec := recs[seed]
				steps, ok := m(rand.New(rand.NewPCG(seed, 99)), rec)
				if !ok {
					continue
				}
				applied++
				fs := replayPlan(plans[seed], rec.traceJSON(steps))
				rep := report.Report{}
				rep.Add(fs...)
				if !rep.Failed(true) {
					t.Fatalf("seed %d: %s went unnoticed (findings: %d)\nplan:\n%s\noriginal:\n%s\nmutated:\n%s", seed, name, len(fs),
						rec.plan, rec.traceJSON(rec.steps), rec.traceJSON(steps))
				}
			}
			if applied < int(seeds/6) {
				t.Fatalf("%s applied to only %d of %d random traces; the generator no longer exercises it", name, applied, seeds)
			}
		})
	}
}
