package engine

import (
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/interpreter"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// stop ends a Run early: status is the run-level status (partial, or an
// engine-defined failure status), msg the outcome's error.
type stop struct {
	status string
	msg    string
}

func (s *stop) Error() string { return s.msg }

// runner executes one checked program against one state snapshot,
// building the full-level trace as it goes (§5.8.2: flat, in the order
// execution reached each step).
//
// Each entry is complete once its step ends, and every entry after an
// open one is inside it, so when no step is open every entry is
// complete: they are then handed to each, when set, at the response's
// level, and let go of unless kept (flush). A Run of 20,000 steps held
// 4.8 MB of entries, 4 bytes a byte of its program, which a caller that
// prints the trace (pilotage run) or a response without one does not
// need.
type runner struct {
	ctx   context.Context
	e     *Engine
	st    *state
	lang  *lang
	lim   language.Limits
	ctxIn json.RawMessage // the request's context, for promoted bodies
	// caller is the Run's requesting principal: what a promoted body
	// conceals is judged by what it may see (§10.3).
	caller string
	// steps are the entries not let go of; open counts the steps begun
	// and not ended.
	steps []pilotage.TraceStep
	open  int
	// each, when set, gets every entry at level once complete; sent
	// counts the entries of steps it got. keep keeps the entries for
	// the Run's trace (a record kept, a replayed response, the engine's
	// check of its traces, a caller that gets the trace in the
	// response).
	each  func(pilotage.TraceStep)
	level string
	sent  int
	keep  bool
	count int
	mem   int64
	// hiddenSteps and hiddenMem are the parts of count and mem that
	// bodies concealed from the caller used: they count against the
	// bounds, but stats leave them out, since an opaque entry reveals
	// nothing about what ran inside it (§10.3).
	hiddenSteps int
	hiddenMem   int64
}

// shown returns the steps executed and bytes held that stats report.
func (r *runner) shown() (int, int64) { return r.count - r.hiddenSteps, r.mem - r.hiddenMem }

// conceal hides from stats what ran since shown returned steps and mem.
func (r *runner) conceal(steps int, mem int64) {
	nowSteps, nowMem := r.shown()
	r.hiddenSteps += nowSteps - steps
	r.hiddenMem += nowMem - mem
}

// scope holds what a sequence of steps can address.
type scope struct {
	parent  *scope
	outputs map[string]any
	item    string
	itemVal any
	// input and context are set on the root scope of a (sub-)program.
	input, context any
	// noInput marks the root scope of a request that gave no input,
	// which binds as {}: an expression reading a member of it fails, and
	// says why.
	noInput bool
}

func (sc *scope) child() *scope { return &scope{parent: sc, outputs: map[string]any{}} }

func (sc *scope) root() *scope {
	for sc.parent != nil {
		sc = sc.parent
	}
	return sc
}

// ResolveName implements interpreter.Activation. Qualified names
// ("steps.read.output.temp", "input.room") walk into the values, so the
// checker's schema-typed declarations resolve at run time.
func (sc *scope) ResolveName(name string) (any, bool) {
	root, rest, _ := strings.Cut(name, ".")
	var v any
	switch root {
	case "input":
		v = sc.root().input
	case "context":
		v = sc.root().context
	case "steps":
		id, after, _ := strings.Cut(rest, ".")
		field, more, _ := strings.Cut(after, ".")
		if field != "output" {
			return nil, false
		}
		found := false
		for s := sc; s != nil && !found; s = s.parent {
			v, found = s.outputs[id]
		}
		if !found {
			return nil, false
		}
		rest = more
	default:
		found := false
		for s := sc; s != nil && !found; s = s.parent {
			if s.item == root {
				v, found = s.itemVal, true
			}
		}
		if !found {
			return nil, false
		}
	}
	return expr.Path(v, rest)
}

// Parent implements interpreter.Activation.
func (sc *scope) Parent() interpreter.Activation { return nil }

func traceID(prefix, id string, quals []int) string {
	return prefix + pilotage.TraceSegment{Base: id, Iterations: quals}.String()
}

func (r *runner) limitStop(what string) *stop {
	return &stop{status: pilotage.StatusPartial, msg: "the Run reached its " + what}
}

// begin counts one executed step against the bounds of §10.1. A step
// the bounds refuse is not begun: it is neither counted in
// stats.steps_executed nor traced.
func (r *runner) begin() error {
	if r.count >= r.lim.Steps {
		return r.limitStop(fmt.Sprintf("limit of %d steps", r.lim.Steps))
	}
	if err := r.alive(); err != nil {
		return err
	}
	r.count++
	return nil
}

func (r *runner) alive() error {
	err := r.ctx.Err()
	if d, ok := r.ctx.Deadline(); ok && err == nil && !time.Now().Before(d) {
		// The context's own timer may not have fired yet on a loaded
		// machine; a deadline that has passed is the bound all the same,
		// so two Runs of one program stop at the same place.
		err = context.DeadlineExceeded
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return r.limitStop(fmt.Sprintf("time limit of %s", r.lim.Time))
		}
		return &stop{status: pilotage.StatusPartial, msg: "the Run was cancelled"}
	}
	return nil
}

// hold accounts a value against the memory bound and returns its JSON.
func (r *runner) hold(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, &stop{status: pilotage.StatusPartial, msg: "a value has no JSON form: " + err.Error()}
	}
	r.mem += int64(len(b))
	if r.mem > r.lim.MemoryBytes {
		return nil, r.limitStop(fmt.Sprintf("memory limit of %d bytes", r.lim.MemoryBytes))
	}
	return b, nil
}

func (r *runner) eval(x *program.Expr, sc *scope) (any, error) {
	if x == nil || x.X == nil {
		return nil, &stop{status: pilotage.StatusPartial, msg: "an expression was not checked"}
	}
	v, err := x.X.Eval(r.ctx, sc)
	if err != nil {
		if e := r.alive(); e != nil {
			return nil, e
		}
		msg := fmt.Sprintf("evaluating %s: %v", report.Quote(x.Src), err)
		switch {
		case strings.Contains(err.Error(), "no such overload"):
			// At run time the operand types are what the input held.
			msg += " (CEL does not mix int and double in arithmetic; a number its schema types as number is a double, but one without a schema type and without a fraction is an int: type it number in the schema, write 2.0, or convert with double(x))"
		case sc.root().noInput && strings.Contains(err.Error(), "no such key") && strings.Contains(x.Src, "input"):
			msg += " (the request gave no input, so input is {})"
		}
		return nil, &stop{status: pilotage.StatusPartial, msg: msg}
	}
	return v, nil
}

// sequence runs steps in order in scope sc; it returns the last output.
// A step's output stays in sc only while an expression may still
// address it (Step.ReleaseAfter): its JSON is in the trace either way,
// and holding every value to the end took a Run of 20,000 steps 6 bytes
// a byte of its program.
func (r *runner) sequence(steps []*program.Step, sc *scope, quals []int, prefix, auth string, depth int) (any, error) {
	var last any
	var held heldOutputs
	for _, s := range steps {
		out, err := r.step(s, sc, quals, prefix, auth, depth)
		if err != nil {
			return nil, err
		}
		sc.outputs[s.ID] = out
		if s.ReleaseAfter != nil {
			heap.Push(&held, s)
		}
		for len(held) > 0 && held[0].ReleaseAfter.Index <= s.Index {
			delete(sc.outputs, heap.Pop(&held).(*program.Step).ID)
		}
		last = out
	}
	return last, nil
}

// heldOutputs are the steps of a sequence whose outputs its scope holds
// until a later step of it has run (Step.ReleaseAfter), a heap by that
// step's place in the sequence: the first is the first to let go of.
type heldOutputs []*program.Step

func (h heldOutputs) Len() int           { return len(h) }
func (h heldOutputs) Less(i, j int) bool { return h[i].ReleaseAfter.Index < h[j].ReleaseAfter.Index }
func (h heldOutputs) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *heldOutputs) Push(x any)        { *h = append(*h, x.(*program.Step)) }
func (h *heldOutputs) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fail closes entry idx with a failed outcome and passes the stop on.
func (r *runner) fail(idx int, status string, err error) error {
	var st *stop
	if errors.As(err, &st) {
		st = &stop{status: st.status, msg: err.Error()}
	} else {
		st = &stop{status: pilotage.StatusPartial, msg: err.Error()}
	}
	if status == "" {
		status = pilotage.StatusPartial
	}
	r.steps[idx].Outcome = pilotage.Outcome{OK: false, Status: status, Error: st.msg}
	return st
}

// flush hands the entries to each and lets them go, unless kept, when
// no step is open: then each is complete, and no index of r.steps is in
// use.
func (r *runner) flush() {
	if r.open > 0 {
		return
	}
	if r.each != nil {
		for _, s := range r.steps[r.sent:] {
			r.each(renderStep(s, r.level))
		}
		r.sent = len(r.steps)
	}
	if !r.keep {
		clear(r.steps)
		r.steps, r.sent = r.steps[:0], 0
	}
}

// entry begins the trace entry of a step and returns its index in
// r.steps; end ends it, once the step has closed it.
func (r *runner) entry(e pilotage.TraceStep) int {
	r.steps = append(r.steps, e)
	r.open++
	return len(r.steps) - 1
}

func (r *runner) end() {
	r.open--
	r.flush()
}

func (r *runner) step(s *program.Step, sc *scope, quals []int, prefix, auth string, depth int) (any, error) {
	if err := r.begin(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	idx := r.entry(pilotage.TraceStep{ID: traceID(prefix, s.ID, quals)})
	defer r.end()
	var out any
	var err error
	switch s.Kind {
	case program.Call, program.Run:
		r.steps[idx].Kind = pilotage.KindStep
		// call closes its own entry, successful or not.
		return r.call(idx, s, sc, auth, depth)
	case program.Branch:
		r.steps[idx].Kind = pilotage.KindBranch
		out, err = r.branch(idx, s, sc, quals, prefix, auth, depth)
	case program.Loop:
		r.steps[idx].Kind = pilotage.KindLoop
		out, err = r.loop(idx, s, sc, quals, prefix, auth, depth)
	}
	if err != nil {
		// A construct whose inside stopped did not complete.
		return nil, r.fail(idx, pilotage.StatusPartial, err)
	}
	return r.succeed(idx, out, t0)
}

// succeed closes entry idx, begun at t0, with its output.
func (r *runner) succeed(idx int, out any, t0 time.Time) (any, error) {
	raw, err := r.hold(out)
	if err != nil {
		return nil, r.fail(idx, pilotage.StatusPartial, err)
	}
	r.steps[idx].Output = raw
	r.steps[idx].Outcome = pilotage.Outcome{OK: true, Status: pilotage.StatusSuccess}
	r.steps[idx].TMs = elapsed(t0)
	return out, nil
}

func elapsed(t0 time.Time) *float64 {
	ms := math.Round(float64(time.Since(t0).Microseconds())) / 1000
	return &ms
}

// branch decides and runs one arm. A reached construct is activated and
// traced (§5.8.2): when its condition cannot be evaluated, its entry
// stays, failed and without a decision, since none was taken.
func (r *runner) branch(idx int, s *program.Step, sc *scope, quals []int, prefix, auth string, depth int) (any, error) {
	v, err := r.eval(s.Cond, sc)
	if err != nil {
		return nil, err
	}
	b, ok := v.(bool)
	if !ok {
		return nil, &stop{status: pilotage.StatusPartial, msg: fmt.Sprintf("the condition %s gave %s, not a bool", report.Quote(s.Cond.Src), report.Clip(fmt.Sprint(v)))}
	}
	arm := 1
	if b {
		arm = 0
	}
	label := r.lang.Grammar.Arms[arm]
	r.steps[idx].Decisions = []pilotage.Decision{{At: r.steps[idx].ID, Took: label, Because: report.Clip(s.Cond.Src) + " is " + strconv.FormatBool(b)}}
	return r.sequence(s.Arms[arm], sc.child(), quals, prefix, auth, depth)
}

// loop runs the body once per element, recording a continue before each
// iteration and an exit after the last; a list that cannot be evaluated
// leaves the entry failed without decisions, like branch.
func (r *runner) loop(idx int, s *program.Step, sc *scope, quals []int, prefix, auth string, depth int) (any, error) {
	v, err := r.eval(s.List, sc)
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, &stop{status: pilotage.StatusPartial, msg: fmt.Sprintf("the loop list %s gave %T, not a list", report.Quote(s.List.Src), v)}
	}
	at := r.steps[idx].ID
	outs := []any{}
	for i, el := range list {
		if i >= r.lim.Iterations {
			return nil, r.limitStop(fmt.Sprintf("limit of %d iterations of one loop (the list has %d elements)", r.lim.Iterations, len(list)))
		}
		if err := r.alive(); err != nil {
			return nil, err
		}
		r.steps[idx].Decisions = append(r.steps[idx].Decisions, pilotage.Decision{At: at, Took: pilotage.DecisionContinue, Because: fmt.Sprintf("element %d of %d", i+1, len(list))})
		body := sc.child()
		body.item, body.itemVal = s.Item, el
		out, err := r.sequence(s.Body, body, append(append([]int(nil), quals...), i+1), prefix, auth, depth)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	r.steps[idx].Decisions = append(r.steps[idx].Decisions, pilotage.Decision{At: at, Took: pilotage.DecisionExit, Because: fmt.Sprintf("all %d elements done", len(list))})
	return outs, nil
}

// call evaluates a call's arguments and performs it: a scripted entry's
// behaviour, or a promoted program's body. The entry names the call and
// carries its input only once the call is made: calls and step inputs are
// evidence a Client verifies (§5.8, §9.4), so a step stopped before it
// invoked anything (an argument that did not evaluate or did not fit the
// memory bound, a name the caller may not use, an input off its
// input_schema) records neither, and its outcome says why
// (docs/readings.md, reading 6).
func (r *runner) call(idx int, s *program.Step, sc *scope, auth string, depth int) (any, error) {
	t0 := time.Now()
	args := map[string]any{}
	for _, a := range s.Args {
		v, err := r.eval(a.Expr, sc)
		if err != nil {
			if r.alive() == nil {
				// Not the Run's bound: the expression itself failed.
				err = fmt.Errorf("argument %s of %s: %w", a.Name, s.Target, err)
			}
			return nil, r.fail(idx, "", err)
		}
		args[a.Name] = v
	}
	in, err := r.hold(args)
	if err != nil {
		return nil, r.fail(idx, "", err)
	}
	en := r.st.entries[s.Target]
	// §10.3: every name is authorization-checked at execution time.
	if en == nil || !r.st.visible(auth, r.lang.ID, en) {
		return nil, r.fail(idx, r.lang.stepStatus("denied"), &stop{status: r.lang.runStatus("denied"), msg: fmt.Sprintf("%s is not available to this caller", s.Target)})
	}
	if len(en.wire.InputSchema) > 0 {
		vs, err := schemaViolations(r.ctx, en.wire.InputSchema, in)
		if err != nil {
			// The Run ended while the schema waited to compile.
			return nil, r.fail(idx, "", r.alive())
		}
		if len(vs) > 0 {
			return nil, r.fail(idx, "", &stop{status: pilotage.StatusPartial, msg: fmt.Sprintf("the input of %s does not match its input_schema at %q: %s", s.Target, vs[0].Pointer, vs[0].Message)})
		}
	}
	var out any
	if en.prom != nil {
		out, err = r.sub(idx, en, args, in, auth, depth)
	} else {
		r.invoked(idx, en, in)
		if r.e.opts.Behave != nil {
			if b := r.e.opts.Behave(en.wire.ID); b != nil {
				en = &entry{wire: en.wire, behavior: b}
			}
		}
		out, err = r.behave(idx, en, args)
	}
	if err != nil {
		return nil, err
	}
	return r.succeed(idx, out, t0)
}

// stepStatus returns preferred when the Language lists it as a step
// status, else partial; runStatus likewise for failed run statuses.
func (l *lang) stepStatus(preferred string) string {
	if s, ok := l.stepStatuses[preferred]; ok && !s.OK {
		return preferred
	}
	return pilotage.StatusPartial
}

func (l *lang) runStatus(preferred string) string {
	if s, ok := l.runStatuses[preferred]; ok && !s.OK && !pilotage.IsRefusal(preferred) {
		return preferred
	}
	return pilotage.StatusPartial
}

// scripts are an entry's behaviour expressions, compiled once.
type scripts struct {
	once    sync.Once
	returns *expr.Expr
	when    []*expr.Expr
	err     error
}

func (en *entry) compiled(l *lang) *scripts {
	sc := &en.scripts
	sc.once.Do(func() {
		schema := expr.ParseSchema(en.wire.InputSchema)
		if schema == nil {
			schema = expr.Schema{"type": "object"}
		}
		env, err := expr.NewEnv(expr.Limits{Depth: l.limits.Depth, Size: expr.MaxSize, Cost: ExprCost}, schema.Decls("input"))
		if err != nil {
			sc.err = err
			return
		}
		compile := func(src string) *expr.Expr {
			p, issues := env.Parse(src)
			if len(issues) == 0 {
				var x *expr.Expr
				if x, issues = env.Check(p); len(issues) == 0 {
					return x
				}
			}
			if sc.err == nil {
				sc.err = fmt.Errorf("scripted behaviour of %s: %q: %s", en.wire.ID, src, issues[0].Message)
			}
			return nil
		}
		if en.behavior.ReturnsExpr != "" {
			sc.returns = compile(en.behavior.ReturnsExpr)
		}
		for _, f := range en.behavior.Fails {
			if f.When == "" {
				sc.when = append(sc.when, nil)
			} else {
				sc.when = append(sc.when, compile(f.When))
			}
		}
	})
	return sc
}

// behave performs a scripted entry: latency (honouring the deadline),
// the first scripted failure whose condition holds, then the output.
func (r *runner) behave(idx int, en *entry, args map[string]any) (any, error) {
	b := en.behavior
	if b.Latency > 0 {
		t := time.NewTimer(b.Latency)
		select {
		case <-t.C:
			// When the latency and the deadline end together, select
			// picks either at random; a call that ended at or past the
			// deadline did not finish within the bound (§10.1).
			if err := r.alive(); err != nil {
				return nil, r.fail(idx, "", err)
			}
		case <-r.ctx.Done():
			t.Stop()
			return nil, r.fail(idx, "", r.alive())
		}
	}
	sc := en.compiled(r.lang)
	if sc.err != nil {
		return nil, r.fail(idx, "", sc.err)
	}
	act := &scope{outputs: map[string]any{}, input: args}
	for i, f := range b.Fails {
		hit := true
		if sc.when[i] != nil {
			v, err := sc.when[i].Eval(r.ctx, act)
			if err != nil {
				return nil, r.fail(idx, "", fmt.Errorf("scripted failure condition %q: %v", f.When, err))
			}
			hit = v == true
		}
		if hit {
			msg := f.Message
			if msg == "" {
				msg = fmt.Sprintf("%s failed with %s", en.wire.ID, f.Status)
			}
			return nil, r.fail(idx, r.lang.stepStatus(f.Status), &stop{status: r.lang.runStatus(f.Status), msg: msg})
		}
	}
	switch {
	case sc.returns != nil:
		v, err := sc.returns.Eval(r.ctx, act)
		if err != nil {
			return nil, r.fail(idx, "", fmt.Errorf("%s's output expression: %v", en.wire.ID, err))
		}
		return v, nil
	case len(b.Returns) > 0:
		v, err := expr.DecodeJSON(b.Returns)
		if err != nil {
			return nil, r.fail(idx, "", err)
		}
		return v, nil
	}
	return nil, nil
}

// invoked names en in entry idx's calls and gives it the input in, once
// the call is made (docs/readings.md, reading 6).
func (r *runner) invoked(idx int, en *entry, in json.RawMessage) {
	r.steps[idx].Calls = []string{en.wire.ID}
	r.steps[idx].Input = in
}

// sub runs a promoted program's body as a sub-program (§5.8.3): under the
// caller's authority, or the promoter's when the Language declares
// promotion_authority "promoter" (§10.3); expanded entries are prefixed
// with the calling entry's id, opaque ones are left out of the trace. A
// body that conceals names from the caller is opaque, and its failures
// name only en (§10.3). The entry is invoked, naming en with the input in,
// only once the body is to run: one refused for the expansion limit, a
// drift or a body that does not validate ran nothing (reading 6).
func (r *runner) sub(idx int, en *entry, args map[string]any, in json.RawMessage, auth string, depth int) (any, error) {
	if depth+1 > r.lim.Expansion {
		return nil, r.fail(idx, "", r.limitStop(fmt.Sprintf("sub-program expansion limit of %d", r.lim.Expansion)))
	}
	if r.lang.PromotionAuthority == pilotage.AuthorityPromoter {
		auth = en.prom.Promoter
	}
	if why, err := r.e.refusal(r.st, en, r.lang.ID, auth, r.caller); err != nil {
		return nil, r.fail(idx, "", err)
	} else if why != "" {
		return nil, r.fail(idx, "", errors.New(why))
	}
	concealed := r.st.conceals(en, r.lang.ID, r.caller)
	// Compiled with every name in reach; each call is authorized as it
	// runs, under auth (§10.3).
	ck, err := r.e.check(r.ctx, r.e.view(r.st, r.lang, serverAuthority), en.prom.Body, r.ctxIn, bodyKind{promoted: en}, true)
	if err != nil {
		if ended := r.alive(); ended != nil {
			err = ended // while its context_schema waited to compile
		}
		return nil, r.fail(idx, "", err)
	}
	if !pilotage.Valid(ck.diags) {
		msg := fmt.Sprintf("the promoted program %s does not validate here", en.wire.ID)
		if !concealed {
			msg += ": " + ck.diags[0].Message
		}
		return nil, r.fail(idx, "", errors.New(msg))
	}
	r.invoked(idx, en, in)
	mark := len(r.steps)
	steps, mem := r.shown()
	root := &scope{outputs: map[string]any{}, input: args, context: ck.context}
	out, err := r.sequence(ck.prog.Steps, root, nil, r.steps[idx].ID+"/", auth, depth+1)
	if err == nil && ck.prog.Output != nil {
		out, err = r.eval(ck.prog.Output, root)
	}
	if r.lang.TraceSubprogram != pilotage.SubprogramExpanded || concealed {
		r.steps = r.steps[:mark]
	}
	if concealed {
		r.conceal(steps, mem)
	}
	switch {
	case err != nil && concealed:
		return nil, r.fail(idx, pilotage.StatusPartial, concealedStop(en, err))
	case err != nil:
		return nil, r.fail(idx, pilotage.StatusPartial, fmt.Errorf("the sub-program %s stopped: %w", en.wire.ID, err))
	}
	return out, nil
}

// concealedStop is how a concealed body's stop reaches the caller: the
// status it ended with, in words that name only the program called.
func concealedStop(en *entry, err error) *stop {
	status := pilotage.StatusPartial
	var st *stop
	if errors.As(err, &st) {
		status = st.status
	}
	return &stop{status: status, msg: fmt.Sprintf("the sub-program %s stopped; its steps are not shown to this caller", en.wire.ID)}
}

// concealedID is the one trace entry of a program_ref Run whose body
// conceals names from the caller.
const concealedID = "program"

// concealedRef runs a program_ref Run whose body conceals names from the
// caller as the one opaque entry a call of the reference from an inline
// program would be (§5.8.3): the entry calls the reference, carries the
// input and the outcome, and nothing inside is traced or named (§10.3).
func (r *runner) concealedRef(ref *entry, args map[string]any) (any, error) {
	if err := r.begin(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	idx := r.entry(pilotage.TraceStep{ID: concealedID, Kind: pilotage.KindStep})
	defer r.end()
	in, err := r.hold(args)
	if err != nil {
		return nil, r.fail(idx, "", err)
	}
	// At depth -1 the body runs at depth 0, as an unconcealed program_ref
	// Run's body does, so the expansion limit counts the same.
	out, err := r.sub(idx, ref, args, in, r.caller, -1)
	if err != nil {
		return nil, err
	}
	return r.succeed(idx, out, t0)
}
