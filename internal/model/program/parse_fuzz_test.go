package program_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// callOnly is a Grammar with one renamed construct and no control flow,
// so the fuzzer also meets member names that are not the defaults.
var callOnly = language.Grammar{Call: "invoke", Args: "args", Expressions: "cel"}

// FuzzParse reads arbitrary bytes as a program, the way validate, promote
// and compile receive them from users. Beyond never panicking, everything
// Parse returns must point into the input (§6.4: a json-pointer
// diagnostic's path locates the offending value): every diagnostic's
// pointer and every step's, target's and expression's pointer resolves in
// the document, expressions hold exactly the string they point at, and
// no construct nests deeper than the limit without a *LimitError.
func FuzzParse(f *testing.F) {
	for _, p := range golden.Sections(f, filepath.Join("..", "..", "..", "workbench", "engine", "testdata", "validate", "*.txtar"), func(name string) bool { return name == "program" }) {
		f.Add(p, false, uint8(8))
	}
	b, err := os.ReadFile("../../../langs/homeflow/programs/evening.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b, false, uint8(2))
	f.Add([]byte(`{"steps": [{"id": "a", "invoke": "x", "args": {"n": "1", "n": "2"}}], "output": 3}`), true, uint8(1))
	f.Add([]byte(`{"steps": [{"id": "l", "for_each": "[1]", "as": "i", "do": [{"id": "b", "if": "true", "then": [{"id": "c", "call": "x"}]}]}]}`), false, uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, calls bool, depth uint8) {
		g := &language.DefaultGrammar
		if calls {
			g = &callOnly
		}
		maxDepth := int(depth%16) + 1
		prog, diags, err := program.Parse(src, g, maxDepth, language.DefaultLimits.Steps)
		doc, jerr := jsonpos.Parse(src)
		if jerr != nil {
			if err != nil || prog != nil || len(diags) != 1 || diags[0].Code != pilotage.CodeSyntax {
				t.Fatalf("not JSON (%v), yet Parse gave %v, %+v, %v", jerr, prog, diags, err)
			}
			return
		}
		var le *program.LimitError
		if err != nil {
			if !errors.As(err, &le) || prog != nil || diags != nil {
				t.Fatalf("Parse failed with %v (%T), program %v, diagnostics %+v", err, err, prog, diags)
			}
			return
		}
		for _, d := range diags {
			if d.Code != pilotage.CodeSyntax || d.Severity != pilotage.SeverityError || !doc.Root.At(d.Path.Pointer).Exists() {
				t.Fatalf("diagnostic %+v does not point into the program", d)
			}
		}
		at := func(what, ptr string, kind jsonpos.Kind) jsonpos.Node {
			n := doc.Root.At(ptr)
			if !n.Is(kind) {
				t.Fatalf("%s at %q is %v, want a %v", what, ptr, n, kind)
			}
			return n
		}
		expr := func(what string, e *program.Expr) {
			if e != nil && at(what, e.Pointer, jsonpos.String).Str() != e.Src {
				t.Fatalf("%s %q is not the string at %s", what, e.Src, e.Pointer)
			}
		}
		expr("output", prog.Output)
		program.Walk(prog.Steps, func(s *program.Step) {
			at("step", s.Pointer(g), jsonpos.Object)
			if s.Target != "" && at("target", s.TargetPointer(g), jsonpos.String).Str() != s.Target {
				t.Fatalf("target %q is not the string at %s", s.Target, s.TargetPointer(g))
			}
			if s.HasArgs {
				at("arguments", s.ArgsPointer(g), jsonpos.Object)
			}
			for _, a := range s.Args {
				expr("argument "+a.Name, a.Expr)
			}
			expr("condition", s.Cond)
			expr("list", s.List)
			nesting := 1
			for e := s.Enclosing; e != nil; e = e.Enclosing {
				nesting++
			}
			if nesting > maxDepth {
				t.Fatalf("step %s nests %d deep, over the limit of %d, without a LimitError", s.Pointer(g), nesting, maxDepth)
			}
		})
	})
}
