package engine

import (
	"encoding/json"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestTextRangePaths: a text-range Language (ctx/v1) receives its program
// as a string and answers with 1-based line:column ranges in that string,
// end just after the last character (§5.5): a name where it is written,
// an expression problem inside the expression, text that is not JSON at
// the character where the parse stopped (an empty range at the end of the
// text when it ends early), and context and input findings as JSON
// Pointers into the context and the input, never ranges.
func TestTextRangePaths(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	type lc = pilotage.LineCol
	cases := []struct {
		name, text, context string
		code                string
		start, end          lc
	}{
		{"unknown name", "{\"steps\": [\n  {\"id\": \"f\", \"call\": \"fan.sett\", \"with\": {\"on\": \"true\"}}\n]}",
			`{"site": "x"}`, pilotage.CodeUnknownName, lc{Line: 2, Column: 23}, lc{Line: 2, Column: 33}},
		{"inside an expression", "{\"steps\": [\n  {\"id\": \"f\", \"call\": \"fan.set\",\n   \"with\": {\"on\": \"true && nope\"}}\n]}",
			`{"site": "x"}`, "", lc{Line: 3, Column: 28}, lc{Line: 3, Column: 32}},
		{"not JSON", "{\"steps\": [\n  {\"id\": \"f\" \"call\": \"fan.set\"}\n]}",
			`{"site": "x"}`, pilotage.CodeSyntax, lc{Line: 2, Column: 14}, lc{Line: 2, Column: 15}},
		{"ends early", "{\"steps\": [",
			`{"site": "x"}`, pilotage.CodeSyntax, lc{Line: 1, Column: 12}, lc{Line: 1, Column: 12}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog, _ := json.Marshal(c.text)
			v, err := e.Validate(bg, alice, "ctx/v1", pilotage.ValidateRequest{Program: prog, Context: raw(c.context)})
			if err != nil {
				t.Fatal(err)
			}
			if v.Valid || len(v.Diagnostics) != 1 {
				t.Fatalf("want one diagnostic, got %+v", v.Diagnostics)
			}
			d := v.Diagnostics[0]
			if c.code != "" && d.Code != c.code {
				t.Errorf("code %s, want %s", d.Code, c.code)
			}
			if d.Path.Text == nil || d.Path.Text.Start != c.start || d.Path.Text.End != c.end || d.Range != nil {
				t.Errorf("path %+v range %+v, want %v-%v and no range (%s)", d.Path.Text, d.Range, c.start, c.end, d.Message)
			}
		})
	}
	prog, _ := json.Marshal(`{"steps": []}`)
	v, err := e.Validate(bg, alice, "ctx/v1", pilotage.ValidateRequest{Program: prog, Context: raw(`{"site": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Diagnostics) != 1 || v.Diagnostics[0].Code != pilotage.CodeContextBinding || v.Diagnostics[0].Path.Text != nil || v.Diagnostics[0].Path.Pointer != "/site" {
		t.Errorf("a context finding must be a JSON Pointer into context (§5.5): %+v", v.Diagnostics)
	}
	r := exec(t, e, "alice", "s1", "ctx/v1", pilotage.ExecuteRequest{Program: prog, Input: raw(`[1]`), Context: raw(`{"site": "x"}`)})
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != pilotage.CodeInputBinding || r.Diagnostics[0].Path.Text != nil {
		t.Errorf("an input finding must be a JSON Pointer into input (§5.5): %+v", r.Diagnostics)
	}
}
