package testcase

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
)

// Got is what the engine answered for one case.
type Got struct {
	Validate  *pilotage.ValidateResponse
	Execute   *pilotage.ExecuteResponse // nil when the case did not run
	Narration string
}

// Failure is one expectation the engine did not meet, at its line.
type Failure struct {
	Line int
	Col  int
	// End is the column past the value the failure is at, when it is
	// written on one line; 0 when unknown.
	End  int
	Key  string // "status", "output", …
	Msg  string
	Diff string // unified diff of want and got, when both are values
}

// Check compares what c expects with got, in the order docs/test.md
// lists the expectations.
func Check(c *Case, got *Got) []Failure {
	e := &c.Expect
	var fs []Failure
	failure := func(key, msg string) Failure {
		return Failure{Line: e.Lines[key], Col: max(e.Cols[key], 1), Key: key, Msg: msg}
	}
	fail := func(key, msg string, want, have any) {
		f := failure(key, msg)
		if want != nil || have != nil {
			f.Diff = Diff(want, have)
		}
		fs = append(fs, f)
	}
	v := got.Validate
	quoted := quotedCause(c, v)
	if len(e.Lines) == 0 {
		if quoted != nil {
			return []Failure{*quoted}
		}
		// A case that states nothing would pass whatever its program
		// did, an invalid one included: it fails until --update records
		// what it does, as a blank key does.
		msg := "states nothing to check"
		if !v.Valid {
			msg += ", and " + whyInvalid(c, v.Diagnostics)
		}
		return []Failure{{Line: c.Line, Col: max(c.Col, 1), Key: "expect", Msg: msg, Diff: "run pilotage test --update to record what it does"}}
	}
	for _, k := range e.Blank {
		fail(k, fmt.Sprintf("states no %s; pilotage test --update writes what the engine answers", k), nil, nil)
	}
	for _, m := range e.PlanBlank {
		// A blank member compares as one left out: without this the
		// plan would hold of any plan, and --update leave it blank.
		fs = append(fs, Failure{Line: m.At.Line, Col: max(m.At.Col, 1), Key: "plan",
			Msg: fmt.Sprintf("states no plan %s; pilotage test --update writes what the engine answers", m.Name)})
	}
	if e.Valid != nil && *e.Valid != v.Valid {
		msg := fmt.Sprintf("valid is %t, expected %t", v.Valid, *e.Valid)
		if !v.Valid {
			// Why, as a case that expects a plan of an invalid program
			// is told: the author need not run validate to learn it.
			msg += ": " + whyInvalid(c, v.Diagnostics)
		}
		fail("valid", msg, nil, nil)
	}
	if e.Diagnostics != nil {
		if have := Diagnostics(v.Diagnostics); !listMatches(e.Diagnostics, have, diagShown) {
			f := failure("diagnostics", "the diagnostics differ")
			f.Diff = listDiff(e.Diagnostics, have, diagShown)
			fs = append(fs, f)
		}
	}
	if e.Plan != nil {
		have := PlanOf(v.Plan)
		want := *e.Plan
		// A plan expectation states only the members it gives.
		if want.Steps == nil {
			have.Steps = nil
		}
		if want.Risks == nil {
			have.Risks = nil
		}
		if want.MaxRisk == "" {
			have.MaxRisk = ""
		}
		switch {
		case reflect.DeepEqual(want, have):
		case v.Plan == nil && !v.Valid:
			fail("plan", "expects a plan, but there is none: "+whyInvalid(c, v.Diagnostics), nil, nil)
		default:
			fail("plan", "the plan differs", want, have)
		}
	}
	x := got.Execute
	if x == nil {
		// validation_error is the status an execute of a program that
		// does not validate answers (§6.5), what pilotage run prints: it
		// states that the program is invalid, as valid: false does.
		refusedInvalid := !v.Valid && e.Status == pilotage.StatusValidationError
		if quoted != nil && (e.Valid == nil || *e.Valid) && e.Diagnostics == nil && !refusedInvalid {
			// A case that expects the program to validate fails at the
			// quoted string that keeps it from validating; what follows
			// from it (a Run that did not happen, valid: true) is left
			// out.
			fs = slices.DeleteFunc(fs, func(f Failure) bool { return f.Key == "valid" })
			return append(fs, *quoted)
		}
		for _, k := range runKeys {
			if _, ok := e.Lines[k]; ok && !slices.Contains(e.Blank, k) && (k != "status" || !refusedInvalid) {
				fail(k, fmt.Sprintf("expects %s of a Run, but the case did not run: %s", k, whyInvalid(c, v.Diagnostics)), nil, nil)
			}
		}
		if !v.Valid && len(fs) == 0 && (e.Valid == nil || *e.Valid) && e.Diagnostics == nil && !refusedInvalid {
			// What it states held of a program that does not validate
			// (a plan: {}), but not that it does not: a typo in the
			// program must not pass unseen.
			fs = append(fs, Failure{Line: c.Line, Col: max(c.Col, 1), Key: "valid", Msg: whyInvalid(c, v.Diagnostics),
				Diff: "expect valid: false, or the diagnostics, if the case tests an invalid program; else mend the program"})
		}
		return fs
	}
	if e.Status != "" && e.Status != x.Outcome.Status {
		msg := fmt.Sprintf("the Run's status is %s, expected %s", x.Outcome.Status, e.Status)
		if x.Outcome.Error != "" {
			msg += ": " + x.Outcome.Error
		}
		fail("status", msg, nil, nil)
	}
	if e.Output != nil && !SameJSON(e.Output, x.Output) {
		fail("output", "the output differs", json.RawMessage(e.Output), nullable(x.Output))
	}
	if e.Trace != nil {
		if have := TraceOf(x.Trace); !listMatches(e.Trace, have, traceShown) {
			f := failure("trace", "the trace differs")
			f.Diff = listDiff(e.Trace, have, traceShown)
			fs = append(fs, f)
		}
	}
	if e.Narration != "" && !strings.Contains(got.Narration, e.Narration) {
		fail("narration", fmt.Sprintf("the narration does not contain %q", e.Narration), e.Narration, got.Narration)
	}
	return fs
}

// quotedCause is the failure of a case whose inline program does not
// validate because YAML took the quotes of one of its strings (`item:
// 'milk'` is the CEL milk, not the text): at that string, with the
// engine's hint and how to write the text in YAML. nil when the
// program's first error is elsewhere, or another kind of mistake: a
// name CEL does not know (expr.IsTextHint), or a syntax error in what
// reads as prose, not as an expression (`'milk and eggs'`).
func quotedCause(c *Case, v *pilotage.ValidateResponse) *Failure {
	i := slices.IndexFunc(v.Diagnostics, func(d pilotage.Diagnostic) bool { return d.Severity == pilotage.SeverityError })
	if v.Valid || i < 0 || len(c.Quoted) == 0 {
		return nil
	}
	d := v.Diagnostics[i]
	q, ok := c.Quoted[d.Path.Pointer]
	if !ok || d.Path.Text != nil {
		return nil
	}
	// Only an error CEL gave (its messages start "CEL: ") is one of an
	// expression: a string where the grammar wants a list (steps:
	// "notalist") is at the value, with the engine's hint alone.
	cel := strings.HasPrefix(d.Message, "CEL: ")
	prose := cel && d.Code == pilotage.CodeSyntax && !strings.ContainsAny(q.Value, ".()[]{}=<>&|+*/\\\"'?:")
	hint := d.Hint
	switch {
	case expr.IsTextHint(d.Hint) || prose:
		hint = "YAML's quotes are not CEL's: YAML reads the value as " + report.Clip(q.Value) + ", which CEL reads as an expression; " + yamlText(q)
		if d.Hint != "" {
			hint = d.Hint + "; " + hint
		}
	case cel || d.Code != pilotage.CodeSyntax:
		return nil
	}
	return &Failure{Line: q.At.Line, Col: q.At.Col, End: q.At.End, Key: "program", Msg: whyInvalid(c, v.Diagnostics), Diff: hint}
}

// yamlText says how to write q's value as a CEL text in YAML: in CEL's
// quotes inside YAML's (item: "'milk'").
func yamlText(q Quoted) string {
	v := report.Clip(q.Value)
	var s string
	switch {
	case !strings.ContainsAny(v, `'"\`):
		s = `"'` + v + `'"`
	case !strings.ContainsAny(v, `"\`):
		s = `'"` + strings.ReplaceAll(v, "'", "''") + `"'`
	default:
		return "write the text in CEL's quotes inside YAML's"
	}
	if q.Key != "" {
		s = q.Key + ": " + s
	}
	return "write " + s
}

// whyInvalid says why a case's program did not validate: its first
// error, where, and how many more, so the author need not run validate
// to learn it.
func whyInvalid(c *Case, ds []pilotage.Diagnostic) string {
	i := slices.IndexFunc(ds, func(d pilotage.Diagnostic) bool { return d.Severity == pilotage.SeverityError })
	if i < 0 {
		return "the program is invalid"
	}
	d := ds[i]
	msg := fmt.Sprintf("the program is invalid: %s (%s)", d.Message, d.Code)
	if at := c.textPlace(d.Path); at != "" {
		// A diagnostic of the whole program (JSON that does not parse)
		// has no place to give; validate on the file gives its line.
		msg = fmt.Sprintf("the program is invalid: %s (%s at %s)", d.Message, d.Code, at)
	}
	if n := len(ds) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more diagnostic(s); pilotage validate lists them)", n)
	}
	return msg
}

func nullable(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage("null")
	}
	return raw
}

// Diagnostics is what a case can state of the diagnostics: code, path
// and the whole message.
func Diagnostics(ds []pilotage.Diagnostic) []DiagWant {
	out := []DiagWant{}
	for _, d := range ds {
		out = append(out, DiagWant{Code: d.Code, Path: pathString(d.Path), Message: d.Message})
	}
	return out
}

// textPlace is where p, a diagnostic's path in c's program, is: in a
// text program, at the line and column of the case file (a
// program_text: | block) or of the program's file that they are, or of
// the text when they are not the file's (a folded block); else p as a
// case states it.
func (c *Case) textPlace(p pilotage.Path) string {
	t := p.Text
	switch {
	case t == nil || !c.Text:
		return pathString(p)
	case c.ProgramFile != "":
		return fmt.Sprintf("%s:%d:%d", c.ProgramFile, t.Start.Line, t.Start.Column)
	case c.TextAt.Line > 0:
		at := c.TextAt
		return fmt.Sprintf("%s:%d:%d", at.File, at.Line+t.Start.Line-1, at.Col+t.Start.Column-1)
	}
	return pathString(p) + " of program_text"
}

func pathString(p pilotage.Path) string {
	if p.Text != nil {
		return fmt.Sprintf("%d:%d", p.Text.Start.Line, p.Text.Start.Column)
	}
	return p.Pointer
}

// listMatches: the same number of items, each matching its want: equal
// to it once shown as the want states it (shown).
func listMatches[T any](want, have []T, shown func(w, h T) T) bool {
	if len(want) != len(have) {
		return false
	}
	for i, w := range want {
		if !reflect.DeepEqual(w, shown(w, have[i])) {
			return false
		}
	}
	return true
}

// diagShown is h as w states a diagnostic: its path only when w gives
// one, its message as w's when w's is a substring of it. h matches w
// when the two are then equal.
func diagShown(w, h DiagWant) DiagWant {
	if w.Path == "" {
		h.Path = ""
	}
	if strings.Contains(h.Message, w.Message) {
		h.Message = w.Message
	}
	return h
}

// traceShown is h with only the members w gives, as a plan expectation
// states only the members it gives: `{id: add, status: success}` says
// nothing of the entries the step called or the decision it took.
// `calls: []` states that it called none.
func traceShown(w, h TraceWant) TraceWant {
	if w.ID == "" {
		h.ID = ""
	}
	if w.Status == "" {
		h.Status = ""
	}
	if w.Calls == nil || len(w.Calls)+len(h.Calls) == 0 {
		// A step that called none has no calls in its trace, which
		// `calls: []` states: they are the same.
		h.Calls = w.Calls
	}
	if w.Took == "" {
		h.Took = ""
	}
	return h
}

// PlanOf is what a case can state of a plan.
func PlanOf(p *pilotage.Plan) PlanWant {
	if p == nil {
		return PlanWant{}
	}
	w := PlanWant{Steps: []string{}, Risks: map[string]string{}, MaxRisk: p.MaxRisk}
	for _, s := range p.Steps {
		w.Steps = append(w.Steps, s.ID)
		if s.Risk != "" {
			w.Risks[s.ID] = s.Risk
		}
	}
	return w
}

// TraceOf is what a case can state of a trace.
func TraceOf(t *pilotage.Trace) []TraceWant {
	out := []TraceWant{}
	if t == nil {
		return out
	}
	for _, s := range t.Steps {
		w := TraceWant{ID: s.ID, Status: s.Outcome.Status}
		if len(s.Calls) > 0 {
			// None is written only where a case states it (Update).
			w.Calls = s.Calls
		}
		if len(s.Decisions) > 0 {
			w.Took = s.Decisions[len(s.Decisions)-1].Took
		}
		out = append(out, w)
	}
	return out
}

// SameJSON reports whether two JSON texts hold the same value.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(nullable(a), &x) != nil || json.Unmarshal(nullable(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
