package program_test

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// A member or argument written twice is a syntax diagnostic, and the
// last one is kept: it is the one the shared JSON Pointer names, so a
// later diagnostic about it points at its text. Keeping the first (as
// before) put, say, a CEL error of the first "n" on the second one's
// line. Found by FuzzParse.
func TestDuplicateKeepsTheValueItsPointerNames(t *testing.T) {
	src := []byte(`{"steps": [{"id": "a", "call": "x", "with": {"n": "first", "n": "second"}}], "output": "one", "output": "two"}`)
	prog, diags, err := program.Parse(src, &language.DefaultGrammar, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 2 || diags[0].Path.Pointer != "/output" || diags[1].Path.Pointer != "/steps/0/with/n" {
		t.Fatalf("want the two duplicates reported, got %+v", diags)
	}
	if args := prog.Steps[0].Args; len(args) != 1 || args[0].Expr.Src != "second" {
		t.Errorf("arguments %+v, want n = second", args)
	}
	if prog.Output == nil || prog.Output.Src != "two" {
		t.Errorf("output %+v, want two", prog.Output)
	}
}
