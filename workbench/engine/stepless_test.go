package engine

import (
	"encoding/json"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// calc (langs/calc) has no step construct, so a program with steps is
// not well-formed for its grammar: validate answers one syntax diagnostic
// on the steps array that says the Language has no steps, and execute
// refuses it as a validation_error Run. The hint was "add one of: " with
// nothing after it.
func TestCalcRefusesSteps(t *testing.T) {
	res, _, err := compile.Load("../../langs/calc/calc.pdl", report.DefaultMaxPerRule)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("calc does not compile: %+v", res.Findings)
	}
	e := newEngine(t, res.Server, t.TempDir())
	c := callerOf("", "s")
	prog := json.RawMessage(`{"steps": [{"id": "a", "call": "math.add", "with": {"x": "1"}}], "output": "input.price"}`)

	v, err := e.Validate(bg, c, "calc/v1", pilotage.ValidateRequest{Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	if v.Valid || len(v.Diagnostics) != 1 {
		t.Fatalf("want one diagnostic, got valid=%t %+v", v.Valid, v.Diagnostics)
	}
	d := v.Diagnostics[0]
	if d.Code != pilotage.CodeSyntax || d.Path.Pointer != "/steps" || !strings.Contains(d.Message, "this Language has no steps") ||
		!strings.HasPrefix(d.Hint, "remove the steps") {
		t.Errorf("got %+v", d)
	}

	r, err := e.Execute(bg, c, "calc/v1", pilotage.ExecuteRequest{Program: prog, Input: json.RawMessage(`{"price": 1.0}`), Store: boolp(false)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome.Status != pilotage.StatusValidationError || len(r.Diagnostics) != 1 || r.Diagnostics[0].Path.Pointer != "/steps" {
		t.Errorf("execute: want a validation_error Run with the steps diagnostic, got %+v", r)
	}
}
