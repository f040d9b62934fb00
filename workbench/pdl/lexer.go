package pdl

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/textenc"
)

// tokType is a token's type. The Open* types and Invalid are what no
// valid token can be, so lexing never fails: Parse turns those tokens into
// findings with a hint and carries on.
type tokType uint8

const (
	tokEOF        tokType = iota // the end of the text
	tokComment                   // # to the end of the line
	tokText                      // """…""", may span lines
	tokString                    // "…" with Go escapes
	tokRaw                       // `…`, may span lines
	tokNumber                    // 10000, 5s, 64MiB
	tokKey                       // name= (an option's key with its "=")
	tokIdent                     // word: letters, digits, _ and -
	tokPunct                     // { } =
	tokSemi                      // ;
	tokEOL                       // a newline
	tokOpenText                  // """ never closed (to the end of its line)
	tokOpenString                // "… never closed, or with a bad escape
	tokOpenRaw                   // `… never closed (to the end of its line)
	tokInvalid                   // one character no token starts with
	tokBare                      // a word run into . / * @ ( or ): an id, pattern or CEL left unquoted
)

// tokNames name the token types in messages ("unexpected key k=").
var tokNames = [...]string{tokEOF: "eof", tokComment: "comment", tokText: "text block", tokString: "string",
	tokRaw: "raw string", tokNumber: "number", tokKey: "key", tokIdent: "ident", tokPunct: "punct", tokSemi: "semi",
	tokEOL: "eol", tokOpenText: "opentext", tokOpenString: "openstring", tokOpenRaw: "openraw", tokInvalid: "invalid", tokBare: "word"}

func (t tokType) String() string { return tokNames[t] }

// token is one token: its text is a slice of the source, so a token
// costs no copy.
type token struct {
	val string
	pos Pos
	typ tokType
}

// scanner is one pass over a source text, a token at a time: the lexer
// is hand written rather than built from regular expressions, since a
// single pass over the bytes is an order of magnitude faster than trying
// one pattern per rule at every position. It keeps no token it has
// returned, so lexing a file of any size takes constant memory.
type scanner struct {
	src string
	pos Pos
}

func newScanner(src string) *scanner {
	return &scanner{src: src, pos: Pos{Line: 1, Column: 1}}
}

// next returns the next token; whitespace other than newlines is skipped.
func (s *scanner) next() token {
	for {
		rest := s.src[s.pos.Offset:]
		if rest == "" {
			return token{pos: s.pos}
		}
		if s.pos.Offset == 0 && strings.HasPrefix(rest, textenc.UTF8BOM) {
			// A UTF-8 byte order mark is skipped (docs/pdl.md, "The
			// file"). Editors do not show it, so it is no column either:
			// the first character after it is line 1, column 1.
			s.pos.Offset += int32(len(textenc.UTF8BOM))
			continue
		}
		switch c := rest[0]; c {
		case ' ', '\t', '\r', '\f', '\v':
			s.pos.Offset++
			s.pos.Column++
			continue
		case '\n':
			return s.emit(tokEOL, 1)
		case '#':
			return s.emit(tokComment, lineLen(rest))
		case '{', '}', '=':
			return s.emit(tokPunct, 1)
		case ';':
			return s.emit(tokSemi, 1)
		case '`':
			if i := strings.IndexByte(rest[1:], '`'); i >= 0 {
				return s.emit(tokRaw, i+2)
			}
			return s.emit(tokOpenRaw, lineLen(rest))
		case '"':
			if strings.HasPrefix(rest, `"""`) {
				if i := strings.Index(rest[3:], `"""`); i >= 0 {
					return s.emit(tokText, i+6)
				}
				return s.emit(tokOpenText, lineLen(rest))
			}
			n := stringLen(rest)
			if _, err := strconv.Unquote(rest[:n]); err == nil {
				return s.emit(tokString, n)
			}
			return s.emit(tokOpenString, n)
		}
		c := rest[0]
		switch {
		case isDigit(c):
			return s.emit(tokNumber, numberLen(rest))
		case isLetter(c) || c == '_' || c == '*':
			n := 0
			for n < len(rest) && isWordByte(rest[n], n) {
				n++
			}
			if n > 0 && n < len(rest) && rest[n] == '=' {
				return s.emit(tokKey, n+1)
			}
			if b := bareLen(rest, n); b > n {
				return s.emit(tokBare, b)
			}
			return s.emit(tokIdent, n)
		}
		_, n := utf8.DecodeRuneInString(rest)
		return s.emit(tokInvalid, n)
	}
}

// emit returns the next n bytes as a token and advances past them.
func (s *scanner) emit(t tokType, n int) token {
	tok := token{typ: t, val: s.src[s.pos.Offset : int(s.pos.Offset)+n], pos: s.pos}
	if t == tokEOL {
		// The commonest token of all, and the one of a file of blank lines.
		s.pos = Pos{Offset: s.pos.Offset + 1, Line: s.pos.Line + 1, Column: 1}
		return tok
	}
	s.pos.Advance(tok.val)
	return tok
}

// skip advances past the next n bytes, which the caller has read
// another way.
func (s *scanner) skip(n int) {
	s.pos.Advance(s.src[s.pos.Offset : int(s.pos.Offset)+n])
}

// lineLen is the length of s up to its first newline.
func lineLen(s string) int {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return i
	}
	return len(s)
}

// stringLen is the length of the "…" string at the start of s: through
// the first unescaped quote, or to the end of the line without one.
func stringLen(s string) int {
	n, _ := quotedLen(s, '"')
	return n
}

// quotedLen is the length of the string at the start of s that its
// first byte, the quote q, opens: through the first q no \ escapes
// (closed), or to the end of the line without one.
func quotedLen(s string, q byte) (n int, closed bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case q:
			return i + 1, true
		case '\n':
			return i, false
		}
	}
	return len(s), false
}

// numberLen matches ([0-9][0-9_]*(\.[0-9]+)?[A-Za-z]*)+ at the start of
// s: a number, with its unit, and the numbers and units that run on
// without a space (1h30m, 1e3ms, 0x10), which are one value written one
// way or another, not an expression of several (its checker says
// whether it reads).
func numberLen(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
		for n < len(s) && (isDigit(s[n]) || s[n] == '_') {
			n++
		}
		if n+1 < len(s) && s[n] == '.' && isDigit(s[n+1]) {
			n += 2
			for n < len(s) && isDigit(s[n]) {
				n++
			}
		}
		for n < len(s) && isLetter(s[n]) {
			n++
		}
	}
	return n
}

// isWordByte reports whether c continues a word at offset i of it:
// letters, digits, _ and - (a word starts with a letter or _).
func isWordByte(c byte, i int) bool {
	return isLetter(c) || c == '_' || i > 0 && (isDigit(c) || c == '-')
}

// bareMarks are the characters that make a run of word characters a
// value left unquoted (bareLen).
const bareMarks = "./*@()"

// bareLen is the length of the run of word characters and bareMarks at
// the start of s, whose first n bytes are a word, when the run holds one
// of those marks: an id ("todo/v1", "lights.set", "prog@1"), a pattern
// ("sees *") or CEL (when=input.ok, when=size(input)) written without
// its quotes. Those characters start no PDL token, so without the run
// each would be an error of its own and the word's statement another
// (docs/pdl.md, "Syntax"). Otherwise it is n.
func bareLen(s string, n int) int {
	m, marked := n, false
	for m < len(s) && (isWordByte(s[m], 1) || strings.IndexByte(bareMarks, s[m]) >= 0) {
		marked = marked || strings.IndexByte(bareMarks, s[m]) >= 0
		m++
	}
	if !marked {
		return n
	}
	return m
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
