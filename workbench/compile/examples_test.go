package compile

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// A guide body built to make Markdown inline parsing quadratic (half a
// megabyte of unclosed links) compiles quickly, and the example program
// after it is still checked: the plain goldmark parse took 22 s on
// 200 KB of it. The bound is generous for a loaded CI machine.
func TestHostileGuideBodyIsCheap(t *testing.T) {
	src := []byte("language \"a/v1\" {\n  capabilities {\n    guides\n    validate\n  }\n  guide core \"G\" level=core file=\"g.md\"\n}\n")
	body := "# G\n\n" + strings.Repeat("[a](", 125_000) + "\n\n```json\n{\"steps\": [{\"id\": \"x\", \"call\": \"nowhere\"}]}\n```\n"
	read := func(name string) ([]byte, error) {
		if name == "g.md" {
			return []byte(body), nil
		}
		return nil, fs.ErrNotExist
	}
	start := time.Now()
	res := Source("lang.pdl", src, Options{ReadFile: read})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("compiling took %v", d)
	}
	var examples []string
	for _, f := range res.Findings {
		if f.Rule == pdl.RuleExample {
			examples = append(examples, f.Message)
		}
	}
	if len(examples) != 1 || !strings.Contains(examples[0], `no catalog entry named "nowhere"`) {
		t.Errorf("want the example's unknown name reported, got %q", examples)
	}
}

// TestValuePos: a place in a literal's content maps to the line and
// column (in characters) of the source where it is written, through
// escapes, characters of several bytes and a raw string's lines; a place
// past the content, or in a number, maps to the literal's start.
func TestValuePos(t *testing.T) {
	for _, c := range []struct {
		token     string
		line, col int // in the content, col in characters
		want      string
	}{
		{`word`, 1, 3, "3:12"},
		{`"é fan.set"`, 1, 3, "3:13"},
		{`"\u00e9\t\"x\" fan.set"`, 1, 7, "3:25"},
		{`"\x41 fan.set"`, 1, 3, "3:16"},
		{"`first\n  é fan.set`", 2, 5, "4:5"},
		{"\"\"\"Éé fan.set\"\"\"", 1, 4, "3:16"},
		{"\"\"\"\n    one\n    Éé then fan.set\n    \"\"\"", 2, 9, "5:13"},
		{`"short"`, 1, 9, "3:10"},
		{`"short"`, 2, 1, "3:10"},
		{"`one line`", 3, 1, "3:10"},
		{`5s`, 1, 2, "3:10"},
	} {
		v := &pdl.Value{Pos: pdl.Pos{Line: 3, Column: 10, Offset: 40}, Token: c.token}
		p := valuePos("f.pdl", v, c.line, c.col)
		if got := fmt.Sprintf("%d:%d", p.Line, p.Column); got != c.want || p.Filename != "f.pdl" {
			t.Errorf("%s at %d:%d: got %s:%s, want %s", c.token, c.line, c.col, p.Filename, got, c.want)
		}
	}
}
