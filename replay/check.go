package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// checker replays the entries of one trace file against the plan, in
// order, keeping only the open constructs: one frame per branch or loop
// activation that later entries may still belong to. Its memory is the
// plan's size times the nesting depth, not the trace's length.
type checker struct {
	plan *Plan
	lang *Language
	file string
	out  *findingBuffer
	// stack holds the open activations; stack[0] is the top level.
	stack []*frame
	// calls holds the latest entry at each expansion depth, so a `/`
	// prefix can be checked against the entry that called it.
	calls []string
	first *site // the first entry, for refused-run
	// steps and traceAt locate the steps array and the trace object, for
	// findings about the trace as a whole; set when the file is read.
	steps   *site
	traceAt site
	// known decides a condition early when the level or outcome came
	// before the steps; nil until then.
	known func(cond) bool
	// errorDiagnostics counts a response's error-severity diagnostics.
	errorDiagnostics int
}

// frame is one open activation: the top level, a branch entry or a loop
// entry, with what its current iteration has seen so far.
type frame struct {
	step  *Step  // nil for the top level
	entry *entry // the construct's entry, nil for the top level
	// quals are the construct entry's iteration qualifiers: the activation.
	quals []int
	// label is the arm a branch took.
	label string
	// iter is a loop's current iteration (0 before the first); continues,
	// exited and uncounted come from its decisions. uncounted says how
	// many iterations they record cannot be read: the Language's
	// summarized form, or a took that is no decision (reported at it, so
	// the count it spoils is not reported again).
	iter      int
	continues int
	exited    bool
	uncounted bool
	// seen marks the direct steps met in the current iteration; last is
	// the Ord of the latest one and max the highest: execution passed
	// every step listed before it (expected-reached).
	seen      []bool
	last, max int
}

func (f *frame) children(p *Plan) []*Step {
	switch {
	case f.step == nil:
		return p.root
	case f.step.Kind == pilotage.KindBranch:
		return f.step.Children(f.label)
	}
	return f.step.Children("")
}

func newChecker(p *Plan, lang *Language, file string, max int) *checker {
	c := &checker{plan: p, lang: lang, file: file, out: newFindingBuffer(max)}
	c.stack = []*frame{{seen: make([]bool, len(p.root)), last: -1, max: -1}}
	return c
}

// finding is one report about the trace.
type finding struct {
	rule string
	sev  report.Severity // "" means the rule's default
	c    cond
	at   site
	msg  string
	hint string
	rel  []report.Location
}

// admit reports whether a finding of rule with severity sev ("" for the
// rule's) under condition k, at at, is still wanted: not when k is
// already known not to hold (the level or outcome came before the
// steps), nor when the rule's list is full up to at. A finding admitted
// is completed with keep right after; at orders it among the listed
// (report.Cap), and is where it is, or the start of its entry.
func (c *checker) admit(rule string, sev report.Severity, k cond, at site) bool {
	if c.known != nil && !c.known(k) {
		return false
	}
	return c.out.admit(c.head(rule, sev, at), k)
}

// head is a finding of rule in this file at at with what a report.Cap
// reads: rule, section, severity ("" for the rule's), file and position.
func (c *checker) head(rule string, sev report.Severity, at site) report.Finding {
	r := RuleByID(rule)
	if sev == "" {
		sev = r.Severity
	}
	return report.Finding{Rule: rule, Section: r.Section, Severity: sev, File: c.file, Line: at.line, Column: at.col}
}

func (c *checker) add(f finding) {
	if c.admit(f.rule, f.sev, f.c, f.at) {
		c.keep(f)
	}
}

// keep records an admitted finding.
func (c *checker) keep(f finding) {
	rf := c.head(f.rule, f.sev, f.at)
	rf.Message, rf.Hint, rf.Related, rf.Pointer = f.msg, f.hint, f.rel, f.at.ptr
	c.out.keep(rf, f.c)
}

func (c *checker) rel(s *Step) report.Location {
	return c.plan.location(s, "plan step "+strconv.Quote(report.Clip(s.ID)))
}

// rels relates a finding to the entry's plan step, when it has one.
func (c *checker) rels(s *Step) []report.Location {
	if s == nil {
		return nil
	}
	return []report.Location{c.rel(s)}
}

// entry checks one trace entry as it streams past.
func (c *checker) entry(e *entry) {
	if c.first == nil {
		c.first = &e.site
	}
	if e.bad != nil {
		c.badEntry(e)
		return
	}
	w := &e.w
	if w.ID == nil {
		c.add(finding{rule: RuleTraceShape, at: e.site, msg: "trace step has no id", hint: "every trace step carries its trace step identifier (§5.8.2)"})
		return
	}
	idText := *w.ID
	var s *Step
	if !strings.Contains(idText, "/") {
		// Expanded sub-program entries have no steps in the caller's plan
		// (§5.8.3), even when their base happens to share a plan step's id.
		s = c.plan.Step(pilotage.BaseID(idText))
	}
	kind := c.kind(e, s)
	c.outcome(e)
	c.duration(e)
	c.levels(e, kind, s)
	c.decisionsAt(e, idText, s)
	c.truncation(e)
	id, err := pilotage.ParseTraceID(idText)
	if err != nil {
		c.add(finding{rule: RuleTraceIDSyntax, at: e.at("/id"), msg: err.Error(),
			hint: "a trace step id is base#n… with positive n, prefixed by calling ids and / for expanded sub-program entries"})
		return
	}
	planned := c.prefix(e, id, idText)
	if (kind == pilotage.KindBranch || kind == pilotage.KindLoop) && len(w.Calls) > 0 {
		c.add(finding{rule: RuleControlFlowCalls, at: e.at("/calls"), rel: c.rels(s),
			msg: fmt.Sprintf("%s entry %q carries calls %v; control-flow entries invoke nothing", report.Clip(kind), idText, report.Clips(w.Calls))})
	}
	if !planned {
		// Expanded sub-program entries have no plan steps (§5.8.3), so
		// nothing is matched or counted against one; a branch's or a
		// loop's decisions are still held to what needs no plan, the
		// Language's arm labels and closed set of took values among it
		// (§5.8.2).
		switch kind {
		case pilotage.KindBranch:
			c.branchDecision(e, nil)
		case pilotage.KindLoop:
			c.expandedLoop(e)
		}
		return
	}
	if s == nil {
		c.unplanned(e, kind, idText)
		return
	}
	c.entryCalls(e, s, idText)
	c.place(e, id, s)
}

func (c *checker) badEntry(e *entry) {
	// A steps array of millions of values that are not steps is one
	// finding each, nearly all counted, not listed: their messages are
	// worded only for the listed ones.
	if !c.admit(RuleTraceShape, "", always, e.site) {
		return
	}
	msg := "trace step does not have the shape of a trace step: " + strings.TrimPrefix(e.bad.Error(), "json: ")
	c.keep(finding{rule: RuleTraceShape, at: e.site, msg: msg, hint: "a trace step is an object: id (string), outcome (object), calls (array of strings), decisions (array of {at, took, because})"})
}

// countBad counts n elements in a row of the steps array (rule
// RuleTraceShape) or of the diagnostics array (RuleResponseDiagnostics)
// that are not objects, or are empty (null, {}), or for steps objects
// without an id, when none of them would be listed: each would be one
// finding of rule, counted (badEntry, "trace step has no id",
// diagnostic), the first of them at at, once the cap lists no more up
// to at and, for steps, the first entry has been seen. It reports false,
// having counted nothing, otherwise.
func (c *checker) countBad(rule string, n int, at site) bool {
	if rule == RuleTraceShape && c.first == nil {
		return false
	}
	if c.known != nil && !c.known(always) {
		return true // none would be counted either
	}
	return c.out.leaveAll(c.head(rule, "", at), always, n)
}

// kind returns the entry's kind as the plan gives it (the trace's own
// kind when the base is not planned) and checks the two agree.
func (c *checker) kind(e *entry, s *Step) string {
	k := e.w.Kind.v
	if k != "" && !slices.Contains(pilotage.StepKinds, k) {
		c.add(finding{rule: RuleEntryKind, at: e.at("/kind"), msg: fmt.Sprintf("entry kind %q is not step, branch or loop", report.Clip(k))})
		k = ""
	}
	if s == nil {
		return k
	}
	if k != "" && k != s.Kind {
		c.add(finding{rule: RuleEntryKind, at: e.at("/kind"), rel: []report.Location{c.rel(s)},
			msg: fmt.Sprintf("entry %q has kind %q but its plan step is a %s", report.Clip(*e.w.ID), report.Clip(k), report.Clip(s.Kind))})
	}
	return s.Kind
}

// duration checks t_ms, the step's duration in milliseconds: a number,
// never negative (data-model.md §5.8).
func (c *checker) duration(e *entry) {
	if bad := e.w.TMs.bad; bad != nil {
		c.add(finding{rule: RuleTraceShape, at: e.at("/t_ms"), msg: fmt.Sprintf("t_ms of %q is %s; it is a duration in milliseconds, a number ≥ 0", report.Clip(*e.w.ID), bad)})
	}
}

// madeNoCall reports whether w is a failed entry that names no call: a
// step stopped before it invoked anything (an argument that did not
// evaluate, an input its entry's schema refused, a name the caller may not
// use), so nothing received an input it could carry (docs/readings.md,
// reading 6).
func madeNoCall(w *wireEntry) bool {
	o := w.Outcome
	return len(w.Calls) == 0 && o != nil && o.OK != nil && !*o.OK
}

// armLabel is the arm of chain[j] (a branch) that the step lies in.
func armLabel(s *Step, j int) string {
	if j+1 < len(s.Chain) {
		return s.Chain[j+1].Label
	}
	return s.Label
}

// place fits an unprefixed, planned entry into the open activations:
// its qualifiers, its construct ancestors, its sibling order and its
// uniqueness, then opens a frame for a branch or loop.
func (c *checker) place(e *entry, id pilotage.TraceID, s *Step) {
	q, text := id.Iterations, *e.w.ID
	if len(q) != s.Loops {
		c.add(finding{rule: RuleTraceIDQualifiers, at: e.at("/id"), rel: []report.Location{c.rel(s)},
			msg:  fmt.Sprintf("%q has %d #n qualifier(s), but step %q is inside %d loop(s)%s", report.Clip(text), len(q), report.Clip(s.ID), s.Loops, loopNames(s)),
			hint: "one #n per enclosing loop, outermost first (§5.8.2)"})
		return
	}
	chain := s.Chain
	j := 0
	for ; j < len(chain) && j+1 < len(c.stack); j++ {
		f, a := c.stack[j+1], chain[j]
		if f.step != a || !slices.Equal(f.quals, q[:a.Loops]) {
			break
		}
		if a.Kind == pilotage.KindBranch {
			if l := armLabel(s, j); f.label != l {
				c.add(finding{rule: RuleUnselectedArm, at: e.at("/id"), rel: []report.Location{c.rel(s), c.rel(a)},
					msg: fmt.Sprintf("%q is in arm %q of branch %q, but %q took %q", report.Clip(text), report.Clip(l), report.Clip(a.ID), report.Clip(f.entry.traceID()), report.Clip(f.label))})
				return
			}
		}
	}
	if j < len(chain) {
		a := chain[j]
		where := fmt.Sprintf("the body of loop %q", report.Clip(a.ID))
		if a.Kind == pilotage.KindBranch {
			where = fmt.Sprintf("arm %q of branch %q", report.Clip(armLabel(s, j)), report.Clip(a.ID))
		}
		c.add(finding{rule: RuleExpectedSet, at: e.at("/id"), rel: []report.Location{c.rel(s), c.rel(a)},
			msg:  fmt.Sprintf("%q is in %s, but no entry %s is open here", report.Clip(text), where, activationID(a, q)),
			hint: "a construct's entry comes before the entries it selects or iterates, and they follow it (reading 1, reading 7)"})
		return
	}
	parent := c.stack[len(chain)]
	n := 0
	if parent.step != nil && parent.step.Kind == pilotage.KindLoop {
		n = q[len(q)-1]
		if n < parent.iter {
			c.add(finding{rule: RuleTraceIDQualifiers, at: e.at("/id"), rel: []report.Location{c.rel(s)},
				msg:  fmt.Sprintf("%q belongs to iteration #%d of %q, which came before the current iteration #%d", report.Clip(text), n, report.Clip(parent.entry.traceID()), parent.iter),
				hint: "iterations run in order; entries appear in the order execution reached them (§5.8.2)"})
			return
		}
	}
	c.closeTo(len(chain)+1, true)
	if n > parent.iter {
		if n > parent.iter+1 {
			msg := fmt.Sprintf("%q skips from iteration #%d to #%d of %q", report.Clip(text), parent.iter, n, report.Clip(parent.entry.traceID()))
			if parent.iter == 0 {
				msg = fmt.Sprintf("%q is in iteration #%d, but iteration #1 of %q has no entries", report.Clip(text), n, report.Clip(parent.entry.traceID()))
			}
			c.add(finding{rule: RuleTraceIDQualifiers, at: e.at("/id"), rel: []report.Location{c.rel(s)}, msg: msg,
				hint: "iteration numbers are 1-based and consecutive per activation (§5.8.2)"})
		}
		if parent.iter > 0 {
			c.endIteration(parent, true)
		}
		parent.iter = n
	}
	if parent.seen[s.Ord] {
		c.add(finding{rule: RuleEntryOnce, at: e.at("/id"), rel: []report.Location{c.rel(s)},
			msg:  fmt.Sprintf("%q appears a second time in the same %s", report.Clip(text), c.scope(parent)),
			hint: "every executed step appears exactly once (§5.8.2)"})
		return
	}
	if parent.last > s.Ord {
		prev := parent.children(c.plan)[parent.last]
		c.add(finding{rule: RuleEntryOrder, at: e.at("/id"), rel: []report.Location{c.rel(s), c.rel(prev)},
			msg:  fmt.Sprintf("%q comes after %q, but the plan lists %q first", report.Clip(text), report.Clip(prev.ID), report.Clip(s.ID)),
			hint: "entries appear in the order execution reached them (§5.8.2); for a sequential Language that is plan order"})
	}
	parent.seen[s.Ord] = true
	parent.last = s.Ord
	parent.max = max(parent.max, s.Ord)
	switch s.Kind {
	case pilotage.KindBranch:
		c.openBranch(e, s, q)
	case pilotage.KindLoop:
		c.openLoop(e, s, q)
	}
}

// traceID is the entry's trace id for messages.
func (e *entry) traceID() string {
	if e == nil || e.w.ID == nil {
		return ""
	}
	return *e.w.ID
}

func loopNames(s *Step) string {
	var names []string
	for _, a := range s.Chain {
		if a.Kind == pilotage.KindLoop {
			names = append(names, strconv.Quote(report.Clip(a.ID)))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// activationID renders the id a construct's entry has for the entry's
// qualifiers, for messages.
func activationID(a *Step, q []int) string {
	return strconv.Quote(report.Clip(pilotage.TraceSegment{Base: a.ID, Iterations: q[:a.Loops]}.String()))
}

func (c *checker) scope(f *frame) string {
	switch {
	case f.step == nil:
		return "trace (top level)"
	case f.step.Kind == pilotage.KindLoop:
		return fmt.Sprintf("iteration #%d of %q", f.iter, report.Clip(f.entry.traceID()))
	}
	return fmt.Sprintf("arm %q of %q", report.Clip(f.label), report.Clip(f.entry.traceID()))
}

// failed reports whether the entry's outcome says it did not succeed: a
// construct whose condition or list failed is traced without a decision.
func (e *entry) failed() bool {
	return e.w.Outcome != nil && e.w.Outcome.OK != nil && !*e.w.Outcome.OK
}

func (c *checker) openBranch(e *entry, s *Step, q []int) {
	e.keep()
	f := &frame{step: s, entry: e, quals: q, last: -1, max: -1}
	f.label = c.branchDecision(e, s)
	f.seen = make([]bool, len(f.children(c.plan)))
	c.stack = append(c.stack, f)
}

// branchDecision checks a branch entry's decision and returns the arm it
// took, "" for none. s is the entry's plan step, nil for an entry of an
// expanded sub-program: no plan lists its arms (§5.8.3), but it carries
// one decision all the same, and the grammar's arm labels (known with
// --lang) are the Language's whatever the body.
func (c *checker) branchDecision(e *entry, s *Step) string {
	ds := e.w.Decisions
	switch {
	case len(ds) == 0 && e.failed():
		// Reached, so traced (§5.8.2), but its condition could not be
		// evaluated: no arm was taken and none of the arms' steps follow.
		return ""
	case len(ds) != 1:
		took := "the selected arm's label"
		if s != nil {
			took = fmt.Sprintf("<one of %v>", report.Clips(s.Arms))
		}
		c.add(finding{rule: RuleBranchDecision, at: e.at("/decisions"), rel: c.rels(s),
			msg:  fmt.Sprintf("branch entry %q carries %d decisions; a branch activation takes exactly one", report.Clip(*e.w.ID), len(ds)),
			hint: fmt.Sprintf("one decision {at: %q, took: %s, because: …}", report.Clip(*e.w.ID), took)})
		return ""
	case s != nil && !slices.Contains(s.Arms, ds[0].Took):
		c.add(finding{rule: RuleBranchDecision, at: e.at("/decisions/0/took"), rel: c.rels(s),
			msg:  fmt.Sprintf("branch entry %q took %q, which is not an arm of %q (arms: %v)", report.Clip(*e.w.ID), report.Clip(ds[0].Took), report.Clip(s.ID), report.Clips(s.Arms)),
			hint: "took is the selected arm's label as the plan's arms list it (§5.8, reading 3)"})
		return ds[0].Took
	}
	if c.lang != nil && len(c.lang.Arms) > 0 && !slices.Contains(c.lang.Arms, ds[0].Took) {
		c.add(finding{rule: RuleBranchDecision, at: e.at("/decisions/0/took"), rel: c.rels(s),
			msg:  fmt.Sprintf("branch entry %q took %q, which is no arm label of the Language's grammar (%v)", report.Clip(*e.w.ID), report.Clip(ds[0].Took), report.Clips(c.lang.Arms)),
			hint: "the plan's arms and the trace's labels come from the grammar's branch arms"})
	}
	return ds[0].Took
}

func (c *checker) openLoop(e *entry, s *Step, q []int) {
	e.keep()
	f := &frame{step: s, entry: e, quals: q, last: -1, max: -1, seen: make([]bool, len(s.Children("")))}
	c.loopDecisions(e, s, f)
	c.stack = append(c.stack, f)
}

// expandedLoop checks the decisions of a loop entry of an expanded
// sub-program. Replay has not the body's plan (§5.8.3), so its iterations
// are not counted nor its entries placed; what §5.8.2 asks of every loop
// entry is checked as on the caller's loops: decisions present, each
// took continue, exit or a value of the Language's summarized form,
// nothing after the exit, and an exit once the Run completed.
func (c *checker) expandedLoop(e *entry) {
	var f frame
	c.loopDecisions(e, nil, &f)
	if !f.exited && !f.uncounted && len(e.w.Decisions) > 0 {
		c.noExit(e, nil, false)
	}
}

// loopDecisions checks a loop entry's decisions in order, counting into
// f its continues, its exit and whether they can be counted at all. s is
// the entry's plan step, nil for an expanded entry.
func (c *checker) loopDecisions(e *entry, s *Step, f *frame) {
	ds := e.w.Decisions
	if len(ds) == 0 && !e.failed() {
		c.add(finding{rule: RuleLoopDecisions, at: e.site, rel: c.rels(s),
			msg:  fmt.Sprintf("loop entry %q carries no decisions", report.Clip(*e.w.ID)),
			hint: "a reached loop records one decision per continue-or-exit evaluation; a zero-iteration loop has one exit (§5.8.2)"})
	}
	for i, d := range ds {
		switch {
		case d.Took != pilotage.DecisionContinue && d.Took != pilotage.DecisionExit:
			if c.lang.summarizes(d.Took) {
				// The Language documents a summarized form (§5.8.2); the
				// iteration count cannot be read from it.
				f.uncounted = true
				continue
			}
			msg, hint := fmt.Sprintf("loop entry %q has a decision that took %q; a loop decision takes continue or exit", report.Clip(*e.w.ID), report.Clip(d.Took)),
				"a summarized form must be documented in the closed-sets guide's Loop decisions section (give --snapshot)"
			switch {
			case c.lang != nil && len(c.lang.Sets.LoopTook) > 0:
				msg, hint = fmt.Sprintf("loop entry %q has a decision that took %q; a loop decision of this Language takes %s", report.Clip(*e.w.ID), report.Clip(d.Took), c.lang.loopValues()),
					"the closed-sets guide's Loop decisions table lists every value its summarized form uses (§5.8.2)"
			case c.lang != nil && c.lang.Sets.LoopDecisions != "":
				hint = "this Language's closed-sets guide describes its Loop decisions in prose without a table of took values, so no summarized value can be checked; list them in a table whose first column is took (closed-sets-format.md, §5.8.2)"
			case c.lang != nil:
				// The Language was given: asking for it again would send
				// the reader after a flag they already gave.
				hint = "this Language's closed-sets guide has no Loop decisions section, so its loops summarize nothing; a summarized form must be documented there (§5.8.2)"
			}
			c.add(finding{rule: RuleLoopDecisions, at: e.at("/decisions/" + strconv.Itoa(i) + "/took"), rel: c.rels(s), msg: msg, hint: hint})
			f.uncounted = true
		case f.exited:
			again := "a continue"
			if d.Took == pilotage.DecisionExit {
				again = "a second exit"
			}
			c.add(finding{rule: RuleLoopDecisions, at: e.at("/decisions/" + strconv.Itoa(i)), rel: c.rels(s),
				msg: fmt.Sprintf("loop entry %q has %s decision after its exit", report.Clip(*e.w.ID), again)})
		case d.Took == pilotage.DecisionExit:
			f.exited = true
		default:
			f.continues++
		}
	}
}

// noExit reports loop entry e, whose decisions have no exit, when the Run
// completed or, passed, when entries after the loop follow it.
func (c *checker) noExit(e *entry, s *Step, passed bool) {
	msg, k := fmt.Sprintf("loop entry %q has no exit decision, but the Run completed", report.Clip(e.traceID())), ifComplete
	if passed {
		msg, k = fmt.Sprintf("loop entry %q has no exit decision, but entries after the loop follow", report.Clip(e.traceID())), always
	}
	c.add(finding{rule: RuleLoopDecisions, c: k, at: e.at("/decisions"), rel: c.rels(s), msg: msg})
}

// closeTo closes open activations until n remain. passed says a later
// entry closes them, so execution went past them; otherwise the trace
// ended inside them.
func (c *checker) closeTo(n int, passed bool) {
	for len(c.stack) > n {
		f := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		c.closeFrame(f, passed)
	}
}

func (c *checker) closeFrame(f *frame, passed bool) {
	if f.step == nil || f.step.Kind == pilotage.KindBranch {
		c.endIteration(f, passed)
		return
	}
	// Decisions are recorded as the loop runs (reading 7): a continue
	// after the current iteration or the exit shows it ended.
	if f.iter > 0 {
		c.endIteration(f, passed || f.exited || f.continues > f.iter)
	}
	if f.uncounted {
		return
	}
	id := f.entry.traceID()
	if f.iter > f.continues {
		c.add(finding{rule: RuleLoopDecisions, at: f.entry.at("/decisions"), rel: []report.Location{c.rel(f.step)},
			msg:  fmt.Sprintf("loop entry %q records %d continue decision(s), but its body ran iteration #%d", report.Clip(id), f.continues, f.iter),
			hint: "one continue per iteration, then one exit (§5.8.2)"})
	}
	if body := f.step.Children(""); len(body) > 0 {
		for k := f.iter + 1; k <= f.continues; k++ {
			msg := fmt.Sprintf("iteration #%d of %q (a continue decision) has none of its body's entries; expected %s", k, report.Clip(id), expectedID(body[0], f.quals, k))
			c.add(finding{rule: RuleExpectedPresent, c: ifComplete, at: f.entry.at("/decisions"), rel: []report.Location{c.rel(body[0])}, msg: msg,
				hint: "reading 1: every continue of a loop has the body's expected steps after it"})
			if passed || f.exited || k < f.continues {
				c.add(finding{rule: RuleExpectedReached, c: ifIncomplete, at: f.entry.at("/decisions"), rel: []report.Location{c.rel(body[0])}, msg: msg,
					hint: "a later decision or entry shows the iteration ended: only steps not yet reached may be absent (§5.8.4)"})
			}
		}
	}
	if !f.exited && len(f.entry.w.Decisions) > 0 {
		c.noExit(f.entry, f.step, passed)
	}
}

// expectedID is the trace id a direct child of a construct has in the
// activation quals at iteration iter (0: not inside the construct's loop).
func expectedID(s *Step, quals []int, iter int) string {
	q := slices.Clone(quals)
	if iter > 0 {
		q = append(q, iter)
	}
	return strconv.Quote(report.Clip(pilotage.TraceSegment{Base: s.ID, Iterations: q}.String()))
}

// endIteration reports the direct steps the current iteration of f (or
// the branch activation, or the top level) did not reach. They are
// missing if the Run completed, and also in a Run that did not complete
// when execution went past them (§5.8.4): passed says a later entry
// closed the iteration, and a step listed before the furthest one seen
// was passed on the way.
func (c *checker) endIteration(f *frame, passed bool) {
	kids := f.children(c.plan)
	if f.step != nil && f.step.Kind == pilotage.KindBranch && !slices.Contains(f.step.Arms, f.label) {
		kids = nil // no valid arm was taken; branch-decision said so
	}
	for i, s := range kids {
		if f.seen[i] {
			continue
		}
		var at site
		var msg string
		switch {
		case f.step == nil:
			at = c.stepsSite()
			msg = fmt.Sprintf("step %q is missing; the Run completed and the step is outside every branch arm and loop body", report.Clip(s.ID))
		case f.step.Kind == pilotage.KindLoop:
			at = f.entry.at("/id")
			msg = fmt.Sprintf("%s is missing from iteration #%d of %q", expectedID(s, f.quals, f.iter), f.iter, report.Clip(f.entry.traceID()))
		default:
			at = f.entry.at("/id")
			msg = fmt.Sprintf("%s is missing; %q took arm %q, which contains it", expectedID(s, f.quals, 0), report.Clip(f.entry.traceID()), report.Clip(f.label))
		}
		rel := []report.Location{c.rel(s)}
		c.add(finding{rule: RuleExpectedPresent, c: ifComplete, at: at, rel: rel, msg: msg,
			hint: "a successful Run's trace holds every member of the expected set (§5.8.4)"})
		if passed || i < f.max {
			why := "an entry listed after it in the plan appears"
			if passed {
				why = "a later entry closed " + c.scope(f)
			}
			c.add(finding{rule: RuleExpectedReached, c: ifIncomplete, at: at, rel: rel,
				msg:  fmt.Sprintf("%s is missing from %s, though execution went past it: %s", expectedID(s, f.quals, f.iter), c.scope(f), why),
				hint: "in a Run that did not complete only steps not yet reached may be absent (§5.8.4); replay takes plan order for execution order, as entry-order does"})
		}
	}
	clear(f.seen)
	f.last, f.max = -1, -1
}
