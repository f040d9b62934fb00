package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineEnds: a JSON program, an input file and a text program whose
// lines end in a lone CR, or CR LF, are reported at the line and column
// of what is wrong, with that line quoted: CR LF, a lone CR and LF each
// end a line wherever a position is reported (textpos.LineEnd), as YAML
// and LSP count them. Before, a file of lone CRs was all line 1.
func TestLineEnds(t *testing.T) {
	dir := t.TempDir()
	todo := func(template string) string {
		return filepath.Join("..", "workbench", "scaffold", "templates", template, "todo.pdl")
	}
	for _, end := range []struct{ name, s string }{{"CR", "\r"}, {"CRLF", "\r\n"}} {
		lines := func(ls ...string) []byte { return []byte(strings.Join(ls, end.s) + end.s) }
		write := func(name string, src []byte) string {
			path := filepath.Join(dir, end.name+"-"+name)
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}
		prog := write("p.json", lines(`{`, `  "steps": [`, `    {"id": "a", "call": "todo.nope", "with": {}}`, `  ],`, `  "output": "1"`, `}`))
		input := write("in.json", lines(`{`, `  "item": "milk",`, `  "n": 1e999999`, `}`))
		shopping := filepath.Join("..", "workbench", "scaffold", "templates", "json", "programs", "shopping.json")
		text := write("p.txt", lines(`x = todo.list()`, `output x.output.items nope`))
		for _, c := range []lineEndCase{
			{[]string{"validate", "--lang", todo("json"), "--principal", "owner", prog},
				[]string{prog + `:3:25: error: no catalog entry named "todo.nope"`, `   3 |     {"id": "a", "call": "todo.nope", "with": {}}` + "\n     |                         ^^^^^^^^^^^\n"}},
			{[]string{"run", "--lang", todo("json"), "--principal", "owner", "--input", input, shopping},
				[]string{input + `:3:8: error: input: the number 1e999999 is out of the range`, "   3 |   \"n\": 1e999999\n     |        ^"}},
			textWant(end.name, text),
		} {
			var out, errs bytes.Buffer
			run(c.args, nil, &out, &errs)
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("%s %s: output lacks %q:\n%s%s", end.name, c.args[0], w, out.String(), errs.String())
				}
			}
		}
	}
}

type lineEndCase struct {
	args []string
	want []string
}

// textWant is what validate says of a text program of two lines ending
// in end: at the second line's error with CR LF; at the first lone CR,
// which a text program refuses as PDL does, with CR alone.
func textWant(end, text string) lineEndCase {
	args := []string{"validate", "--lang", filepath.Join("..", "workbench", "scaffold", "templates", "text", "todo.pdl"), "--principal", "owner", text}
	if end == "CR" {
		return lineEndCase{args, []string{text + `:1:16: error: a carriage return not followed by a line feed`, "   1 | x = todo.list()\n     |                ^"}}
	}
	return lineEndCase{args, []string{text + `:2:23: error: CEL: Syntax error: unexpected 'nope'; expected the end`, "   2 | output x.output.items nope\n     |                       ^"}}
}
