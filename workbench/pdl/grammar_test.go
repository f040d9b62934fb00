package pdl

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The PDL grammar as participle struct tags: the reference the parser
// of grammar.go must agree with. participle reads the same scanner's
// tokens through refLexer, buffering them all as it does.
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
	Args    []*refArg `parser:"@@*"`
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

type refArg struct {
	Pos   lexer.Position
	Key   string    `parser:"@Key?"`
	Value *refValue `parser:"@@"`
}

type refValue struct {
	Pos   lexer.Position
	Token string `parser:"@(Ident | Bare | Number | String | Raw | Text)"`
}

// refLexer is the scanner as a participle lexer.
type refLexer struct{}

func (refLexer) Symbols() map[string]lexer.TokenType {
	m := map[string]lexer.TokenType{"EOF": lexer.EOF}
	for typ := tokComment; typ <= tokBare; typ++ {
		m[refSymbols[typ]] = lexer.TokenType(typ)
	}
	return m
}

var refSymbols = [...]string{tokComment: "Comment", tokText: "Text", tokString: "String", tokRaw: "Raw", tokNumber: "Number",
	tokKey: "Key", tokIdent: "Ident", tokPunct: "Punct", tokSemi: "Semi", tokEOL: "EOL", tokOpenText: "OpenText",
	tokOpenString: "OpenString", tokOpenRaw: "OpenRaw", tokInvalid: "Invalid", tokBare: "Bare"}

func (refLexer) Lex(name string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	return &refTokens{name: name, sc: newScanner(string(b))}, err
}

type refTokens struct {
	name string
	sc   *scanner
}

func (l *refTokens) Next() (lexer.Token, error) {
	t := l.sc.next()
	typ := lexer.TokenType(t.typ)
	if t.typ == tokEOF {
		typ = lexer.EOF
	}
	return lexer.Token{Type: typ, Value: t.val, Pos: t.pos.In(l.name)}, nil
}

var refParser = participle.MustBuild[refFile](participle.Lexer(refLexer{}))

// fromRef is the tree the parser must build for the reference's: the
// same, in compact positions, with a comment or blank line a node of its
// own type and each run of blank lines one node.
func fromRef(name string, r *refFile) *File {
	at := func(p lexer.Position) Pos {
		return Pos{Offset: int32(p.Offset), Line: int32(p.Line), Column: int32(p.Column)}
	}
	var body func([]*refNode) []Node
	body = func(ns []*refNode) []Node {
		var out []Node
		for i, n := range ns {
			switch {
			case n.Blank && i > 0 && ns[i-1].Blank:
			case n.Blank:
				out = append(out, &Blank{Pos: at(n.Pos)})
			case n.Stmt == nil:
				out = append(out, &Comment{Pos: at(n.Pos), Text: n.Comment})
			default:
				s := n.Stmt
				stmt := &Stmt{Pos: at(s.Pos), EndPos: at(s.EndPos), Keyword: s.Keyword, Comment: s.Comment}
				for _, a := range s.Args {
					v := a.Value.Token
					if newScanner(v).next().typ == tokBare {
						// The parser holds an unquoted value quoted.
						v = strconv.Quote(v)
					}
					stmt.Args = append(stmt.Args, &Arg{Pos: at(a.Pos), Key: strings.TrimSuffix(a.Key, "="), Value: Value{Pos: at(a.Value.Pos), Token: v}})
				}
				if b := s.Block; b != nil {
					stmt.Block = &Block{Pos: at(b.Pos), EndPos: at(b.EndPos), OpenComment: b.OpenComment, Body: body(b.Body)}
				}
				out = append(out, stmt)
			}
		}
		return out
	}
	return &File{Name: name, Pos: at(r.Pos), EndPos: at(r.EndPos), Body: body(r.Body)}
}

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
	got, gerr := parseTree(name, src, math.MaxInt, nil)
	ref, werr := refParser.ParseString(name, src)
	if (gerr == nil) != (werr == nil) {
		t.Errorf("%s: error %v, grammar says %v", name, gerr, werr)
		return
	}
	if gerr != nil {
		// The errors must be on the same line, where recovery blanks it.
		// Their columns may differ in one case: an option without a
		// value is reported at the token after its key, where the
		// reference backtracks and reports the key itself as unexpected.
		var w participle.Error
		g, ok := gerr.(*syntaxError)
		if !ok || !asError(werr, &w) || int(g.tok.pos.Line) != w.Position().Line {
			t.Errorf("%s: error %v, grammar says %v", name, gerr, werr)
		}
		return
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(fromRef(name, ref))
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
