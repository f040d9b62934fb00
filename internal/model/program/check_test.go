package program_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// A step's output is declared, with its schema's types, for the steps
// whose expressions address it, a chunk of a sequence at a time: an
// expression far from the step it addresses, in a later chunk or inside
// a branch, still gets the output's types, and so does the program's
// output.
func TestOutputsDeclaredWhereAddressed(t *testing.T) {
	echo := &pilotage.CatalogEntry{ID: "t.a", Kind: "action",
		InputSchema:  []byte(`{"type": "object", "properties": {"i": {"type": "string"}}, "required": ["i"]}`),
		OutputSchema: []byte(`{"type": "object", "properties": {"o": {"type": "string"}}, "required": ["o"]}`)}
	env := &program.Env{
		Grammar: &language.Grammar{Call: "c", Args: "w", Branch: "if", Arms: []string{"then", "else"}},
		Limits:  expr.Limits{Depth: 8, Size: 1 << 20, Cost: 1000},
		Lookup: func(id string) (program.Target, bool) {
			return program.Target{Entry: echo, Callable: true}, id == echo.ID
		},
		Visible: []string{echo.ID},
		Code:    func(string) string { return pilotage.CodeConstraint },
	}
	var steps []string
	for i := range 150 {
		steps = append(steps, fmt.Sprintf(`{"id": "q%d", "c": "t.a", "w": {"i": "'x'"}}`, i))
	}
	// The last step of the third chunk adds a number to the first
	// step's string, and so does a step in a branch's arm.
	steps[149] = `{"id": "q149", "c": "t.a", "w": {"i": "steps.q0.output.o + 1"}}`
	steps = append(steps, `{"id": "b", "if": "steps.q1.output.o == 'x'", "then": [{"id": "inner", "c": "t.a", "w": {"i": "steps.q2.output.o + 1"}}], "else": []}`)
	prog, diags := parse(t, `{"steps": [`+strings.Join(steps, ",")+`], "output": "steps.q148.output.o"}`, env.Grammar)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	ck, err := program.Check(prog, env)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, d := range ck.Diagnostics {
		if !strings.Contains(d.Message, "no matching overload") {
			t.Errorf("%s: %s, want only the two type errors", d.Path.Pointer, d.Message)
		}
		at = append(at, d.Path.Pointer)
	}
	if want := []string{"/steps/149/w/i", "/steps/150/then/0/w/i"}; strings.Join(at, " ") != strings.Join(want, " ") {
		t.Errorf("type errors at %v, want %v", at, want)
	}
	if x := prog.Output.X; x == nil || x.Type != cel.StringType {
		t.Errorf("the output %q is not typed string: %v", prog.Output.Src, x)
	}
}
