package replay

import (
	"fmt"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// DeepCost bounds one re-evaluation in CEL cost units: the workbench
// engine's own bound (engine.ExprCost), so an expression the engine could
// evaluate, deep replay can too.
const DeepCost = 1_000_000

// Deep is what deep replay re-decides a Run with (docs/replay.md, "Deep
// replay"): the program the Run executed, checked in the CEL environment
// of the Language it ran in, and where each of its expressions is.
type Deep struct {
	// File is the program file; findings point at its expressions.
	File string
	// Program is the checked program.
	Program *program.Program
	// Arms are the Language's branch arm labels: the first is taken when
	// the condition is true.
	Arms []string
	// Input is the Run's input (the execute request's), decoded; nil when
	// not given, and then an expression that reads it is not re-decided.
	Input any
	// Subprogram is the Language's trace_subprogram: "expanded" when the
	// entries of a promoted program's body appear in its callers' traces
	// (§5.8.3).
	Subprogram string
	src        *source
	// bodies are the promoted programs the Language defines that the
	// program runs, directly or from another body, by entry id.
	bodies map[string]*body
	// expansion is the Language's sub-program expansion limit.
	expansion int
}

// source is where a program's expressions are written: the program file,
// or for a promoted body the entry of the PDL that defines it.
type source struct {
	file   string
	parsed *syntax.Parsed
	// pointers is set when the program is written in the step model's
	// JSON, where a JSON Pointer locates an expression for its author.
	pointers bool
	// body is the entry of a promoted body; mapped is set when parsed is
	// of its ProgramSource, whose places map into the PDL.
	body   *language.Entry
	mapped bool
	// grammar names the members of the program's steps (Step.ArgsPointer).
	grammar *language.Grammar
}

// body is a promoted program's body as the Language defines it, checked
// as the engine checks it before running it (§5.8.3).
type body struct {
	prog *program.Program
	src  *source
	// invalid says why the body does not validate in the Language, when
	// it does not: a server refuses to run it.
	invalid string
}

// LoadDeep parses and checks the program src (the file named file) as a
// program of Language l of srv, with the catalog entries l sees and the
// bounds the engine checks with, so that every expression can be
// evaluated again. A program that does not validate is an error: the Run
// of a program that does not validate was refused and decided nothing.
func LoadDeep(file string, src []byte, srv *language.Server, l *language.Language) (*Deep, error) {
	lim := l.Limits.WithDefaults()
	syn := syntax.For(l)
	parsed, err := syn.Parse(syntax.Source(l.Locator, src), lim.Depth)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if !pilotage.Valid(parsed.Diagnostics) {
		return nil, deepDiag(file, parsed, parsed.Diagnostics)
	}
	res, err := program.Check(parsed.Program, deepEnv(srv, l, lim, expr.Schema{"type": "object"}, parsed))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if !pilotage.Valid(res.Diagnostics) {
		return nil, deepDiag(file, parsed, res.Diagnostics)
	}
	d := &Deep{File: file, Program: parsed.Program, Arms: slices.Clone(l.Grammar.Arms), Subprogram: l.TraceSubprogram,
		src: &source{file: file, parsed: parsed, pointers: syn.Pointers(), grammar: &l.Grammar}, bodies: map[string]*body{}, expansion: lim.Expansion}
	if err := d.loadBodies(parsed.Program.Steps, srv, l, lim); err != nil {
		return nil, err
	}
	return d, nil
}

// loadBodies reads and checks the body of every promoted program steps
// run that the Language defines (a PDL entry's program), and of those
// their bodies run, so that their expanded entries can be re-decided.
func (d *Deep) loadBodies(steps []*program.Step, srv *language.Server, l *language.Language, lim language.Limits) error {
	for _, s := range targets(steps) {
		if _, done := d.bodies[s]; done {
			continue
		}
		i := slices.IndexFunc(srv.Catalog, func(e *language.Entry) bool { return e.ID == s })
		if i < 0 || srv.Catalog[i].Program == nil {
			continue
		}
		e := srv.Catalog[i]
		// The body as written parses to the body the engine runs (a JSON
		// body is kept re-encoded) and places its expressions in the PDL.
		text := syntax.Source(l.Locator, e.Program)
		mapped := e.ProgramAt.First.Line > 0 && (string(text) == e.ProgramSource || !syntax.Textual(l.Locator) && strings.HasPrefix(strings.TrimSpace(e.ProgramSource), "{"))
		if mapped {
			text = []byte(e.ProgramSource)
		}
		parsed, err := syntax.For(l).Parse(text, lim.Depth)
		if err != nil {
			return fmt.Errorf("%s: the body of %s: %v", e.Pos.File, e.ID, err)
		}
		b := &body{prog: parsed.Program, src: &source{file: e.Pos.File, parsed: parsed, pointers: syntax.For(l).Pointers(), body: e, mapped: mapped, grammar: &l.Grammar}}
		d.bodies[e.ID] = b
		diags := parsed.Diagnostics
		if pilotage.Valid(diags) {
			res, err := program.Check(parsed.Program, deepEnv(srv, l, lim, expr.ParseSchema(e.InputSchema), parsed))
			if err != nil {
				return fmt.Errorf("%s: the body of %s: %v", e.Pos.File, e.ID, err)
			}
			diags = res.Diagnostics
		}
		if i := slices.IndexFunc(diags, func(d pilotage.Diagnostic) bool { return d.Severity == pilotage.SeverityError }); i >= 0 {
			b.invalid = diags[i].Message
			continue
		}
		if err := d.loadBodies(parsed.Program.Steps, srv, l, lim); err != nil {
			return err
		}
	}
	return nil
}

// targets are the entries steps call or run, in program order.
func targets(steps []*program.Step) []string {
	var out []string
	program.Walk(steps, func(s *program.Step) {
		if s.Kind == program.Call || s.Kind == program.Run {
			out = append(out, s.Target)
		}
	})
	return out
}

// ProgramError is a program LoadDeep refused: it does not validate in the
// Language. Its Error is the first error at its place in the file, one
// line; Diagnostics are all the diagnostics of the check that refused it,
// for a caller that reports them as pilotage validate does, each with
// its source line.
type ProgramError struct {
	*InputError
	Diagnostics []pilotage.Diagnostic
}

// deepDiag is the error of a program that does not validate: its first
// error at its place in the file, with every diagnostic.
func deepDiag(file string, parsed *syntax.Parsed, diags []pilotage.Diagnostic) error {
	for _, d := range diags {
		if d.Severity == pilotage.SeverityError {
			at, _ := parsed.Span(d)
			return &ProgramError{InputError: &InputError{File: file, Line: max(at.Line, 1), Col: max(at.Column, 1), Msg: "the program does not validate: " + d.Message,
				Hint: "deep replay re-decides the program the Run executed; run pilotage validate on it with the same --lang"}, Diagnostics: diags}
		}
	}
	return nil
}

// deepEnv is the checking environment the workbench engine gives a
// program (engine's view.programEnv): the catalog entries the Language
// sees, every one callable, since each call in the trace was already made,
// and input of the schema input (a promoted body's is its entry's);
// its messages name places as parsed, the program checked, has them.
func deepEnv(srv *language.Server, l *language.Language, lim language.Limits, input expr.Schema, parsed *syntax.Parsed) *program.Env {
	byID := map[string]*language.Entry{}
	var visible []string
	for _, e := range srv.Catalog {
		if len(e.Languages) == 0 || slices.Contains(e.Languages, l.ID) {
			byID[e.ID] = e
			visible = append(visible, e.ID)
		}
	}
	env := &program.Env{
		Grammar: &l.Grammar,
		Labels:  l.Text != nil,
		Place:   parsed.Place(),
		Limits:  expr.Limits{Depth: lim.Depth, Size: expr.MaxSize, Cost: DeepCost},
		Lookup: func(id string) (program.Target, bool) {
			e := byID[id]
			if e == nil {
				return program.Target{}, false
			}
			return program.Target{Entry: &e.CatalogEntry, Callable: true, Promoted: e.Program != nil}, true
		},
		Visible:  visible,
		Code:     func(string) string { return pilotage.CodeConstraint },
		HasInput: l.Grammar.Input, Input: input,
	}
	if len(l.ContextSchema) > 0 {
		env.HasContext, env.Context = true, expr.ParseSchema(l.ContextSchema)
	}
	return env
}

// at locates one of the program's expressions (or steps) by its JSON
// Pointer in the step model: a line:column of the program file (a text
// range's start in a text program), and the pointer itself for a JSON
// program. A promoted body's is its place in the PDL, or its entry's when
// the body was not written as a text block, with the place in the body in
// the note. "" locates nothing.
func (s *source) at(ptr, note string) []report.Location {
	if ptr == "" {
		return nil
	}
	at, _ := s.parsed.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(ptr)})
	loc := report.Location{File: s.file, Line: max(at.Line, 1), Column: max(at.Column, 1), Note: note}
	if s.pointers {
		loc.Pointer = ptr
	}
	if s.body == nil {
		return []report.Location{loc}
	}
	where, in := fmt.Sprintf("line %d:%d of ", loc.Line, loc.Column), s.body.Pos
	if s.mapped {
		where, in = "in ", s.body.ProgramPos(loc.Line, loc.Column)
	}
	if s.pointers {
		where = ptr + " of "
	}
	loc.File, loc.Line, loc.Column = in.File, max(in.Line, 1), max(in.Column, 1)
	loc.Note = strings.TrimSpace(fmt.Sprintf("%s (%sthe body of %s)", note, where, report.Clip(s.body.ID)))
	return []report.Location{loc}
}

// place is an expression (or step) of a program by its JSON Pointer, to
// be located only when a finding relates to it, since locating costs a
// walk of the program's syntax; a promoted body without a pointer is its
// entry.
type place struct {
	src       *source
	ptr, note string
	// step, when set, is the step ptr locates, or its arguments with
	// args: its pointer is made for a finding alone
	// (program.Step.Pointer), not for every entry replayed.
	step *program.Step
	args bool
}

func (p place) locations() []report.Location {
	ptr := p.ptr
	switch {
	case p.step != nil && p.args:
		ptr = p.step.ArgsPointer(p.src.grammar)
	case p.step != nil:
		ptr = p.step.Pointer(p.src.grammar)
	}
	if ptr == "" && p.src.body != nil {
		return p.src.entryAt(p.note)
	}
	return p.src.at(ptr, p.note)
}

// entryAt locates a promoted body as a whole: its entry in the PDL.
func (s *source) entryAt(note string) []report.Location {
	return []report.Location{{File: s.file, Line: max(s.body.Pos.Line, 1), Column: max(s.body.Pos.Column, 1), Note: note + " (" + s.body.ID + ")"}}
}
