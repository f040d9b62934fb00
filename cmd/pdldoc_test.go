package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	dir := t.TempDir()
	for name, src := range map[string]string{
		"todo.pdl":      pdl,
		"add.json":      prog,
		"bare.json":     `{"steps": [{"id": "a", "call": "todo.add", "with": {"item": "milk"}}], "output": "a"}`,
		"near.json":     `{"steps": [{"id": "add", "call": "todo.add", "with": {"item": "'milk'"}}], "output": "ad.output.added"}`,
		"unclosed.json": `{"steps": [{"id": "a", "call": "todo.add", "with": {"item": "'milk"}}], "output": "steps.a.output.added"}`,
		"mixed.json":    `{"steps": [{"id": "a", "call": "todo.add", "with": {"item": "'milk'"}}], "output": "'milk' + 1"}`,
	} {
		if !strings.HasSuffix(src, "\n") {
			src += "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const lang = "todo.pdl"
	// In-process, as FuzzFileArguments runs the command line: the same
	// commands a process would run, without paying for seven of them.
	for _, c := range []struct {
		args []string
		code int
		want []string // regular expressions standard output matches
	}{
		{[]string{"lint", lang}, ExitOK, []string{`^0 errors, 0 warnings`}},
		{[]string{"run", "--lang", lang, "add.json"}, ExitOK, []string{`^output: "milk"$`}},
		{[]string{"validate", "--lang", lang, "bare.json"}, ExitFindings, []string{`hint: did you mean steps.a.output\?`, `hint: expressions are CEL: the text milk is written 'milk'`}},
		{[]string{"validate", "--lang", lang, "near.json"}, ExitFindings, []string{`hint: did you mean steps.add.output.added\?`}},
		{[]string{"validate", "--lang", lang, "unclosed.json"}, ExitFindings, []string{`error: CEL: Syntax error: a string is never closed: 'milk`, `hint: end it with the quote it starts with`, `^1 error`}},
		{[]string{"validate", "--lang", lang, "mixed.json"}, ExitFindings, []string{`CEL: '\+' does not apply to \(string, int\)`, `hint: CEL converts no type implicitly`}},
	} {
		for i, a := range c.args {
			if strings.HasSuffix(a, ".pdl") || strings.HasSuffix(a, ".json") {
				c.args[i] = filepath.Join(dir, a)
			}
		}
		var stdout, stderr bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &stdout, &stderr); code != c.code {
			t.Errorf("pilotage %s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), code, c.code, stdout.String(), stderr.String())
			continue
		}
		for _, want := range c.want {
			if !regexp.MustCompile("(?m)" + want).Match(stdout.Bytes()) {
				t.Errorf("pilotage %s: no line matches %s in:\n%s", strings.Join(c.args, " "), want, stdout.String())
			}
		}
	}
}
