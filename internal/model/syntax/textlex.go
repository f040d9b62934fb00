package syntax

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/textpos"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// The token types of the text surface. Keywords and the label and
// argument punctuation are the words the Language's syntax block names;
// the lexer gives them their own types, so one participle grammar serves
// every Language.
const (
	kName lexer.TokenType = iota + 1
	kString
	kNumber
	kOp
	kSep
	kComment
	kSpace
	kIf
	kElse
	kFor
	kIn
	kRun
	kOutput
	kAssign
	kBind
)

// lexDef is the lexer.Definition the parser is built with: it declares
// the symbols; tokens come from lex, which knows the Language's words.
type lexDef struct{}

// Symbols names the token types for the grammar's struct tags.
func (lexDef) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Name": kName, "String": kString, "Number": kNumber, "Op": kOp, "Sep": kSep,
		"Comment": kComment, "Space": kSpace, "If": kIf, "Else": kElse, "For": kFor, "In": kIn,
		"Run": kRun, "Output": kOutput, "Assign": kAssign, "Bind": kBind,
	}
}

func (lexDef) Lex(string, io.Reader) (lexer.Lexer, error) {
	return nil, fmt.Errorf("the text surface is lexed with its Language's words (syntax.lex)")
}

// lexError is text no token starts with, or (limit) brackets nested
// past the bound the scanner was given.
type lexError struct {
	at, end int // byte offsets
	msg     string
	limit   bool
}

func (e *lexError) Error() string { return e.msg }

// twoCharOps are CEL's operators of two characters, lexed before the
// Language's punctuation so "==" is never a label's "=".
var twoCharOps = []string{"==", "!=", "<=", ">=", "&&", "||"}

// scanner splits a text into tokens with positions (columns count code
// points, as every text-range position does), one at a time: it is the
// lexer.Lexer the reader's stream and participle's PeekingLexer (under
// the oracle of reader_test.go) read. It stops at the first character that
// starts no token, and at the first bracket nested deeper than
// maxNesting, so neither the tokens of 10^5 nested braces nor the
// parser's recursion on them is ever built.
type scanner struct {
	s          string
	ts         *language.TextSyntax
	depth, max int
	pos        lexer.Position
	// cr is the offset of the text's first lone CR (textpos.LoneCR),
	// where the scanner stops: -1 for none.
	cr int
}

func newScanner(text string, ts *language.TextSyntax, maxNesting int) *scanner {
	return &scanner{s: text, ts: ts, max: maxNesting, pos: lexer.Position{Line: 1, Column: 1}, cr: textpos.LoneCR(text)}
}

// rescan is a scanner of text from offset start, text having been read
// whole without an error: it holds no lone CR (the read stops at one),
// so it is not looked for again. Placing each of a thousand diagnostics
// scanned all of a 2 MB text for one: 2 GB read, 5 s.
func rescan(text string, ts *language.TextSyntax, start int) *scanner {
	sc := &scanner{s: text, ts: ts, max: len(text), pos: lexer.Position{Line: 1, Column: 1}, cr: -1}
	sc.pos.Offset = start
	return sc
}

// loneCRError refuses a text at its first lone CR, as PDL refuses one:
// the scanner ends lines at LF alone, so a comment before a lone CR ran
// on over the statements after it, which were silently not read.
func (sc *scanner) loneCRError() error {
	return &lexError{at: sc.cr, end: sc.cr + 1, msg: "a carriage return not followed by a line feed: a program ends a line with LF or CRLF; save the file with LF or CRLF line ends (mac2unix converts a file of CR alone)"}
}

// lex is every token of src, for the completion spots of textspot.go.
func lex(src []byte, ts *language.TextSyntax, maxNesting int) ([]lexer.Token, error) {
	sc := newScanner(string(src), ts, maxNesting)
	var out []lexer.Token
	for {
		t, err := sc.Next()
		if err != nil {
			return out, err
		}
		out = append(out, t)
		if t.EOF() {
			return out, nil
		}
	}
}

// Next is the next token; white space separates tokens and is no token
// (positions come from offsets). The error is a *lexError.
func (sc *scanner) Next() (lexer.Token, error) {
	s, pos := sc.s, &sc.pos
	for pos.Offset < len(s) && (s[pos.Offset] == ' ' || s[pos.Offset] == '\t' || s[pos.Offset] == '\r') {
		if pos.Offset == sc.cr {
			return lexer.Token{}, sc.loneCRError()
		}
		pos.Offset++
		pos.Column++
	}
	i := pos.Offset
	if i == len(s) {
		return lexer.EOFToken(*pos), nil
	}
	emit := func(typ lexer.TokenType, n int) (lexer.Token, error) {
		if i <= sc.cr && sc.cr < i+n {
			return lexer.Token{}, sc.loneCRError()
		}
		v := s[i : i+n]
		t := lexer.Token{Type: typ, Value: v, Pos: *pos}
		pos.Advance(v)
		return t, nil
	}
	c := s[i]
	switch {
	case c == '\n' || c == ';':
		return emit(kSep, 1)
	case c == '#':
		n := strings.IndexByte(s[i:], '\n')
		if n < 0 {
			n = len(s) - i
		}
		return emit(kComment, n)
	case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
		return emit(kNumber, numberLen(s[i:]))
	case stringStart(s[i:]) >= 0:
		n, ok := stringLen(s[i:])
		if q := tripleQuote(s[i:]); !ok && q != "" {
			// It may span lines: what is missing is its end anywhere
			// after it, placed at its opening.
			open := stringStart(s[i:]) + 3
			return lexer.Token{}, &lexError{at: i, end: i + open, msg: fmt.Sprintf("the string opened with %s is never closed: no %s follows it before the end of the program", q, q)}
		}
		if !ok {
			return lexer.Token{}, &lexError{at: i, end: i + 1, msg: "the string is not closed before the end of its line"}
		}
		return emit(kString, n)
	case isNameStart(c):
		n := nameLen(s[i:])
		return emit(keyword(s[i:i+n], sc.ts), n)
	}
	typ, n := punct(s[i:], sc.ts)
	if n == 0 {
		r, w := utf8.DecodeRuneInString(s[i:])
		if i == 0 && r == '\ufeff' {
			// An editor shows no mark, so "unexpected character" at 1:1
			// would name nothing the author sees.
			return lexer.Token{}, &lexError{at: i, end: i + w, msg: "the file starts with a UTF-8 byte order mark (EF BB BF), which a program does not carry: save it as UTF-8 without BOM"}
		}
		return lexer.Token{}, &lexError{at: i, end: i + w, msg: fmt.Sprintf("unexpected character %s", describeRune(r, w))}
	}
	if typ == kOp && n == 1 {
		switch c {
		case '(', '[', '{':
			if sc.depth++; sc.depth > sc.max {
				return lexer.Token{}, &lexError{at: i, end: i + 1, limit: true,
					msg: fmt.Sprintf("the program nests brackets deeper than this Language's limit allows (%d) at line %d, column %d", sc.max, pos.Line, pos.Column)}
			}
		case ')', ']', '}':
			sc.depth--
		}
	}
	return emit(typ, n)
}

// keyword is the type of a name: one of the Language's keywords, or a
// name. (Were two keywords the same word, the later in this order wins.)
func keyword(w string, ts *language.TextSyntax) lexer.TokenType {
	switch w {
	case ts.Output:
		return kOutput
	case ts.Run:
		return kRun
	case ts.In:
		return kIn
	case ts.For:
		return kFor
	case ts.Else:
		return kElse
	case ts.If:
		return kIf
	}
	return kName
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameChar(c byte) bool  { return isNameStart(c) || isDigit(c) }

// nameLen is the length of the name at the start of s: an identifier, and
// the `.`, `-` and `@` that join the parts of a catalog id or program
// reference ("sensors.read", "prog.nightly@1") when a name character
// follows them.
func nameLen(s string) int {
	n := 1
	for n < len(s) {
		switch {
		case isNameChar(s[n]):
			n++
		case (s[n] == '.' || s[n] == '-' || s[n] == '@') && n+1 < len(s) && isNameChar(s[n+1]):
			n += 2
		default:
			return n
		}
	}
	return n
}

// numberLen is the length of the CEL number at the start of s: digits,
// a fraction, an exponent, a hex form and a u suffix.
func numberLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		switch {
		case isNameChar(c) || c == '.':
			n++
		case (c == '+' || c == '-') && n > 0 && (s[n-1] == 'e' || s[n-1] == 'E') && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X"):
			n++
		default:
			return n
		}
	}
	return n
}

// stringStart is the length of a CEL string's prefix (r, b, rb…) when a
// string starts s, -1 otherwise.
func stringStart(s string) int {
	for n := 0; n <= 2 && n < len(s); n++ {
		switch s[n] {
		case '"', '\'':
			return n
		case 'r', 'R', 'b', 'B':
			continue
		}
		return -1
	}
	return -1
}

// tripleQuote is the triple quote a string at the start of s opens with
// (after its prefix), "" when it is quoted once.
func tripleQuote(s string) string {
	p := stringStart(s)
	if q := s[p : p+1]; strings.HasPrefix(s[p:], q+q+q) {
		return q + q + q
	}
	return ""
}

// stringLen is the length of the CEL string literal at the start of s,
// prefix included; ok is false when it is not closed (a single-quoted
// string before the end of its line, a triple-quoted one before the end
// of the text).
func stringLen(s string) (n int, ok bool) {
	p := stringStart(s)
	raw := strings.ContainsAny(s[:p], "rR")
	q := s[p : p+1]
	if tripleQuote(s) != "" {
		end := strings.Index(s[p+3:], q+q+q)
		if end < 0 {
			return 0, false
		}
		return p + 3 + end + 3, true
	}
	for i := p + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if !raw {
				i++
			}
		case '\n':
			return 0, false
		case q[0]:
			return i + 1, true
		}
	}
	return 0, false
}

// punct is the operator or punctuation token at the start of s: CEL's
// two-character operators first, then the Language's label and argument
// punctuation, then one character.
func punct(s string, ts *language.TextSyntax) (lexer.TokenType, int) {
	for _, op := range twoCharOps {
		if strings.HasPrefix(s, op) {
			return kOp, len(op)
		}
	}
	if strings.HasPrefix(s, ts.Assign) {
		return kAssign, len(ts.Assign)
	}
	if strings.HasPrefix(s, ts.Bind) {
		return kBind, len(ts.Bind)
	}
	if strings.IndexByte("+-*/%!<>=?:.,()[]{}", s[0]) >= 0 {
		return kOp, 1
	}
	return 0, 0
}

// describeRune names a character for a message: printable ones quoted,
// the others by code point, a byte that is not UTF-8 as such.
func describeRune(r rune, width int) string {
	switch {
	case r == utf8.RuneError && width == 1:
		return "(a byte that is not UTF-8)"
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("U+%04X (a control character)", r)
	}
	return fmt.Sprintf("%q (U+%04X)", r, r)
}
