package engine

import (
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// shopServer is homeServer with two entries whose schemas type numbers:
// shop.quote computes with its input, shop.fixed returns integral JSON
// numbers that its output_schema calls number and integer.
func shopServer() *language.Server {
	srv := homeServer()
	srv.Catalog = append(srv.Catalog,
		mkEntry("shop.quote", "sensor", "safe",
			`{"type":"object","required":["price","qty"],"properties":{"price":{"type":"number"},"qty":{"type":"integer"}}}`,
			`{"type":"object","properties":{"total":{"type":"number"},"n":{"type":"integer"}}}`,
			language.Behavior{ReturnsExpr: `{"total": input.price * 1.2, "n": input.qty + 1}`}),
		mkEntry("shop.fixed", "sensor", "safe", "",
			`{"type":"object","properties":{"total":{"type":"number"},"n":{"type":"integer"}}}`,
			language.Behavior{Returns: raw(`{"total": 10, "n": 2}`)}))
	return srv
}

// A schema's number is a CEL double and its integer an int, whatever the
// JSON text looks like (internal/model/language ScopeRulesText): an int literal
// may be passed as a number, 10 * 1.2 works in the entry's behaviour and
// on its output, and an integer stays an int.
func TestSchemaNumbersAreDoubles(t *testing.T) {
	e := newEngine(t, shopServer(), "")
	prog := raw(`{"steps": [
		{"id": "q", "call": "shop.quote", "with": {"price": "10", "qty": "3"}},
		{"id": "f", "call": "shop.fixed"}],
	 "output": "[steps.q.output.total, steps.q.output.n, steps.f.output.total * 1.5, steps.f.output.n + 1]"}`)
	resp, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: prog, Store: boolp(false)})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Outcome.OK || string(resp.Output) != `[12,4,15,3]` {
		t.Fatalf("outcome %+v, output %s", resp.Outcome, resp.Output)
	}
	if got := string(resp.Trace.Steps[0].Input); got != `{"price":10,"qty":3}` {
		t.Errorf("the arguments are held as written: %s", got)
	}
}

// Mixing an integer field with a double is a type diagnostic (§6.4) whose
// hint says how to convert.
func TestMixedNumbersHaveAHint(t *testing.T) {
	e := newEngine(t, shopServer(), "")
	resp, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(
		`{"steps": [{"id": "f", "call": "shop.fixed"}], "output": "steps.f.output.n * 1.5"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Valid || len(resp.Diagnostics) != 1 {
		t.Fatalf("want one diagnostic, got %+v", resp.Diagnostics)
	}
	d := resp.Diagnostics[0]
	if d.Code != "type" || !strings.Contains(d.Message, "(int, double)") || !strings.Contains(d.Hint, "double(x)") {
		t.Errorf("diagnostic %+v", d)
	}
}
