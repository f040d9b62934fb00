package testcase

import (
	"os"
	"path/filepath"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
)

// TestQuotedCause: an inline program's first error at a string YAML
// took the quotes of is the case's one failure, at that string, when
// the error is CEL reading text (a bare word, prose that does not
// parse), with YAML's hint, or a string where no expression goes, with
// the engine's alone; any other error there, or one of a case that
// expects the program invalid, is not.
func TestQuotedCause(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A diagnostic of CEL's, as the engine words them ("CEL: …").
	diag := func(code, ptr, hint string) *pilotage.ValidateResponse {
		return &pilotage.ValidateResponse{Diagnostics: []pilotage.Diagnostic{{Code: code, Severity: pilotage.SeverityError, Message: "CEL: m", Path: pilotage.Path{Pointer: ptr}, Hint: hint}}}
	}
	for _, tc := range []struct {
		name, program, expect string
		got                   *pilotage.ValidateResponse
		want                  string // the program failure's hint, "" for none
		line, col, end        int
	}{
		{"bare word", `{steps: [{id: a, call: x, with: {item: 'milk'}}]}`, "{output: milk}", diag("constraint", "/steps/0/with/item", expr.TextHint("milk")),
			`expressions are CEL: the text milk is written 'milk'; YAML's quotes are not CEL's: YAML reads the value as milk, which CEL reads as an expression; write item: "'milk'"`, 3, 53, 59},
		{"prose, double-quoted, states nothing", `{steps: [{id: a, call: x, with: {item: "milk and eggs"}}]}`, "", diag("syntax", "/steps/0/with/item", ""),
			`YAML's quotes are not CEL's: YAML reads the value as milk and eggs, which CEL reads as an expression; write item: "'milk and eggs'"`, 3, 53, 68},
		{"an expression's syntax error", `{steps: [], output: 'input.x =='}`, "{output: 1}", diag("syntax", "/output", ""), "", 0, 0, 0},
		{"another error at a quoted string", `{steps: [{id: a, call: 'todo.lst', with: {}}]}`, "{output: 1}", diag("unknown_name", "/steps/0/call", ""), "", 0, 0, 0},
		{"a quoted string of the wrong shape", `{steps: "notalist"}`, "{output: 1}", &pilotage.ValidateResponse{Diagnostics: []pilotage.Diagnostic{{Code: "syntax", Severity: pilotage.SeverityError,
			Message: "a step sequence must be an array, not a string", Path: pilotage.Path{Pointer: "/steps"}, Hint: "write the steps as a JSON array"}}},
			"write the steps as a JSON array", 3, 22, 32},
		{"a plain string", `{steps: [{id: a, call: x, with: {item: milk}}]}`, "{output: 1}", diag("constraint", "/steps/0/with/item", expr.TextHint("milk")), "", 0, 0, 0},
		{"expects it invalid", `{steps: [{id: a, call: x, with: {item: 'milk'}}]}`, "{valid: false}", diag("constraint", "/steps/0/with/item", expr.TextHint("milk")), "", 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "cases:\n  - name: a\n    program: " + tc.program + "\n"
			if tc.expect != "" {
				src += "    expect: " + tc.expect + "\n"
			}
			f, err := Parse(filepath.Join(dir, "tests", "case.yaml"), []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			var program *Failure
			for _, x := range Check(f.Cases[0], &Got{Validate: tc.got}) {
				if x.Key == "program" {
					program = &x
				}
			}
			switch {
			case tc.want == "" && program != nil:
				t.Errorf("a program failure: %+v", program)
			case tc.want == "":
			case program == nil:
				t.Errorf("no program failure")
			case program.Diff != tc.want || program.Line != tc.line || program.Col != tc.col || program.End != tc.end:
				t.Errorf("got %d:%d-%d %q\nwant %d:%d-%d %q", program.Line, program.Col, program.End, program.Diff, tc.line, tc.col, tc.end, tc.want)
			}
		})
	}
}

// TestYAMLText: the text to write is in CEL's quotes inside YAML's,
// whichever quote the text holds.
func TestYAMLText(t *testing.T) {
	for v, want := range map[string]string{
		"milk":          `write item: "'milk'"`,
		"it's":          `write item: '"it''s"'`,
		`say "hi"`:      "write the text in CEL's quotes inside YAML's",
		`it's "quoted"`: "write the text in CEL's quotes inside YAML's",
		`back\slash`:    "write the text in CEL's quotes inside YAML's",
	} {
		if got := yamlText(Quoted{Key: "item", Value: v}); got != want {
			t.Errorf("%s: got %s, want %s", v, got, want)
		}
	}
}
