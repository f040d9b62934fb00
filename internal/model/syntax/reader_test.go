package syntax_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// The grammar of docs/pdl.md as participle's struct tags, read by its
// grammar interpreter with a lookahead of 3: the oracle for the reader
// (textgrammar.go), which must accept the same programs and fail at the
// same token expecting the same thing. The type names are the grammar's
// names participle's messages use.
type tProgram struct {
	Items []*tItem `parser:"( @@ | Sep )*"`
}

type tItem struct {
	Label  *tName           `parser:"( @@ Assign )?"`
	Call   *tCall           `parser:"(   @@"`
	Run    *tCall           `parser:"  | Run @@"`
	If     *tIf             `parser:"  | @@"`
	For    *tFor            `parser:"  | @@"`
	Output *syntax.TExprArg `parser:"  | Output @@ )"`
}

type tName struct {
	Name string `parser:"@Name"`
}

type tIf struct {
	Cond   *syntax.TExprOpen `parser:"If @@"`
	Then   *tBlock           `parser:"@@"`
	ElseIf *tIf              `parser:"( Else ( @@"`
	Else   *tBlock           `parser:"       | @@ ) )?"`
}

type tFor struct {
	Item *tName            `parser:"For @@ In"`
	List *syntax.TExprOpen `parser:"@@"`
	Body *tBlock           `parser:"@@"`
}

type tBlock struct {
	Items []*tItem `parser:"\"{\" ( @@ | Sep )* \"}\""`
}

type tCall struct {
	Target *tName        `parser:"@@"`
	Args   *syntax.TArgs `parser:"@@"`
}

var oracle = participle.MustBuild[tProgram](participle.Lexer(syntax.LexDef), participle.UseLookahead(3))

// sameRead fails t when the reader and the oracle disagree on src.
func sameRead(t *testing.T, src []byte, ts *language.TextSyntax) {
	t.Helper()
	pl, err := syntax.Tokens(src, ts)
	if err != nil {
		return // not lexed: the parsers never see it
	}
	_, want := oracle.ParseFromLexer(pl)
	got := syntax.ReadError(src, ts)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%q:\n reader: %v\n oracle: %v", src, got, want)
	}
	var pe participle.Error
	if got != nil && asParticiple(got, &pe) && pe.Position() != posOf(want) {
		t.Errorf("%q: reader fails at %v, oracle at %v", src, pe.Position(), posOf(want))
	}
}

func asParticiple(err error, pe *participle.Error) bool {
	e, ok := err.(participle.Error)
	*pe = e
	return ok
}

func posOf(err error) lexer.Position {
	if e, ok := err.(participle.Error); ok {
		return e.Position()
	}
	return lexer.Position{}
}

// TestReaderMatchesGrammar reads every program of up to three tokens of
// the surface's structure, and each of them after a dozen beginnings
// (inside a block, an else block, an argument list, after a label), with
// the reader and with the oracle. With -short, up to two tokens, and
// those of two after one beginning in three, a different one for each
// program, so that every beginning still meets programs of two: the
// eighty thousand reads of three take seconds.
func TestReaderMatchesGrammar(t *testing.T) {
	depth := 3
	if testing.Short() {
		depth = 2
	}
	read := 0 // programs of depth tokens read so far
	ts := language.DefaultTextSyntax
	atoms := []string{"a.b", "=", "(", ")", "{", "}", ",", "\n", "if", "else", "for", "in", "run", "output", "x", ":", "1", "+"}
	starts := []string{"", "a = ", "if x { ", "for x in y { ", "a.b(x: 1, ", "run ", "output ", "if x { a.b() } else ",
		"if x {} else { ", "if x {} else { a = ", "if x { a.b() } else { c.d()\n ", "for x in y { a = ", "a = b = ", "if x {} else if y "}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		for k, s := range starts {
			if testing.Short() && n == 0 && (k+read)%3 != 0 {
				continue
			}
			sameRead(t, []byte(s+prefix), &ts)
		}
		if n == 0 {
			read++
			return
		}
		for _, a := range atoms {
			gen(prefix+" "+a, n-1)
		}
	}
	gen("", depth)
}

// An alternative given up is unread to where it started, which may be
// further behind than the tokens the reader keeps: nested unclosed
// blocks give up one after another back to the first. After statements
// enough to have dropped earlier tokens, the reader still agrees.
// -short takes one count of statements before in fourteen.
func TestReaderRewindsFar(t *testing.T) {
	ts := language.DefaultTextSyntax
	for pre := range 120 {
		if testing.Short() && pre%14 != 0 {
			continue
		}
		for _, tail := range []string{"if x { ", "if x {} else { ", "if x { a.b(c: d\n"} {
			sameRead(t, []byte(strings.Repeat("a.b()\n", pre)+strings.Repeat(tail, 20)), &ts)
		}
	}
}

// FuzzTextReader: the reader and the oracle agree on any text.
func FuzzTextReader(f *testing.F) {
	for _, s := range golden.Sections(f, "testdata/text/*.txtar", func(name string) bool { return name == "program.txt" }) {
		f.Add(s)
	}
	f.Add([]byte("for x in y { a = a }\nif x {} else { a.b }"))
	ts := language.DefaultTextSyntax
	f.Fuzz(func(t *testing.T, src []byte) {
		if strings.ContainsRune(string(src), 0) {
			return
		}
		sameRead(t, src, &ts)
	})
}
