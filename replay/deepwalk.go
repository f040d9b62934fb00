package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/google/cel-go/interpreter"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// unknown is a value the trace does not record; why says which and why,
// for the info finding of what could not be re-decided. what, when not
// "", stands for every expression that meets the value, so that they are
// counted in one finding rather than one each: the Run's input, absent
// for the whole replay, is one thing to give (--input), however many
// expressions read it.
type unknown struct{ what, why string }

// dscope is what a sequence of steps addresses during deep replay, as the
// engine's scope: outputs of the steps before, the loop item, input.
type dscope struct {
	parent  *dscope
	outputs map[string]any
	item    string
	itemVal any
	fr      *dframe
	root    *deepRun
}

// dframe is one program being re-decided: the Run's, or a promoted body
// whose entries the trace expands (§5.8.3).
type dframe struct {
	// input is the program's input: the Run's, or a body's bound from the
	// input of the entry that runs it.
	input any
	src   *source
	// body is set in a promoted body, which runs at expansion depth depth.
	body  *body
	depth int
}

func (sc *dscope) child() *dscope {
	return &dscope{parent: sc, outputs: map[string]any{}, root: sc.root, fr: sc.fr}
}

// ResolveName implements interpreter.Activation, walking qualified names
// into values as the engine's scope does.
func (sc *dscope) ResolveName(name string) (any, bool) {
	head, rest, _ := strings.Cut(name, ".")
	var v any
	found := false
	switch head {
	case "input":
		v, found = sc.fr.input, true
	case "context":
		v, found = unknown{why: "the Run's context, which no trace records"}, true
	case "steps":
		id, after, _ := strings.Cut(rest, ".")
		field, more, _ := strings.Cut(after, ".")
		if field != "output" {
			return nil, false
		}
		for s := sc; s != nil && !found; s = s.parent {
			v, found = s.outputs[id]
		}
		rest = more
	default:
		for s := sc; s != nil && !found; s = s.parent {
			if s.item == head {
				v, found = s.itemVal, true
			}
		}
	}
	if !found {
		return nil, false
	}
	if u, ok := v.(unknown); ok {
		sc.root.missing = &u
		return nil, false
	}
	return expr.Path(v, rest)
}

// Parent implements interpreter.Activation.
func (sc *dscope) Parent() interpreter.Activation { return nil }

// deepRun re-decides one trace file's Run. It runs as a coroutine beside
// the walk (iter.Pull): it asks for the next entry when the program
// reaches its next step, so it holds the program's live values and the
// constructs open around the current entry, never the trace.
type deepRun struct {
	d *Deep
	c *checker
	// pending is the entry the walk handed over; nil at the end.
	pending *entry
	yield   func(struct{}) bool
	eof     bool
	peeked  *entry
	// missing is the unknown value the last evaluation met.
	missing *unknown
	// failed is the entry whose failure should have ended the Run.
	failed *entry
	// lost is set when the trace departs from the program's order, which
	// the correspondence rules report; deep replay stops there.
	lost bool
	// departed is set when the expanded entries of a promoted body depart
	// from the body the Language defines: where, and which step the body
	// gives there.
	departed *departure
	// out is the Run's output the program gives, when it could be
	// computed; outSet says so.
	out    any
	outSet bool
	// outErr is why the program's output expression does not evaluate
	// over the recorded values, which a Run that succeeded contradicts.
	outErr error
	// reported counts the divergences reported.
	reported int
	// undecided counts what could not be re-decided, by reason.
	undecided map[string]int
	firstWhy  []string
	// input is the Run's input, or unknown.
	input any
}

func newDeepRun(d *Deep, c *checker) *deepRun {
	r := &deepRun{d: d, c: c, undecided: map[string]int{}, input: d.Input}
	if d.Input == nil {
		r.input = unknown{what: "what reads the Run's input", why: "no trace records it (give it with --input)"}
	}
	return r
}

// start runs the re-decision as a coroutine and returns the function the
// walk feeds each entry to and the one that ends it, after the walk.
func (r *deepRun) start() (feed func(*entry), end func()) {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		r.yield = yield
		r.run()
	})
	next() // up to the first request for an entry
	feed = func(e *entry) {
		k := *e
		k.keep()
		r.pending = &k
		next()
	}
	end = func() {
		r.pending = nil
		r.eof = true
		next()
		stop()
	}
	return feed, end
}

// peek returns the next entry without taking it; nil at the end.
func (r *deepRun) peek() *entry {
	if r.peeked == nil && !r.eof {
		if !r.yield(struct{}{}) {
			r.eof = true
			return nil
		}
		if r.pending == nil {
			r.eof = true
			return nil
		}
		r.peeked = r.pending
	}
	return r.peeked
}

func (r *deepRun) take() *entry {
	e := r.peek()
	r.peeked = nil
	return e
}

// departure is where expanded entries left a promoted body: the frame,
// the entry met (nil at the end of the trace) and the id the body gives.
type departure struct {
	fr   *dframe
	got  *entry
	want string
}

func (r *deepRun) run() {
	root := &dscope{outputs: map[string]any{}, root: r, fr: &dframe{input: r.input, src: r.d.src}}
	if r.sequence(r.d.Program.Steps, root, nil, "") && r.d.Program.Output != nil {
		v, ok, err := r.evaluate(r.d.Program.Output, root, "the Run's output")
		r.out, r.outSet, r.outErr = v, ok, err
	}
	for e := r.take(); e != nil; e = r.take() {
		if r.failed != nil && e.bad == nil {
			r.report(RuleDeepAfterFailure, e.site, fmt.Sprintf("step %s ran after step %s failed (%s), which ended the Run", idOf(e), idOf(r.failed), r.failed.w.Outcome.statusText()),
				"a failed step stops the Run: the constructs around it fail and nothing after it runs (§5.7, §5.8.2)", nil)
		}
	}
}

func idOf(e *entry) string {
	if e.w.ID == nil {
		return "(no id)"
	}
	return strconv.Quote(report.Clip(*e.w.ID))
}

func (o *wireOutcome) statusText() string {
	if o == nil || o.Status == nil {
		return "no status"
	}
	return *o.Status
}

func (e *entry) ok() bool {
	return e.w.Outcome == nil || e.w.Outcome.OK == nil || *e.w.Outcome.OK
}

// traceID is the id the engine gives step id under prefix and the
// iteration qualifiers (§5.8.2).
func traceID(prefix, id string, quals []int) string {
	return prefix + pilotage.TraceSegment{Base: id, Iterations: quals}.String()
}

// sequence re-decides steps in scope sc; it reports whether the Run went
// on after them (no failure, no departure from the program).
func (r *deepRun) sequence(steps []*program.Step, sc *dscope, quals []int, prefix string) bool {
	for _, s := range steps {
		out, ok := r.step(s, sc, quals, prefix)
		if !ok {
			return false
		}
		sc.outputs[s.ID] = out
	}
	return true
}

// last is what a sequence gives: the output of its last step.
func last(steps []*program.Step, sc *dscope) any {
	if len(steps) == 0 {
		return nil
	}
	return sc.outputs[steps[len(steps)-1].ID]
}

func (r *deepRun) step(s *program.Step, sc *dscope, quals []int, prefix string) (any, bool) {
	id := traceID(prefix, s.ID, quals)
	e := r.peek()
	if e == nil || e.bad != nil || e.w.ID == nil || *e.w.ID != id {
		// The trace ends here or goes elsewhere: what the plain rules
		// report (entry-order, expected-reached), not a decision. In a
		// promoted body, which they do not check (§5.8.4), sub says.
		if sc.fr.body != nil {
			r.departed = &departure{fr: sc.fr, got: e, want: id}
			return nil, false
		}
		if e != nil {
			r.lost = true
			r.note("the steps from entry "+idOf(e)+" on", "the trace departs there from the program, which expects step "+strconv.Quote(id)+" (the correspondence rules say how)")
		}
		return nil, false
	}
	r.take()
	var computed any
	switch s.Kind {
	case program.Call, program.Run:
		args := r.call(s, sc, e)
		if !r.sub(s, sc, e, args) {
			return nil, false
		}
		if !e.ok() {
			r.failed = e
			return nil, false
		}
		return r.recorded(e, s), true
	case program.Branch:
		arm, ok := r.branch(s, sc, e)
		if !ok {
			return nil, false
		}
		inner := sc.child()
		if !r.sequence(s.Arms[arm], inner, quals, prefix) {
			return nil, false
		}
		computed = last(s.Arms[arm], inner)
	case program.Loop:
		r.missing = nil
		n, list, ok := r.loop(s, sc, e)
		if !ok {
			return nil, false
		}
		// The value the list could not be evaluated for (loop's only
		// evaluation is the list's) is what each element is unknown
		// for: an element is not a second reason.
		cause := r.missing
		missing := "which the list the program gives does not have"
		if list == nil {
			missing = "since the loop's list could not be re-evaluated"
		}
		outs := []any{}
		for i := 1; i <= n; i++ {
			body := sc.child()
			body.item = s.Item
			switch {
			case list != nil && i <= len(list):
				body.itemVal = list[i-1]
			case list == nil && cause != nil:
				body.itemVal = *cause
			default:
				body.itemVal = unknown{why: fmt.Sprintf("the element of iteration %d, %s", i, missing)}
			}
			if !r.sequence(s.Body, body, append(append([]int(nil), quals...), i), prefix) {
				return nil, false
			}
			outs = append(outs, last(s.Body, body))
		}
		computed = outs
	}
	if !e.ok() {
		r.failed = e
		return nil, false
	}
	if len(e.w.Output) > 0 {
		r.compare(RuleDeepOutput, e, "/output", computed, "the output of "+*e.w.ID,
			"a branch gives the output of the last step of its arm, a loop the list of its iterations' (§5.8)", place{src: sc.fr.src, step: s})
	}
	return r.recordedOr(e, s, computed), true
}

// recorded is the output an entry records, or an unknown value saying
// why there is none.
func (r *deepRun) recorded(e *entry, s *program.Step) any {
	if len(e.w.Output) == 0 {
		return unknown{why: "the output of step " + strconv.Quote(s.ID) + ", which a summary trace does not record (§5.8.1)"}
	}
	v, err := expr.DecodeJSON(e.w.Output)
	if err != nil {
		return unknown{why: "the output of step " + strconv.Quote(s.ID) + ", which is not JSON"}
	}
	if truncated(v) {
		return unknown{why: "the output of step " + strconv.Quote(s.ID) + ", which the summary trace truncates (§5.8.1)"}
	}
	return v
}

// truncated reports whether v is the engine's summary truncation form
// (language.TruncationText), which stands for an output it does not hold.
func truncated(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 3 || m["truncated"] != true {
		return false
	}
	_, hasBytes := m["bytes"]
	_, hasPreview := m["preview"]
	return hasBytes && hasPreview
}

// recordedOr prefers the recorded output of a construct, which is what
// later steps read, and else the one its steps give.
func (r *deepRun) recordedOr(e *entry, s *program.Step, computed any) any {
	if len(e.w.Output) == 0 {
		return computed
	}
	return r.recorded(e, s)
}

// call checks a call's recorded input against its arguments' values,
// which it returns (nil when one could not be evaluated).
func (r *deepRun) call(s *program.Step, sc *dscope, e *entry) map[string]any {
	args := map[string]any{}
	for _, a := range s.Args {
		v, ok := r.eval(a.Expr, sc, e, "argument "+a.Name+" of "+*e.w.ID)
		if !ok {
			return nil
		}
		args[a.Name] = v
	}
	if len(e.w.Input) == 0 {
		if e.ok() {
			r.note("call inputs", "a summary trace does not record them (§5.8.1)")
		}
		return args
	}
	r.compare(RuleDeepInput, e, "/input", args, "the input of "+*e.w.ID,
		"a call's input is its arguments evaluated over the values before it (§5.8, step inputs)", place{src: sc.fr.src, step: s, args: true})
	return args
}

// branch re-decides a branch and returns the arm the trace took, for the
// replay to follow; ok is false when the Run ends at the branch.
func (r *deepRun) branch(s *program.Step, sc *dscope, e *entry) (int, bool) {
	v, known := r.eval(s.Cond, sc, e, "the condition of "+*e.w.ID)
	if len(e.w.Decisions) != 1 {
		// No decision: the condition did not evaluate and the Run ended
		// (or the branch-decision rule reports the entry).
		if !e.ok() {
			r.failed = e
		}
		return 0, false
	}
	took := e.w.Decisions[0].Took
	arm := -1
	for i, l := range r.d.Arms {
		if l == took {
			arm = i
		}
	}
	if arm < 0 || arm >= len(s.Arms) {
		return 0, false // branch-decision reports the label
	}
	b, isBool := v.(bool)
	if known && isBool {
		want := 1
		if b {
			want = 0
		}
		if want != arm {
			r.report(RuleDeepBranch, e.at("/decisions/0/took"),
				fmt.Sprintf("branch %s took %q, but its condition %s is %t over the recorded values, which gives %q", report.Clip(*e.w.ID), report.Clip(took), report.Clip(s.Cond.Src), b, report.Clip(r.d.Arms[want])),
				"the first arm runs when the condition is true, the second otherwise", sc.fr.src.at(s.Cond.Pointer, "the condition"))
		}
	}
	return arm, true
}

// loop re-evaluates a loop's list against the iterations the trace
// records; it returns that number and the list (nil when unknown).
func (r *deepRun) loop(s *program.Step, sc *dscope, e *entry) (int, []any, bool) {
	v, known := r.eval(s.List, sc, e, "the list of "+*e.w.ID)
	n := 0
	for _, d := range e.w.Decisions {
		switch d.Took {
		case pilotage.DecisionContinue:
			n++
		case pilotage.DecisionExit:
		default:
			// A misspelt or summarized took: loop-decisions reports it,
			// and the iterations are not known to compare.
			r.note("loops and what follows them", "a decision's took is neither continue nor exit, so the iterations are not known")
			return 0, nil, false
		}
	}
	if len(e.w.Decisions) == 0 && !e.ok() {
		r.failed = e
		return 0, nil, false
	}
	list, isList := v.([]any)
	if known && isList && len(list) != n && (e.ok() || n > len(list)) {
		r.report(RuleDeepLoop, e.at("/decisions"),
			fmt.Sprintf("loop %s ran %d iteration(s), but its list %s has %d element(s) over the recorded values", report.Clip(*e.w.ID), n, report.Clip(s.List.Src), len(list)),
			"a loop runs its body once per element of its list, in order (§5.8.2)", sc.fr.src.at(s.List.Pointer, "the list"))
	}
	if !known || !isList {
		list = nil
	}
	return n, list, true
}

// eval evaluates x over the recorded values for entry e. ok is false when
// it could not be: a value the trace does not record (an info finding
// says which), or an evaluation error, which is a divergence when e
// succeeded.
func (r *deepRun) eval(x *program.Expr, sc *dscope, e *entry, what string) (any, bool) {
	v, ok, err := r.evaluate(x, sc, what)
	if err != nil && e.ok() {
		rule := RuleDeepInput
		switch {
		case strings.HasPrefix(what, "the condition"):
			rule = RuleDeepBranch
		case strings.HasPrefix(what, "the list"):
			rule = RuleDeepLoop
		case strings.HasPrefix(what, "the output"):
			rule = RuleDeepOutput
		}
		r.report(rule, e.site, fmt.Sprintf("%s does not evaluate over the recorded values (%v), yet the entry succeeded", what, err),
			"an expression that fails stops the Run with the step failed (§5.7)", sc.fr.src.at(x.Pointer, ""))
	}
	return v, ok
}

// evaluate evaluates x over the recorded values. ok is false when it
// could not be: err says why when the expression itself fails, and is nil
// when it met a value the trace does not record (an info finding says
// which).
func (r *deepRun) evaluate(x *program.Expr, sc *dscope, what string) (v any, ok bool, err error) {
	if x == nil || x.X == nil {
		return nil, false, nil
	}
	r.missing = nil
	v, err = x.X.Eval(context.Background(), sc)
	switch {
	case err == nil:
		return v, true, nil
	case r.missing != nil:
		if r.missing.what != "" {
			what = r.missing.what
		}
		r.note(what, r.missing.why)
		return nil, false, nil
	}
	return nil, false, err
}

// compare reports a recorded value (member sub of e) that is not want,
// related to the program's expression at rel, located only then.
func (r *deepRun) compare(rule string, e *entry, sub string, want any, what, hint string, rel place) {
	if _, ok := want.(unknown); ok {
		return
	}
	if containsUnknown(want) {
		return
	}
	got, err := expr.DecodeJSON(memberOf(e, sub))
	if err != nil || truncated(got) {
		return
	}
	a, errA := json.Marshal(got)
	b, errB := json.Marshal(want)
	if errA != nil || errB != nil || bytes.Equal(a, b) {
		return
	}
	r.report(rule, e.at(sub), fmt.Sprintf("%s is %s, but the program gives %s over the recorded values", what, report.Clip(a), report.Clip(b)), hint, rel.locations())
}

func memberOf(e *entry, sub string) []byte {
	if sub == "/input" {
		return e.w.Input
	}
	return e.w.Output
}

func containsUnknown(v any) bool {
	switch v := v.(type) {
	case unknown:
		return true
	case []any:
		for _, x := range v {
			if containsUnknown(x) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if containsUnknown(x) {
				return true
			}
		}
	}
	return false
}

func (r *deepRun) report(rule string, at site, msg, hint string, rel []report.Location) {
	r.reported++
	r.c.add(finding{rule: rule, at: at, msg: msg, hint: hint, rel: rel})
}

// note counts one thing that could not be re-decided, and why.
func (r *deepRun) note(what, why string) {
	key := what + ": " + why
	if r.undecided[key] == 0 {
		r.firstWhy = append(r.firstWhy, key)
	}
	r.undecided[key]++
}

// finish reports what the whole file decides: the Run's output against
// the program's, and what could not be re-decided.
func (r *deepRun) finish(s *stream) {
	t := s.trace()
	o, ok := outcomeOf(t.outcome)
	if s.top.outputRaw != nil && r.outSet && ok && *o.OK && !r.lost && r.failed == nil {
		got, err := expr.DecodeJSON(s.top.outputRaw)
		a, _ := json.Marshal(got)
		b, errB := json.Marshal(r.out)
		if err == nil && errB == nil && !containsUnknown(r.out) && !bytes.Equal(a, b) {
			r.report(RuleDeepOutput, *s.top.output, fmt.Sprintf("the Run's output is %s, but the program's output expression gives %s over the recorded values", report.Clip(a), report.Clip(b)),
				"a completed Run's output is its output expression evaluated after the last step (§5.7)", r.d.src.at(r.d.Program.Output.Pointer, "the output expression"))
		}
	}
	if r.outErr != nil && ok && *o.OK && !r.lost && r.failed == nil {
		// The engine fails a Run whose output expression fails (§5.7).
		at := t.outcome.site
		if s.top.output != nil {
			at = *s.top.output
		}
		r.report(RuleDeepOutput, at, fmt.Sprintf("the Run's output expression %s does not evaluate over the recorded values (%s), yet the Run succeeded", report.Clip(r.d.Program.Output.Src), report.Clip(r.outErr.Error())),
			"an output expression that fails ends the Run failed, with no output (§5.7)", r.d.src.at(r.d.Program.Output.Pointer, "the output expression"))
	} else if r.d.Program.Output != nil && s.top.outputRaw == nil && ok && *o.OK && !s.response {
		r.note("the Run's output", "a trace object does not carry it; give the execute response")
	}
	at := s.traceAt
	if t.steps != nil {
		at = *t.steps
	}
	for _, k := range r.firstWhy {
		r.c.add(finding{rule: RuleDeepUndecided, at: at, sev: report.Info,
			msg:  fmt.Sprintf("not re-decided (%d×) %s", r.undecided[k], k),
			hint: "deep replay re-evaluates only over values the trace records: use a full trace, the execute response for the Run's output, and trace_subprogram expanded for promoted bodies"})
	}
}
