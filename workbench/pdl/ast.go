// Package pdl parses and formats PDL, the Pilotage Definition Language: one
// file of generic statements (a keyword, arguments, an optional block)
// whose meaning lives in workbench/compile, kept with its comments so the
// formatter can print them back.
package pdl

import (
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Pos is a place in a PDL file: the byte offset, and the line and column
// counted from 1 (a column counts characters). It takes 12 bytes where
// participle's lexer.Position, which repeats the file name, took 40, and
// a tree holds about one per token; the file name is File.Name.
type Pos struct{ Offset, Line, Column int32 }

// Advance moves p past s.
func (p *Pos) Advance(s string) {
	p.Offset += int32(len(s))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		p.Line += int32(strings.Count(s, "\n"))
		p.Column = int32(utf8.RuneCountInString(s[i:]))
		return
	}
	p.Column += int32(utf8.RuneCountInString(s))
}

// In is p in the named file, as findings are located.
func (p Pos) In(file string) lexer.Position {
	return lexer.Position{Filename: file, Offset: int(p.Offset), Line: int(p.Line), Column: int(p.Column)}
}

// File is a parsed PDL file: a body of nodes by the grammar
//
//	Node  = EOL+ | Comment EOL? | Stmt
//	Stmt  = Ident Arg* Block? Comment? Semi? EOL?
//	Block = "{" Comment? EOL? Node* "}"
//	Arg   = Key? (Ident | Number | String | Raw | Text)
//
// which the parser in grammar.go reads a token at a time, and
// TestNodesMatchGrammar checks against the same grammar written as
// participle struct tags.
type File struct {
	// Name is the file's name, which every position of the tree is in.
	Name   string
	Pos    Pos
	EndPos Pos
	Body   []Node
	// Unbalanced is set when the file's braces do not balance, which
	// Parse reported: its tree then nests statements as recovery guessed
	// (a { left out leaves its block's statements in the block around
	// it), so what they say is not worth checking.
	Unbalanced bool
	// text and budget are what the tree was read from (as Parse
	// repaired it) and under; streamed is set when Stream read it, and
	// Body is then empty. A File built by hand has none of them.
	text     string
	budget   int
	streamed bool
}

// Statements yields the top-level statements of f in order. Of a File
// Stream read, it reads the text again and yields each statement as it
// is read: the same statements Parse's tree holds (TestStreamGivesTheSameTree),
// of which what the caller does not keep is garbage once it takes the
// next, so a large file's whole tree is never live. A reading costs a
// fraction of what the compiler does with it.
func (f *File) Statements() iter.Seq[*Stmt] {
	return func(yield func(*Stmt) bool) {
		if f.streamed {
			parseTree(f.Name, f.text, f.budget, yield)
			return
		}
		for _, n := range f.Body {
			if s, ok := n.(*Stmt); ok && !yield(s) {
				return
			}
		}
	}
}

// Children yields the statements of s's block in order, s a statement
// of f. Of a block Stream left unread (Block.Unread), it reads the text
// of the block again and yields each statement as it is read, as
// Statements does the file's: what the caller does not keep of one is
// garbage once it takes the next, so a Language block of 25,000 risk
// levels or 15,000 guides is never a whole tree (docs/performance.md,
// "A Language block a statement at a time").
func (f *File) Children(s *Stmt) iter.Seq[*Stmt] {
	return func(yield func(*Stmt) bool) {
		f.children(s, false, yield)
	}
}

// CountChildren is how many statements of s's block have each keyword,
// read without building them when Stream left the block unread: what a
// reader sizes its lists from.
func (f *File) CountChildren(s *Stmt) map[string]int {
	n := map[string]int{}
	f.children(s, true, func(c *Stmt) bool {
		n[c.Keyword]++
		return true
	})
	return n
}

// children reads s's block for Children, dry for CountChildren.
func (f *File) children(s *Stmt, dry bool, yield func(*Stmt) bool) {
	b := s.Block
	switch {
	case b == nil:
	case b.Unread:
		readBlock(f.text, b.Pos, f.budget, dry, yield)
	default:
		for _, n := range b.Body {
			if c, ok := n.(*Stmt); ok && !yield(c) {
				return
			}
		}
	}
}

// StatementsOf is Statements of the top-level statements whose keyword
// is keyword. Of a File Stream read, the others are read again without
// their tree, as Stream checks a file: the compiler, which keeps its
// Language blocks from its first reading, reads the entries a second
// time without building a Language block's tree again beside the one it
// keeps (60,000 guides: 34 MB; docs/performance.md, "Many small guides").
func (f *File) StatementsOf(keyword string) iter.Seq[*Stmt] {
	return func(yield func(*Stmt) bool) {
		if f.streamed {
			read(f.Name, f.text, f.budget, yield, false, keyword)
			return
		}
		for s := range f.Statements() {
			if s.Keyword == keyword && !yield(s) {
				return
			}
		}
	}
}

// Node is one line-level item of a body: a *Stmt, a *Comment alone on
// its line, or a *Blank run of blank lines (kept so the formatter can keep
// paragraphs; one node for the run, since the formatter keeps at most one
// blank line in a row). A body holds the items themselves, so a statement
// costs no wrapper.
type Node interface {
	// At is where the node starts.
	At() Pos
}

// Comment is a comment alone on its line, from its # to the line's end.
type Comment struct {
	Pos  Pos
	Text string
}

// Blank is a run of blank lines.
type Blank struct{ Pos Pos }

func (s *Stmt) At() Pos    { return s.Pos }
func (c *Comment) At() Pos { return c.Pos }
func (b *Blank) At() Pos   { return b.Pos }

// Stmt is `keyword arg… [{ body }] [# comment]`, ended by a newline, a
// semicolon or the closing brace of the enclosing block.
type Stmt struct {
	Pos     Pos
	EndPos  Pos
	Keyword string
	Args    []*Arg
	Block   *Block
	Comment string
}

// Dropped is the keyword of a statement recovery left out for an error
// of its value (an unquoted expression or JSON), which it writes as a
// Placeholder statement whose one argument is that keyword; "" for any
// other statement. The statement was written: a check of its absence
// would report the error again in other words.
func (s *Stmt) Dropped() string {
	if s.Keyword != Placeholder || len(s.Args) != 1 || s.Args[0].Key != "" || s.Args[0].Value.Kind() != KindIdent {
		return ""
	}
	return s.Args[0].Value.Token
}

// Release empties s and every node of its block, for a reader of a tree
// it owns (one Stream read, or its own Parse) done with s and with
// every part of it. The parts of a tree come from slab blocks shared
// along it (grammar.go), so a node kept elsewhere keeps its block, and
// through the pointers of the block's other nodes every node read after
// it: letting go of a statement frees nothing unless its parts point
// nowhere. A released statement has no keyword, arguments or block.
func Release(s *Stmt) {
	if b := s.Block; b != nil {
		for _, n := range b.Body {
			if c, ok := n.(*Stmt); ok {
				Release(c)
			}
		}
		clear(b.Body)
		*b = Block{}
	}
	clear(s.Args)
	*s = Stmt{}
}

// Block is a braced body.
type Block struct {
	Pos Pos
	// EndPos is just after the closing brace.
	EndPos Pos
	// OpenComment is a comment on the line of the opening brace.
	OpenComment string
	Body        []Node
	// Unread is set on the block of a top-level language statement
	// Stream read, whose Body it left empty: File.Children reads its
	// statements. A reader that sets Body clears it.
	Unread bool
}

// Arg is a positional value or a `key=value` option; it starts at its key.
type Arg struct {
	Pos Pos
	// Key is the option name without its "=", empty for a positional.
	Key   string
	Value Value
}

// End is the position just after the argument.
func (a *Arg) End() Pos { return a.Value.End() }

// Value is one literal, kept as written so the formatter can reprint it.
// The kind follows from the literal's first character, which the lexer
// guarantees.
type Value struct {
	Pos   Pos
	Token string
}

// End is the position just after the value.
func (v *Value) End() Pos {
	end := v.Pos
	end.Advance(v.Token)
	return end
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
func Stmts(body []Node) []*Stmt {
	n := 0
	for _, x := range body {
		if _, ok := x.(*Stmt); ok {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	// Sized, not appended: the compiler and the language server take the
	// statements of a file of 100,000 of them several times.
	out := make([]*Stmt, 0, n)
	for _, x := range body {
		if s, ok := x.(*Stmt); ok {
			out = append(out, s)
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
