package pdl

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/textenc"
)

// Token types of the PDL lexer. The Open* types and Invalid are what no
// valid token can be, so lexing never fails: Parse turns those tokens into
// findings with a hint and carries on.
const (
	tokComment    lexer.TokenType = iota + 1 // # to the end of the line
	tokText                                  // """…""", may span lines
	tokString                                // "…" with Go escapes
	tokRaw                                   // `…`, may span lines
	tokNumber                                // 10000, 5s, 64MiB
	tokKey                                   // name= (an option's key with its "=")
	tokIdent                                 // word: letters, digits, _ and -
	tokPunct                                 // { } =
	tokSemi                                  // ;
	tokEOL                                   // a newline
	tokOpenText                              // """ never closed (to the end of its line)
	tokOpenString                            // "… never closed, or with a bad escape
	tokOpenRaw                               // `… never closed (to the end of its line)
	tokInvalid                               // one character no token starts with
)

// pdlLexer is the explicit lexer definition participle uses. It is hand
// written rather than built from regular expressions: PDL's tokens are
// simple, and a single pass over the bytes is an order of magnitude faster
// than trying one pattern per rule at every position, which matters for
// generated files with thousands of entries.
type pdlLexer struct{}

var symbols = map[string]lexer.TokenType{
	"EOF": lexer.EOF, "Comment": tokComment, "Text": tokText, "String": tokString, "Raw": tokRaw,
	"Number": tokNumber, "Key": tokKey, "Ident": tokIdent, "Punct": tokPunct, "Semi": tokSemi, "EOL": tokEOL,
	"OpenText": tokOpenText, "OpenString": tokOpenString, "OpenRaw": tokOpenRaw, "Invalid": tokInvalid,
}

func (pdlLexer) Symbols() map[string]lexer.TokenType { return symbols }

func (d pdlLexer) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (pdlLexer) LexString(filename, s string) (lexer.Lexer, error) {
	return &scanner{src: s, pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}, nil
}

func (d pdlLexer) LexBytes(filename string, b []byte) (lexer.Lexer, error) {
	return d.LexString(filename, string(b))
}

// lex is the lexer, one value for the package.
var lex = pdlLexer{}

// parser is built once at package level; participle reflects over the
// grammar structs at build time, which is too slow to repeat per file.
var parser = participle.MustBuild[File](participle.Lexer(lex))

// scanner is one pass over a source text, or over src[pos.Offset:end]
// when end is set (a chunk parsed on its own, with absolute positions).
type scanner struct {
	src string
	pos lexer.Position
	end int
}

// Next returns the next token; whitespace other than newlines is skipped.
func (s *scanner) Next() (lexer.Token, error) {
	for {
		rest := s.src[s.pos.Offset:]
		if s.end > 0 {
			rest = s.src[s.pos.Offset:s.end]
		}
		if rest == "" {
			return lexer.EOFToken(s.pos), nil
		}
		if s.pos.Offset == 0 && strings.HasPrefix(rest, textenc.UTF8BOM) {
			// A UTF-8 byte order mark is skipped (docs/pdl.md, "The
			// file"). Editors do not show it, so it is no column either:
			// the first character after it is line 1, column 1.
			s.pos.Offset += len(textenc.UTF8BOM)
			continue
		}
		switch c := rest[0]; c {
		case ' ', '\t', '\r', '\f', '\v':
			s.pos.Offset++
			s.pos.Column++
			continue
		case '\n':
			return s.emit(tokEOL, 1), nil
		case '#':
			return s.emit(tokComment, lineLen(rest)), nil
		case '{', '}', '=':
			return s.emit(tokPunct, 1), nil
		case ';':
			return s.emit(tokSemi, 1), nil
		case '`':
			if i := strings.IndexByte(rest[1:], '`'); i >= 0 {
				return s.emit(tokRaw, i+2), nil
			}
			return s.emit(tokOpenRaw, lineLen(rest)), nil
		case '"':
			if strings.HasPrefix(rest, `"""`) {
				if i := strings.Index(rest[3:], `"""`); i >= 0 {
					return s.emit(tokText, i+6), nil
				}
				return s.emit(tokOpenText, lineLen(rest)), nil
			}
			n := stringLen(rest)
			if _, err := strconv.Unquote(rest[:n]); err == nil {
				return s.emit(tokString, n), nil
			}
			return s.emit(tokOpenString, n), nil
		}
		c := rest[0]
		switch {
		case isDigit(c):
			return s.emit(tokNumber, numberLen(rest)), nil
		case isLetter(c) || c == '_':
			n := 1
			for n < len(rest) && (isLetter(rest[n]) || isDigit(rest[n]) || rest[n] == '_' || rest[n] == '-') {
				n++
			}
			if n < len(rest) && rest[n] == '=' {
				return s.emit(tokKey, n+1), nil
			}
			return s.emit(tokIdent, n), nil
		}
		_, n := utf8.DecodeRuneInString(rest)
		return s.emit(tokInvalid, n), nil
	}
}

// emit returns the next n bytes as a token and advances past them.
func (s *scanner) emit(t lexer.TokenType, n int) lexer.Token {
	tok := lexer.Token{Type: t, Value: s.src[s.pos.Offset : s.pos.Offset+n], Pos: s.pos}
	s.pos.Advance(tok.Value)
	return tok
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
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case '"':
			return i + 1
		case '\n':
			return i
		}
	}
	return len(s)
}

// numberLen matches [0-9][0-9_]*(\.[0-9]+)?[A-Za-z]* at the start of s.
func numberLen(s string) int {
	n := 1
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
	return n
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
