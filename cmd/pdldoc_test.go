package cmd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestPDLFirstFile runs the minimal file and program docs/pdl.md opens
// with (its first pdl and json blocks) as a new user would: the file
// lints clean, the program runs to the output the page promises, and the
// two mistakes the page warns of (a bare step id, an unquoted string)
// get the hints it quotes.
func TestPDLFirstFile(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "pdl.md"))
	if err != nil {
		t.Fatal(err)
	}
	first := func(lang string) string {
		m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(string(doc))
		if m == nil {
			t.Fatalf("docs/pdl.md has no %s block", lang)
		}
		return m[1]
	}
	pdl, prog := first("pdl"), first("json")
	if !strings.Contains(prog, "steps.a.output") || !strings.Contains(prog, `"'milk'"`) {
		t.Fatalf("the first program of docs/pdl.md no longer shows steps.<id>.output and a quoted string:\n%s", prog)
	}
	script := `exec pilotage lint todo.pdl
stdout '^0 errors, 0 warnings'
exec pilotage run --lang todo.pdl add.json
stdout '^output: "milk"$'
! exec pilotage validate --lang todo.pdl bare.json
stdout 'hint: did you mean steps.a.output\?'
stdout 'hint: expressions are CEL: the text milk is written ''milk'''
! exec pilotage validate --lang todo.pdl near.json
stdout 'hint: did you mean steps.add.output.added\?'
! exec pilotage validate --lang todo.pdl unclosed.json
stdout 'error: CEL: Syntax error: a string is never closed: ''milk'
stdout 'hint: end it with the quote it starts with'
stdout '^1 error'
! exec pilotage validate --lang todo.pdl mixed.json
stdout 'CEL: ''\+'' does not apply to \(string, int\)'
stdout 'hint: CEL converts no type implicitly'
-- todo.pdl --
` + pdl + `-- add.json --
` + prog + `-- bare.json --
{"steps": [{"id": "a", "call": "todo.add", "with": {"item": "milk"}}], "output": "a"}
-- near.json --
{"steps": [{"id": "add", "call": "todo.add", "with": {"item": "'milk'"}}], "output": "ad.output.added"}
-- unclosed.json --
{"steps": [{"id": "a", "call": "todo.add", "with": {"item": "'milk"}}], "output": "steps.a.output.added"}
-- mixed.json --
{"steps": [{"id": "a", "call": "todo.add", "with": {"item": "'milk'"}}], "output": "'milk' + 1"}
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "first.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{Dir: dir, Setup: shareGraphvizCache})
}
