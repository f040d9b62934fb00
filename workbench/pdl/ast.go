// Package pdl parses and formats PDL, the Pilotage Definition Language: one
// file of generic statements (a keyword, arguments, an optional block)
// whose meaning lives in workbench/compile, kept with its comments so the
// formatter can print them back.
package pdl

import (
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// File is a parsed PDL file. Participle drives the parse from here; the
// nodes below parse themselves (participle's Parseable) by the grammar
//
//	Node  = EOL | Comment EOL? | Stmt
//	Stmt  = Ident Arg* Block? Comment? Semi? EOL?
//	Block = "{" Comment? EOL? Node* "}"
//
// which TestNodesMatchGrammar checks against the same grammar written as
// participle struct tags. Written out, a node costs a few allocations;
// matched reflectively it cost a branch context and a deferred field set
// per alternative tried, which made participle's matching three quarters
// of a large file's build.
type File struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Body   []*Node `parser:"@@*"`
}

// Node is one line-level item of a body: a statement, a comment on its own
// line, or a blank line (kept so the formatter can keep paragraphs).
type Node struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Blank   bool
	Comment string
	Stmt    *Stmt
}

// Parse reads one node; it reports NextMatch when no node starts here
// (the end of a block or file, or a token no statement starts with).
func (n *Node) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	*n = Node{Pos: t.Pos}
	switch t.Type {
	case tokEOL:
		lex.Next()
		n.Blank = true
	case tokComment:
		lex.Next()
		n.Comment = t.Value
		accept(lex, tokEOL)
	case tokIdent:
		n.Stmt = &Stmt{}
		if err := n.Stmt.parse(lex); err != nil {
			return err
		}
	default:
		return participle.NextMatch
	}
	n.EndPos = lex.Peek().Pos
	return nil
}

// Stmt is `keyword arg… [{ body }] [# comment]`, ended by a newline, a
// semicolon or the closing brace of the enclosing block.
type Stmt struct {
	Pos     lexer.Position
	EndPos  lexer.Position
	Keyword string
	Args    []*Arg
	Block   *Block
	Comment string
}

// parse reads a statement; the next token is its keyword.
func (s *Stmt) parse(lex *lexer.PeekingLexer) error {
	kw := lex.Next()
	s.Pos, s.Keyword = kw.Pos, kw.Value
	var err error
	if s.Args, err = many[Arg](lex); err != nil {
		return err
	}
	if t := lex.Peek(); t.Type == tokPunct && t.Value == "{" {
		s.Block = &Block{}
		if err := s.Block.parse(lex); err != nil {
			return err
		}
	}
	if t := lex.Peek(); t.Type == tokComment {
		s.Comment = t.Value
		lex.Next()
	}
	accept(lex, tokSemi)
	accept(lex, tokEOL)
	s.EndPos = lex.Peek().Pos
	return nil
}

// Block is a braced body.
type Block struct {
	Pos lexer.Position
	// OpenComment is a comment on the line of the opening brace.
	OpenComment string
	Body        []*Node
	EndPos      lexer.Position
	End         string
}

// parse reads a block; the next token is its "{".
func (b *Block) parse(lex *lexer.PeekingLexer) error {
	b.Pos = lex.Next().Pos
	if t := lex.Peek(); t.Type == tokComment {
		b.OpenComment = t.Value
		lex.Next()
	}
	accept(lex, tokEOL)
	var err error
	if b.Body, err = many[Node](lex); err != nil {
		return err
	}
	t := lex.Peek()
	if t.Type != tokPunct || t.Value != "}" {
		return &participle.UnexpectedTokenError{Unexpected: *t, Expect: `"}"`}
	}
	lex.Next()
	b.End = t.Value
	b.EndPos = lex.Peek().Pos
	return nil
}

// many parses Ts until one reports NextMatch.
func many[T any, P interface {
	*T
	Parse(*lexer.PeekingLexer) error
}](lex *lexer.PeekingLexer) ([]P, error) {
	var out []P
	for {
		x := P(new(T))
		err := x.Parse(lex)
		if err == participle.NextMatch {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, x)
	}
}

// accept consumes the next token when it has type typ.
func accept(lex *lexer.PeekingLexer, typ lexer.TokenType) {
	if lex.Peek().Type == typ {
		lex.Next()
	}
}

// Arg is a positional value or a `key=value` option.
type Arg struct {
	Pos    lexer.Position
	EndPos lexer.Position
	// Key is the option name without its "=", empty for a positional.
	Key   string
	Value *Value
}

// Parse reads `[key=]literal`; it reports NextMatch when no argument
// starts here, and an error when a key has no value.
func (a *Arg) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	key := ""
	if t.Type == tokKey {
		key = strings.TrimSuffix(t.Value, "=")
		lex.Next()
		if v := lex.Peek(); !isLiteral(v.Type) {
			return &participle.UnexpectedTokenError{Unexpected: *v, Expect: "a value"}
		}
	} else if !isLiteral(t.Type) {
		return participle.NextMatch
	}
	start := t.Pos
	v := lex.Next()
	end := v.Pos
	end.Advance(v.Value)
	*a = Arg{Pos: start, EndPos: end, Key: key, Value: &Value{Pos: v.Pos, EndPos: end, Token: v.Value}}
	return nil
}

func isLiteral(t lexer.TokenType) bool {
	return t == tokIdent || t == tokNumber || t == tokString || t == tokRaw || t == tokText
}

// Value is one literal, kept as written so the formatter can reprint it.
// The kind follows from the literal's first character, which the lexer
// guarantees.
type Value struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Token  string
}

// Kind names what sort of literal a value is.
type Kind int

// The value kinds.
const (
	KindIdent  Kind = iota // bare word: json-pointer, readOnly, P7D
	KindNumber             // 10000, 5s, 64MiB
	KindString             // "double-quoted", Go escapes
	KindRaw                // `back-quoted`, no escapes, may span lines
	KindText               // """triple-quoted""", multi-line, indentation stripped
)

func (k Kind) String() string {
	return [...]string{"word", "number", "string", "raw string", "text block"}[k]
}

// Kind reports the value's kind.
func (v *Value) Kind() Kind {
	switch {
	case strings.HasPrefix(v.Token, `"""`):
		return KindText
	case strings.HasPrefix(v.Token, `"`):
		return KindString
	case strings.HasPrefix(v.Token, "`"):
		return KindRaw
	case v.Token != "" && isDigit(v.Token[0]):
		return KindNumber
	}
	return KindIdent
}

// Literal returns the value as written in the source.
func (v *Value) Literal() string { return v.Token }

// Str returns the value's content: a word or number as written, a string
// unquoted, a raw string without its back-quotes, a text block dedented.
func (v *Value) Str() string {
	switch v.Kind() {
	case KindString:
		s, err := strconv.Unquote(v.Token)
		if err != nil {
			// The lexer only admits strings that unquote; this keeps
			// hand-built trees safe.
			return strings.Trim(v.Token, `"`)
		}
		return s
	case KindRaw:
		return v.Token[1 : len(v.Token)-1]
	case KindText:
		return Dedent(v.Token[3 : len(v.Token)-3])
	}
	return v.Literal()
}

// Dedent is the text-block rule: drop the first line when it is empty
// (the text after the opening quotes), drop the last line when it holds
// only spaces (the closing quotes' indentation), and remove the longest
// whitespace prefix shared by the non-blank lines. The result ends with a
// newline unless it is empty.
func Dedent(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > 1 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "" {
		lines = lines[:n-1]
	}
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(strings.TrimRight(l[len(prefix):], " \t"))
		b.WriteString("\n")
	}
	return b.String()
}

// Option returns the value of option key and whether it is present.
func (s *Stmt) Option(key string) (*Arg, bool) {
	for _, a := range s.Args {
		if a.Key == key {
			return a, true
		}
	}
	return nil, false
}

// Positional returns the arguments without a key, in order.
func (s *Stmt) Positional() []*Arg {
	var out []*Arg
	for _, a := range s.Args {
		if a.Key == "" {
			out = append(out, a)
		}
	}
	return out
}

// Stmts returns the statements of a body, skipping comments and blanks.
func Stmts(body []*Node) []*Stmt {
	var out []*Stmt
	for _, n := range body {
		if n.Stmt != nil {
			out = append(out, n.Stmt)
		}
	}
	return out
}

// Children returns the statements of s's block, or nil without one.
func (s *Stmt) Children() []*Stmt {
	if s.Block == nil {
		return nil
	}
	return Stmts(s.Block.Body)
}
