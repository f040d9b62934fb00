package replay

import (
	"fmt"
	"slices"

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
	Input  any
	parsed *syntax.Parsed
	// pointers is set when the program is written in the step model's
	// JSON, where a JSON Pointer locates an expression for its author.
	pointers bool
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
	res, err := program.Check(parsed.Program, deepEnv(srv, l, lim))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if !pilotage.Valid(res.Diagnostics) {
		return nil, deepDiag(file, parsed, res.Diagnostics)
	}
	return &Deep{File: file, Program: parsed.Program, Arms: slices.Clone(l.Grammar.Arms), parsed: parsed, pointers: syn.Pointers()}, nil
}

// deepDiag is the first error of a program that does not validate, at its
// place in the file.
func deepDiag(file string, parsed *syntax.Parsed, diags []pilotage.Diagnostic) error {
	for _, d := range diags {
		if d.Severity == pilotage.SeverityError {
			at, _ := parsed.Span(d)
			return &InputError{File: file, Line: max(at.Line, 1), Col: max(at.Column, 1), Msg: "the program does not validate: " + d.Message,
				Hint: "deep replay re-decides the program the Run executed; run pilotage validate on it with the same --lang"}
		}
	}
	return nil
}

// deepEnv is the checking environment the workbench engine gives a
// program (engine's view.programEnv): the catalog entries the Language
// sees, every one callable, since each call in the trace was already made.
func deepEnv(srv *language.Server, l *language.Language, lim language.Limits) *program.Env {
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
		Limits:  expr.Limits{Depth: lim.Depth, Size: lim.ProgramBytes, Cost: DeepCost},
		Lookup: func(id string) (program.Target, bool) {
			e := byID[id]
			if e == nil {
				return program.Target{}, false
			}
			return program.Target{Entry: &e.CatalogEntry, Callable: true, Promoted: e.Program != nil}, true
		},
		Visible:  visible,
		Code:     func(string) string { return pilotage.CodeConstraint },
		HasInput: l.Grammar.Input, Input: expr.Schema{"type": "object"},
	}
	if len(l.ContextSchema) > 0 {
		env.HasContext, env.Context = true, expr.ParseSchema(l.ContextSchema)
	}
	return env
}

// exprAt locates one of the program's expressions (or steps) by its JSON
// Pointer in the step model: a line:column of the program file (a text
// range's start in a text program), and the pointer itself for a JSON
// program. "" locates nothing.
func (d *Deep) exprAt(ptr, note string) []report.Location {
	if ptr == "" {
		return nil
	}
	at, _ := d.parsed.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(ptr)})
	loc := report.Location{File: d.File, Line: max(at.Line, 1), Column: max(at.Column, 1), Note: note}
	if d.pointers {
		loc.Pointer = ptr
	}
	return []report.Location{loc}
}
