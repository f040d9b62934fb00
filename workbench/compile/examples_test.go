package compile

import (
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// A guide body built to make Markdown inline parsing quadratic (half a
// megabyte of unclosed links) compiles quickly, and the example program
// after it is still checked: the plain goldmark parse took 22 s on
// 200 KB of it.
func TestHostileGuideBodyIsCheap(t *testing.T) {
	src := []byte("language \"a/v1\" {\n  capabilities {\n    guides\n    validate\n  }\n  guide core \"G\" level=core file=\"g.md\"\n}\n")
	body := "# G\n\n" + strings.Repeat("[a](", 125_000) + "\n\n```json\n{\"steps\": [{\"id\": \"x\", \"call\": \"nowhere\"}]}\n```\n"
	res := compileWithGuide(t, src, body)
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

// Finding a guide's examples costs linear time in their number: each
// example's line was counted from the start of the body, a second for
// 24,000 examples. guidemd parses at most some 1,300 examples, where
// that counting took tens of milliseconds, lost in the load of a shared
// machine; so trees of 500 and 2,000 examples, each after a line of
// 1,000 bytes, are parsed here without its bounds (larger trees outgrow
// the processor's caches, and walking them is then slower a node). 4x
// the examples may take at most 8x the time; counting from the start
// took 31x.
func TestExamplesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times finding 2,000 examples")
	}
	syn := syntax.For(&language.Language{})
	type size struct {
		n    int
		src  []byte
		doc  ast.Node
		best time.Duration
	}
	small, large := &size{n: 500}, &size{n: 2000}
	for _, sz := range []*size{small, large} {
		sz.src = []byte(strings.Repeat(strings.Repeat("a", 1000)+"\n\n```json\n{\"steps\": [], \"output\": \"1\"}\n```\n", sz.n))
		sz.doc = goldmark.New().Parser().Parse(gmtext.NewReader(sz.src))
	}
	// The sizes are read in turn, seven times each, each after a
	// collection, and each keeps its fastest: a burst of load then slows
	// both sizes' worst runs, not one size's only run.
	for range 7 {
		for _, sz := range []*size{small, large} {
			runtime.GC()
			start := time.Now()
			exs := programs(sz.doc, sz.src, syn)
			took := time.Since(start)
			if len(exs) != sz.n || exs[sz.n-1].line != 5*sz.n-1 {
				t.Fatalf("want %d examples, the last at line %d: %d", sz.n, 5*sz.n-1, len(exs))
			}
			if sz.best == 0 || took < sz.best {
				sz.best = took
			}
		}
	}
	t.Logf("500 examples %v, 2,000 %v (%.1fx)", small.best, large.best, float64(large.best)/float64(small.best))
	if large.best > 8*small.best {
		t.Errorf("4x the examples took %.1fx the time (%v then %v)", float64(large.best)/float64(small.best), small.best, large.best)
	}
}

// A guide word of half a megabyte of ids joined by hyphens, slashes and
// colons, each part starting as an entry id does, costs linear time to
// search for the entries it names (appendNamed tries four joins a
// start): every start trying every end was quadratic.
func TestHostileJoinedWordIsCheap(t *testing.T) {
	src := []byte(`language "a/v1" {
  capabilities {
    guides
    catalog
    validate
  }
  kind op callable "An operation."
  guide core "G" level=core file="g.md"
}
entry "a.b-c.d" kind=op risk=safe {
  returns ` + "`{}`" + `
}
entry "x.y" kind=op risk=safe {
  returns ` + "`{}`" + `
}
risk safe readOnly "Reads."
principal owner token="t1" {
  sees "*"
}
principal guest token="t2" {
  sees "x.*"
}
`)
	body := "# G\n\n" + strings.Repeat("a.b-c:d/", 1<<16) + "a.b-c.d\n"
	res := compileWithGuide(t, src, body)
	var named []string
	for _, f := range res.Findings {
		named = append(named, f.Rule+": "+f.Message)
	}
	if len(named) != 1 || !strings.Contains(named[0], "pdl-guide-name: guide core of a/v1 names a.b-c.d, which principal guest may not see") {
		t.Errorf("want a.b-c.d at the word's end reported once, got %q", named)
	}
}

// compileWithGuide compiles src, whose guide file g.md holds body, and
// fails past 20 s, generous for a loaded CI machine.
func compileWithGuide(t *testing.T, src []byte, body string) *Result {
	t.Helper()
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
	return res
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
