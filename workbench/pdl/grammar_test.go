package pdl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The PDL grammar as participle struct tags: the reference the
// hand-written Node, Stmt and Block parsers must agree with.
type refFile struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Body   []*refNode `parser:"@@*"`
}

type refNode struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Blank   bool     `parser:"(  @EOL"`
	Comment string   `parser:" | @Comment EOL?"`
	Stmt    *refStmt `parser:" | @@ )"`
}

type refStmt struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Keyword string    `parser:"@Ident"`
	Args    []*Arg    `parser:"@@*"`
	Block   *refBlock `parser:"@@?"`
	Comment string    `parser:"@Comment? Semi? EOL?"`
}

type refBlock struct {
	Pos         lexer.Position
	OpenComment string     `parser:"'{' @Comment? EOL?"`
	Body        []*refNode `parser:"@@*"`
	EndPos      lexer.Position
	End         string `parser:"@'}'"`
}

var refParser = participle.MustBuild[refFile](participle.Lexer(lex))

// TestNodesMatchGrammar parses every PDL file of the repository, valid
// and broken, with both parsers: the trees (positions included), whether
// they fail and on which line must be the same.
func TestNodesMatchGrammar(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.pdl")
	more, _ := filepath.Glob("../../langs/*/*.pdl")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found %d files", len(files))
	}
	extra := map[string]string{
		"stray-brace":  "a {\n  b\n  {\n}\n",
		"key-at-start": "a {\n  k=v\n}\n",
		"semis":        "a { b 1; c 2 } # end\nd;\n\n# x\n",
		"open-comment": "a { # open\n\n  b\n}\n",
		"no-close":     "a {\n  b\n",
		"eq":           "a = b\n",
		"key-no-value": "a {\n  b k=\n}\n",
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		extra[name] = string(src)
	}
	for name, src := range extra {
		compareParsers(t, name, src)
	}
}

// FuzzNodesMatchGrammar: on any input the hand-written node parsers and
// the reference grammar agree, tree for tree and error line for error
// line.
func FuzzNodesMatchGrammar(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.pdl")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("a b=c \"\"\"\n x\n\"\"\" `y` 1.5s { d; e {} } # c\n")
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Count(src, "{") > MaxDepth {
			t.Skip("deeper than Parse admits")
		}
		compareParsers(t, "f.pdl", src)
	})
}

// compareParsers parses src with both parsers and reports any difference.
func compareParsers(t *testing.T, name, src string) {
	t.Helper()
	got, gerr := parser.ParseString(name, src)
	want, werr := refParser.ParseString(name, src)
	if (gerr == nil) != (werr == nil) {
		t.Errorf("%s: error %v, grammar says %v", name, gerr, werr)
		return
	}
	if gerr != nil {
		// The errors must be on the same line, where recovery blanks it.
		// Their columns may differ in one case: an option without a
		// value is reported at the token after its key, where the
		// reference backtracks and reports the key itself as unexpected.
		var g, w participle.Error
		if !asError(gerr, &g) || !asError(werr, &w) || g.Position().Line != w.Position().Line {
			t.Errorf("%s: error %v, grammar says %v", name, gerr, werr)
		}
		return
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("%s: trees differ:\n%s\n%s", name, clipJSON(gj), clipJSON(wj))
	}
}

func asError(err error, out *participle.Error) bool {
	pe, ok := err.(participle.Error)
	*out = pe
	return ok
}

func clipJSON(b []byte) string {
	s := string(b)
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return strings.TrimSpace(s)
}
