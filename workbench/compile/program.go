package compile

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// checked is a program body run through the engine's own parser and
// checker, so a body that builds is a body the engine accepts.
type checked struct {
	// problems are the error diagnostics; a limit error too.
	problems []problem
	// steps are every step of the body, resolved, in program order.
	steps []*program.Step
	// parsed places the problems in the body; nil after a limit error.
	parsed *syntax.Parsed
}

// problem is one error in a program body: the engine's diagnostic, whose
// path (a JSON Pointer into the body) and range say where, and the text
// that says what.
type problem struct {
	diag pilotage.Diagnostic
	msg  string
	// noPointer leaves the JSON Pointer out of the text: the Language's
	// authors write another syntax (syntax.Syntax.Pointers).
	noPointer bool
}

func (p problem) String() string {
	if p.noPointer {
		return p.msg
	}
	ptr := p.diag.Path.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return "at " + ptr + ": " + p.msg
}

// checkBody validates src as a program of Language ls whose input has the
// given schema (nil: any object).
func (c *compiler) checkBody(src []byte, inputSchema json.RawMessage, ls *langState) checked {
	l := ls.lang
	syn := syntax.For(l)
	parsed, err := syn.Parse(src, l.Limits.Depth)
	if le, ok := errors.AsType[*program.LimitError](err); ok && (le.Pointer != "" || le.At.Line > 0) {
		// The message names where (a step past the steps limit, a
		// construct past the depth limit).
		return checked{problems: []problem{{msg: pilotage.ErrResourceLimit + ": " + err.Error(), noPointer: true}}}
	}
	if err != nil {
		return checked{problems: []problem{{msg: err.Error()}}}
	}
	if out := errorDiags(parsed.Diagnostics, syn.Pointers()); len(out) > 0 {
		return checked{problems: out, parsed: parsed}
	}
	env := *c.programEnv(ls)
	env.Input = expr.ParseSchema(inputSchema)
	env.Place = parsed.Place()
	res, err := program.Check(parsed.Program, &env)
	if le, ok := errors.AsType[*program.LimitError](err); ok && le.Pointer != "" {
		// Placed at the expression or step over the limit, as validate
		// places it.
		d := pilotage.Diagnostic{Severity: pilotage.SeverityError, Path: pilotage.PointerPath(le.Pointer)}
		return checked{problems: []problem{{diag: d, msg: pilotage.ErrResourceLimit + ": " + err.Error(), noPointer: true}}, parsed: parsed}
	}
	if err != nil {
		return checked{problems: []problem{{msg: err.Error()}}, parsed: parsed}
	}
	out := checked{problems: errorDiags(res.Diagnostics, syn.Pointers()), parsed: parsed}
	program.Walk(parsed.Program.Steps, func(st *program.Step) { out.steps = append(out.steps, st) })
	return out
}

// programEnv is what checking any program of ls needs, built once per
// Language: its grammar, bounds, visible catalog and declared codes. The
// caller sets Input.
func (c *compiler) programEnv(ls *langState) *program.Env {
	if ls.env != nil {
		return ls.env
	}
	l := ls.lang
	kinds := map[string][2]bool{}
	for k := range c.kindsOf(ls) {
		kinds[k.Kind] = [2]bool{k.Callable, k.Promoted}
	}
	// A Language that sees every entry looks them up in the compiler's
	// index; a map of its own took 50 bytes an entry at the compile's
	// peak on a large catalog.
	seen := c.visible(l.ID)
	visible := make([]string, len(seen))
	for i, o := range seen {
		visible[i] = o.e.ID
	}
	entry := func(id string) (*pilotage.CatalogEntry, bool) {
		es, ok := c.entryByID[id]
		if !ok {
			return nil, false
		}
		return &es.e.CatalogEntry, true
	}
	if len(seen) < len(c.entries) {
		byID := make(map[string]*pilotage.CatalogEntry, len(seen))
		for _, o := range seen {
			byID[o.e.ID] = &o.e.CatalogEntry
		}
		entry = func(id string) (*pilotage.CatalogEntry, bool) {
			ce, ok := byID[id]
			return ce, ok
		}
	}
	codes := map[string]bool{}
	for _, d := range append(append([]closedsets.Code(nil), c.shared.codes...), ls.sets.codes...) {
		codes[d.Code] = true
	}
	ls.env = &program.Env{
		Grammar: &l.Grammar,
		Labels:  l.Text != nil,
		Limits:  expr.Limits{Depth: l.Limits.Depth, Size: expr.MaxSize, Cost: 1 << 20},
		Lookup: func(id string) (program.Target, bool) {
			ce, ok := entry(id)
			if !ok && c.shared.lostDef("entry", id) {
				// Defined by a statement whose keyword is misspelt
				// (entyr "id"), reported there: the entry is unknown,
				// not missing.
				return program.Target{Entry: &pilotage.CatalogEntry{ID: id}, Callable: true, Promoted: true}, true
			}
			if !ok {
				return program.Target{}, false
			}
			k, known := kinds[ce.Kind]
			if !known {
				// Its kind is unknown (absent, misspelt or undefined,
				// reported at the entry): a step may call or run it, so
				// no program is judged on it, as a compiler skips checks
				// on a poisoned type.
				return program.Target{Entry: ce, Callable: true, Promoted: true}, true
			}
			return program.Target{Entry: ce, Callable: k[0], Promoted: k[1]}, true
		},
		Visible: visible,
		Code: func(preferred string) string {
			if codes[preferred] {
				return preferred
			}
			return pilotage.CodeConstraint
		},
		HasInput:   l.Grammar.Input,
		HasContext: len(l.ContextSchema) > 0,
		Context:    expr.ParseSchema(l.ContextSchema),
	}
	return ls.env
}

// errorDiags formats the error diagnostics of a check.
func errorDiags(diags []pilotage.Diagnostic, pointers bool) []problem {
	var out []problem
	for _, d := range diags {
		if d.Severity != pilotage.SeverityError {
			continue
		}
		msg := fmt.Sprintf("%s: %s", d.Code, d.Message)
		if d.Hint != "" {
			msg += " (" + d.Hint + ")"
		}
		out = append(out, problem{diag: d, msg: msg, noPointer: !pointers})
	}
	return out
}

// checkProgram validates a promoted program's body for one Language and
// checks that the entry's risk covers what the body can do: a promoted
// entry may not claim lower risk than its body (§5.4, §10.4).
func (c *compiler) checkProgram(es *entryState, ls *langState) {
	e := es.e
	if e.Program == nil || ls.broken {
		return
	}
	// Check the text as written, so positions point into the PDL.
	v := &es.program().value
	src := []byte(v.Str())
	res := c.checkBody(src, e.InputSchema, ls)
	for _, p := range res.problems {
		pos, end := res.problemPos(p, func(line, col int) lexer.Position { return valuePos(c.name, v, line, col) })
		c.add(pdl.Errorf(pdl.RuleProgram, pos, end, "",
			fmt.Sprintf("program of %s (Language %s) %s", report.Clip(e.ID), report.Clip(ls.lang.ID), p)))
	}
	if len(res.problems) > 0 {
		return
	}
	// An entry without its risk (reported at the entry) has no hints
	// to compare: whether its risk covers its body, or the body's calls
	// of it, is unknown.
	if e.Risk == "" {
		return
	}
	var hints []pilotage.RiskHints
	riskiest := ""
	for _, st := range res.steps {
		if st.Entry == nil {
			continue
		}
		if st.Entry.Risk == "" {
			return
		}
		hints = append(hints, st.Entry.RiskHints)
		if riskiest == "" && !e.RiskHints.Covers(st.Entry.RiskHints) {
			riskiest = st.Entry.ID + " (" + st.Entry.Risk + ")"
		}
	}
	if !e.RiskHints.Covers(pilotage.Aggregate(hints...)) {
		c.errf(pdl.RuleProgram, es.risk, "raise the entry's risk to one that covers its body",
			"promoted program %s claims risk %s but its body calls %s (§5.4)", report.Clip(e.ID), report.Clip(e.Risk), report.Clip(riskiest))
	}
}
