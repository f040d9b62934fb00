package picture

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/replay"
)

// Replay gathers what replay reads into a report: pass Step and Trace as
// replay's Options.OnStep and OnTrace, then call Report with replay's
// report. It keeps one aggregate per plan step and one row per trace
// file, never the entries, so a trace of a million steps costs what a
// trace of ten does.
type Replay struct {
	g      *Graph
	plan   *replay.Plan
	traces []*TraceRow
	// cur aggregates the current file's timing, for its row.
	cur TraceRow
	// entries are the current file's steps, each entry's plan node (nil
	// when unplanned) at its index; at keeps, per file, those of the
	// entries its findings point into, so a finding about an entry (a
	// deep replay's, a closed set's) is drawn on its step. Only those
	// are kept past the file's end: a long trace's list is not.
	entries []*Node
	at      map[string]map[int]*Node
}

// TraceRow is one trace file of a replay.
type TraceRow struct {
	File, RunID, Level string
	Outcome            *pilotage.Outcome
	Entries            int
	// Ms sums the durations of the top-level entries; Timed says any
	// had one.
	Ms       float64
	Timed    bool
	Errors   int
	Warnings int
	Rules    []string
}

// NewReplay starts a report of traces replayed against plan.
func NewReplay(plan *replay.Plan) *Replay {
	return &Replay{g: fromReplayPlan(plan), plan: plan}
}

// DrawsSVG reports whether the report, drawn in format, draws the plan
// as SVG, which starts Graphviz (Prepare): an HTML page does, for a plan
// within MaxBoxes.
func (r *Replay) DrawsSVG(format string) bool {
	return format == "html" && layout(r.g).drawable() == nil
}

// fromReplayPlan draws the plan replay read, with its tree as replay
// resolved it (arm and loop references checked, cycles broken).
func fromReplayPlan(p *replay.Plan) *Graph {
	type head struct {
		MaxRisk      string              `json:"max_risk"`
		MaxRiskHints *pilotage.RiskHints `json:"max_risk_hints"`
	}
	var h struct {
		head
		Plan *head `json:"plan"`
	}
	// A plan whose members have the wrong types is replay's finding; the
	// picture then has no max_risk.
	_ = json.Unmarshal(p.Src, &h)
	top := h.head
	if h.Plan != nil {
		top = *h.Plan
	}
	pp := &pilotage.Plan{MaxRisk: top.MaxRisk}
	if top.MaxRiskHints != nil {
		pp.MaxRiskHints = *top.MaxRiskHints
	}
	for _, s := range p.Steps {
		ps := pilotage.PlanStep{ID: s.ID, Kind: s.Kind, Calls: s.Calls, Risk: s.Risk, RiskHints: s.Hints, Arms: s.Arms}
		switch {
		case s.Parent == nil:
		case s.Parent.Kind == pilotage.KindBranch:
			ps.Arm = &pilotage.ArmRef{Branch: s.Parent.ID, Label: s.Label}
		default:
			ps.Loop = s.Parent.ID
		}
		pp.Steps = append(pp.Steps, ps)
	}
	g := FromPlan(pp, Info{})
	if top.MaxRisk == "" {
		g.MaxHints = nil
	}
	g.traced = true
	return g
}

// Step lays one trace entry over its plan step.
func (r *Replay) Step(s *replay.Seen) {
	call, inner, expanded := strings.Cut(s.ID, "/")
	n := r.g.Node(pilotage.BaseID(call))
	if s.Index >= len(r.entries) {
		r.entries = append(r.entries, make([]*Node, s.Index+1-len(r.entries))...)
	}
	r.entries[s.Index] = n
	if n == nil {
		return // unplanned: replay's findings say so
	}
	if s.TMs >= 0 && n.Parent == nil && !expanded {
		// Top-level entries only: a branch's or loop's time holds its body's.
		r.cur.Ms += s.TMs
		r.cur.Timed = true
	}
	o := n.overlay()
	if expanded {
		// An expanded sub-program's entry (§5.8.3): counted on the step
		// that ran the program, by its own base id.
		if n.Sub == nil {
			ref := ""
			if len(n.Calls) > 0 {
				ref = n.Calls[0]
			}
			n.Sub = &Sub{Ref: ref, Expanded: true}
		}
		if o.Expanded == nil {
			o.Expanded = map[string]int{}
		}
		if len(o.Expanded) < maxExpanded {
			o.Expanded[pilotage.BaseID(inner)]++
		}
		return
	}
	o.Entries++
	if s.Status != "" {
		if o.Statuses == nil {
			o.Statuses = map[string]int{}
		}
		o.Statuses[s.Status]++
	}
	if s.TMs >= 0 {
		o.Timed++
		o.Ms += s.TMs
		o.MaxMs = max(o.MaxMs, s.TMs)
	}
	for _, d := range s.Decisions {
		switch n.Kind {
		case pilotage.KindLoop:
			if d.Took == pilotage.DecisionContinue {
				o.Iterations++
			}
		case pilotage.KindBranch:
			for _, a := range n.Arms {
				if a.Label == d.Took {
					a.Taken++
				}
			}
		}
	}
}

// maxExpanded bounds the distinct inner steps counted under one
// sub-program call, so a hostile trace cannot grow the map without end.
const maxExpanded = 256

func (n *Node) overlay() *Overlay {
	if n.Run == nil {
		n.Run = &Overlay{}
	}
	return n.Run
}

// Trace closes one trace file's row.
func (r *Replay) Trace(t *replay.TraceSeen) {
	row := r.cur
	r.cur = TraceRow{}
	row.File, row.RunID, row.Level, row.Outcome, row.Entries = t.File, t.RunID, t.Level, t.Outcome, t.Entries
	rules := map[string]bool{}
	for _, f := range t.Findings {
		if i, ok := entryIndex(f.Pointer); ok && i < len(r.entries) && r.entries[i] != nil {
			if r.at == nil {
				r.at = map[string]map[int]*Node{}
			}
			if r.at[t.File] == nil {
				r.at[t.File] = map[int]*Node{}
			}
			r.at[t.File][i] = r.entries[i]
		}
		switch f.Severity {
		case report.Error:
			row.Errors++
		case report.Warning:
			row.Warnings++
		}
		rules[f.Rule] = true
	}
	for rule := range rules {
		row.Rules = append(row.Rules, rule)
	}
	sort.Strings(row.Rules)
	r.traces = append(r.traces, &row)
	clear(r.entries)
	r.entries = r.entries[:0]
}

// entryIndex is the index of the trace entry a finding's pointer points
// into (/trace/steps/3/decisions/0/took, or /steps/3 in a bare trace).
func entryIndex(pointer string) (int, bool) {
	const steps = "/steps/"
	i := strings.Index(pointer, steps)
	if i < 0 {
		return 0, false
	}
	rest := pointer[i+len(steps):]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// placeFindings puts each finding on the plan step it concerns: the
// step replay matched the entry against (its related location), or the
// step a plan finding points into. The rest concern a trace as a whole.
func (r *Replay) placeFindings(fs []report.Finding) (unplaced []report.Finding) {
	byPtr := map[string]*Node{}
	for _, s := range r.plan.Steps {
		byPtr[s.Pointer] = r.g.Node(s.ID)
	}
	for _, f := range fs {
		n := r.stepOf(f, byPtr)
		if n == nil {
			unplaced = append(unplaced, f)
			continue
		}
		o := n.overlay()
		o.Findings = append(o.Findings, f)
		if f.Rule == replay.RuleUnselectedArm && n.Arm != nil {
			// The step ran in an arm the branch did not choose: the arm's
			// edge is where the trace left the plan.
			n.Arm.Findings++
		}
	}
	return unplaced
}

func (r *Replay) stepOf(f report.Finding, byPtr map[string]*Node) *Node {
	for _, l := range f.Related {
		if l.File == r.plan.File && byPtr[l.Pointer] != nil {
			return byPtr[l.Pointer]
		}
	}
	if f.File != r.plan.File {
		if i, ok := entryIndex(f.Pointer); ok {
			return r.at[f.File][i]
		}
		return nil
	}
	for p := f.Pointer; p != ""; {
		if n := byPtr[p]; n != nil {
			return n
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return nil
}
