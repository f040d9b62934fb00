// Package yamlcost bounds what go-yaml's node tree of a document would
// take, from one pass over its bytes that builds nothing, so a reader
// can refuse a dense document before go.yaml.in/yaml/v3 builds its tree.
package yamlcost

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// NodeBytes is what go-yaml allocates for a node of its tree, at most
// (TestNodeBytesBoundsUnmarshal: 173 to 248): a 160-byte yaml.Node, its
// pointer in its parent's Content, and the scanner's token and the
// parser's event on the way, of which about 170 bytes stay held once the
// tree is built. Dense YAML spends 1 to 4 bytes on a node (`{a,a,…}`,
// `[1,1,…]`, `- 1`), so its tree takes 60 to 250 bytes a byte.
const NodeBytes = 256

// Budget is what the tree of a document of n bytes may take: the budget
// of a JSON document's tree (jsonpos.TreeBudget, 4 bytes a byte plus 6
// MiB), so that a reader holding it stays within 10 bytes a byte of its
// input over its baseline, the project's bound for any input.
func Budget(n int) int64 { return jsonpos.TreeBudget(n) }

// Error is a document whose tree would take more than Budget; Line and
// Col (1-based, Col in characters) are where the nodes counted so far
// first took more.
type Error struct {
	Line, Col           int
	Nodes, Tree, Budget int64
}

func (e *Error) Error() string {
	return fmt.Sprintf("the YAML up to here holds about %d values, whose tree would take about %d bytes, over the budget of %d bytes a byte of the file plus %d MiB (%d bytes)",
		e.Nodes, e.Tree, jsonpos.TreePerByte, jsonpos.TreeSlack>>20, e.Budget)
}

// Check returns the Error of a document whose go-yaml tree would take
// more than Budget(len(src)), and nil otherwise. It never fails on
// malformed YAML: go-yaml says what is wrong with it, within the budget.
func Check(src []byte) *Error {
	budget := Budget(len(src))
	s := newScanner(src, budget/NodeBytes)
	s.run()
	if s.over {
		return &Error{Line: s.overLine, Col: s.overCol, Nodes: s.nodes, Tree: s.nodes * NodeBytes, Budget: budget}
	}
	return nil
}

// Count is the number of nodes Check estimates for src: at least as many
// as go-yaml's tree of it holds (FuzzCount holds it to that), and for
// the shapes of real files about as many.
func Count(src []byte) int64 {
	s := newScanner(src, -1)
	s.run()
	return s.nodes
}

// newScanner scans src for at most limit nodes (-1 for all), starting
// from the document's node.
func newScanner(src []byte, limit int64) *scanner {
	return &scanner{src: text(src), limit: limit, line: 1, col: 1, keyCol: -1, dashCol: -1, nodes: 1}
}

// text is src as go-yaml reads it, in UTF-8 with every line break a
// '\n': UTF-16 with a byte order mark is read as the text it encodes
// (its bytes would hide quotes and colons from the scan), a UTF-8 byte
// order mark is dropped, and CR, CRLF, NEL, LS and PS end lines as LF
// does. Only such a document is copied.
func text(src []byte) []byte {
	src = bytes.TrimPrefix(utf16Text(src), []byte("\uFEFF"))
	if bytes.IndexByte(src, '\r') < 0 && !bytes.Contains(src, []byte("\u0085")) && !bytes.Contains(src, []byte("\u2028")) && !bytes.Contains(src, []byte("\u2029")) {
		return src
	}
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
		case bytes.HasPrefix(src[i:], []byte("\u0085")):
			i++
		case bytes.HasPrefix(src[i:], []byte("\u2028")) || bytes.HasPrefix(src[i:], []byte("\u2029")):
			i += 2
		default:
			out = append(out, src[i])
			continue
		}
		out = append(out, '\n')
	}
	return out
}

// utf16Text is UTF-16 with a byte order mark as UTF-8, and anything else
// as it is.
func utf16Text(src []byte) []byte {
	if len(src) < 2 || !(src[0] == 0xFF && src[1] == 0xFE || src[0] == 0xFE && src[1] == 0xFF) {
		return src
	}
	big := src[0] == 0xFE
	units := make([]uint16, 0, len(src)/2)
	for i := 2; i+1 < len(src); i += 2 {
		if big {
			units = append(units, uint16(src[i])<<8|uint16(src[i+1]))
		} else {
			units = append(units, uint16(src[i+1])<<8|uint16(src[i]))
		}
	}
	out := make([]byte, 0, len(src))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// scanner counts the nodes a document can produce: each scalar, alias,
// flow collection and block collection, and each empty value go-yaml
// makes a null node of (`a:` at the end of a line, `-` alone, a flow
// mapping's key without a value, `[a: ]`), plus one for every anchor or
// tag, which may stand for an empty node, and the document's node. It
// does not parse: where it cannot tell two readings apart it counts the
// larger (a plain scalar over several lines counts once a line, a `key:`
// before a nested block counts a null), and it skips only comments,
// quoted scalars and block scalars' bodies, which go-yaml reads as text
// too, ending each where go-yaml ends it or later, never earlier.
type scanner struct {
	src   []byte
	i     int
	limit int64 // nodes allowed; -1 counts all

	line, col int // of src[i]
	indent    int // column of the first token of the line; 0 before it
	tokCol    int // column of the last token on the line; 0 for none
	// keyCol and dashCol are the columns of the block mapping key and
	// sequence entry that the next one at the same column continues, or
	// -1 when a dedent or the other kind of entry closed them.
	keyCol, dashCol int
	// flow holds the open flow collections ('[' or '{'); entry is
	// whether the current flow entry has a token, colon whether it had
	// its ':'.
	flow         []byte
	entry, colon bool
	// plainOpen is whether the last line ended inside a plain scalar,
	// which the next line may continue: go-yaml reads a quote or a '|'
	// at its start as text then, so the scan must not skip from it.
	plainOpen bool

	nodes             int64
	over              bool
	overLine, overCol int
}

// add counts n nodes and notes where they first exceed the limit.
func (s *scanner) add(n int64) {
	s.nodes += n
	if s.limit >= 0 && s.nodes > s.limit && !s.over {
		s.over, s.overLine, s.overCol = true, s.line, s.col
	}
}

// advance moves past n bytes, keeping line and column.
func (s *scanner) advance(n int) {
	for end := min(s.i+n, len(s.src)); s.i < end; s.i++ {
		switch c := s.src[s.i]; {
		case c == '\n':
			s.line, s.col, s.indent, s.tokCol = s.line+1, 1, 0, 0
		case c < 0x80 || c >= 0xC0: // not a continuation byte: a character
			s.col++
		}
	}
}

func (s *scanner) at(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

// blank reports whether c ends a token: a space, a line end, or the end.
func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0 }

func flowIndicator(c byte) bool { return c == ',' || c == '[' || c == ']' || c == '{' || c == '}' }

// restAfter reports whether anything but spaces and a comment follows
// the indicator at s.i on its line, or before the end of a flow entry.
func (s *scanner) restAfter() bool {
	for j := s.i + 1; j < len(s.src); j++ {
		switch c := s.src[j]; {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '\n' || c == '#':
			return false
		case len(s.flow) > 0 && (c == ',' || c == ']' || c == '}'):
			return false
		default:
			return true
		}
	}
	return false
}

func (s *scanner) run() {
	for s.i < len(s.src) && !s.over {
		c := s.src[s.i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			s.advance(1)
			continue
		}
		continued := false
		if s.indent == 0 {
			if s.startLine() {
				continue
			}
			continued, s.plainOpen = s.plainOpen, false
		}
		col := s.col
		switch {
		case c == '#' && (s.i == 0 || blank(s.src[s.i-1])):
			s.skipLine()
			continue
		case continued && (c == '"' || c == '\'' || c == '|' || c == '>'):
			s.add(1)
			s.skipPlain()
		case c == '"' || c == '\'':
			s.add(1)
			s.skipQuoted(c)
		case c == '[' || c == '{':
			s.add(1)
			s.flow = append(s.flow, c)
			s.entry, s.colon = false, false
			s.advance(1)
		case c == ']' || c == '}' || c == ',' && len(s.flow) > 0:
			s.endEntry()
			if c != ',' && len(s.flow) > 0 {
				s.flow = s.flow[:len(s.flow)-1]
			}
			s.entry, s.colon = c != ',', false // a closed collection is its parent's entry's token
			s.advance(1)
			s.tokCol = col
			continue
		case c == ':' && (blank(s.at(1)) || len(s.flow) > 0):
			s.value(col)
			s.advance(1)
			continue
		case c == '?' && (blank(s.at(1)) || len(s.flow) > 0) || c == '-' && blank(s.at(1)) && len(s.flow) == 0:
			s.entryIndicator(c, col)
			s.advance(1)
			continue
		case (c == '|' || c == '>') && len(s.flow) == 0:
			s.add(1)
			s.skipBlockScalar()
		case c == '&' || c == '!' || c == '*':
			s.add(1)
			s.skipName()
		default:
			s.add(1)
			s.skipPlain()
		}
		s.entry = true
		s.tokCol = col
	}
}

// startLine notes the first token of a line, and reports whether it
// skipped the line: a document marker (the next document has a node of
// its own) or a directive. A token left of the block keys and entries
// open closes them.
func (s *scanner) startLine() bool {
	s.indent = s.col
	marker := s.col == 1 && s.i+3 <= len(s.src) && (string(s.src[s.i:s.i+3]) == "---" || string(s.src[s.i:s.i+3]) == "...") && blank(s.at(3))
	if marker || s.col == 1 && s.src[s.i] == '%' {
		if marker && s.src[s.i] == '-' {
			s.add(1)
		}
		s.keyCol, s.dashCol, s.flow, s.plainOpen = -1, -1, s.flow[:0], false
		s.skipLine()
		return true
	}
	if len(s.flow) == 0 {
		if s.col < s.keyCol {
			s.keyCol = -1
		}
		if s.col < s.dashCol {
			s.dashCol = -1
		}
	}
	return false
}

// value counts what a ':' indicator at column col can add: a null key
// when no token came before it, a new block mapping (its first key) or
// the mapping of a single pair in a flow sequence, and a null value when
// nothing follows.
func (s *scanner) value(col int) {
	if len(s.flow) == 0 {
		key := s.tokCol
		if key == 0 {
			s.add(1)
			key = col
		}
		if key != s.keyCol {
			s.add(1)
			s.keyCol = key
		}
		if key <= s.dashCol {
			s.dashCol = -1
		}
	} else {
		if !s.entry {
			s.add(1)
		}
		if s.flow[len(s.flow)-1] == '[' {
			s.add(1)
		}
		s.entry, s.colon = true, true
	}
	if !s.restAfter() {
		s.add(1)
	}
}

// entryIndicator counts what a block sequence entry ('-') or an explicit
// key ('?') can add: a new sequence, or a mapping with a null key and
// value, and a null entry when nothing follows.
func (s *scanner) entryIndicator(c byte, col int) {
	if c == '?' {
		s.add(3)
		s.keyCol = -1
		return
	}
	if col != s.dashCol {
		s.add(1)
		s.dashCol = col
	}
	if col <= s.keyCol {
		s.keyCol = -1
	}
	if !s.restAfter() {
		s.add(1)
	}
	s.tokCol = 0 // what follows on the line starts a node of its own
}

// endEntry counts the null value of a flow mapping's key given without
// one (`{a, b}`).
func (s *scanner) endEntry() {
	if len(s.flow) > 0 && s.flow[len(s.flow)-1] == '{' && s.entry && !s.colon {
		s.add(1)
	}
}

func (s *scanner) skipLine() {
	j := s.i
	for j < len(s.src) && s.src[j] != '\n' {
		j++
	}
	s.advance(j - s.i)
}

// skipQuoted moves past a quoted scalar: ” escapes a single quote, \
// the next character in a double-quoted one. An unterminated one ends
// the scan, as it ends go-yaml's.
func (s *scanner) skipQuoted(q byte) {
	j := s.i + 1
	for j < len(s.src) {
		switch c := s.src[j]; {
		case q == '"' && c == '\\':
			j += 2
			continue
		case c == q && q == '\'' && j+1 < len(s.src) && s.src[j+1] == '\'':
			j += 2
			continue
		case c == q:
			s.advance(j + 1 - s.i)
			return
		}
		j++
	}
	s.advance(len(s.src) - s.i)
}

// skipName moves past an anchor or alias name, which go-yaml ends at
// anything but a letter, a digit, '_' or '-' (`&a:` is an anchored
// empty key), or a tag, which it ends at a space.
func (s *scanner) skipName() {
	tag := s.src[s.i] == '!'
	j := s.i + 1
	for ; j < len(s.src); j++ {
		c := s.src[j]
		if tag && (blank(c) || flowIndicator(c)) ||
			!tag && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			break
		}
	}
	s.advance(j - s.i)
}

// skipPlain moves past a plain scalar to the end of its line, a ": ",
// a " #", or in a flow collection a flow indicator or '?', where
// go-yaml ends it too. A line of it that continues on the next is
// counted again there.
func (s *scanner) skipPlain() {
	j := s.i + 1
	for ; j < len(s.src); j++ {
		c := s.src[j]
		if c == '\n' || c == ':' && blank(byteAt(s.src, j+1)) ||
			c == '#' && blank(s.src[j-1]) || len(s.flow) > 0 && (flowIndicator(c) || c == '?') {
			break
		}
	}
	s.plainOpen = j == len(s.src) || s.src[j] == '\n'
	s.advance(j - s.i)
}

func byteAt(b []byte, j int) byte {
	if j < len(b) {
		return b[j]
	}
	return 0
}

// skipBlockScalar moves past a literal or folded scalar: its header line,
// then every line blank or indented at least as far as its first
// non-blank one, when that is indented more than the scalar's parent.
// The parent's indentation is taken as the largest it can be, the
// column of the line's last key or entry or of the line itself, so that
// a line go-yaml reads as a node is never skipped as text.
func (s *scanner) skipBlockScalar() {
	parent := max(s.indent, s.keyCol, s.dashCol, s.tokCol)
	s.skipLine()
	var body int // indentation of the body, once known
	for s.i < len(s.src) {
		// s.src[s.i] is a line end; measure the next line.
		j := s.i + 1
		for j < len(s.src) && s.src[j] == ' ' {
			j++
		}
		if j < len(s.src) && s.src[j] != '\n' && s.src[j] != '\r' {
			ind := j - s.i // column of its first character
			if body == 0 {
				if ind <= parent {
					return
				}
				body = ind
			}
			if ind < body {
				return
			}
		}
		s.advance(1) // the line end, then the line
		s.skipLine()
	}
}
