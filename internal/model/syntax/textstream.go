package syntax

import "github.com/alecthomas/participle/v2/lexer"

// stream is the reader's view of the scanner's tokens, comments left out
// (they never change how a program reads; the builder finds the ones
// inside an expression in its text). It takes a token from the scanner
// when the reader first looks at it and keeps only the last few, so a
// read holds a handful of tokens whatever the program's size. An
// alternative the reader gives up is unread to where it started, which
// is within lookahead tokens of where it stopped but may be further
// behind the furthest token read (given-up alternatives nested in
// unclosed blocks, `if x { if y { …`): a position no longer kept is
// scanned again from the scanner's state there, which the checkpoint
// holds.
//
// participle's PeekingLexer, which held every token (64 bytes each, in a
// slice grown by append), made a read of one-character tokens cost
// hundreds of times the program's size (docs/performance.md).
type stream struct {
	sc     *scanner
	buf    []lexer.Token // tokens base … base+len(buf)-1
	depths []int         // the bracket depth before each of them
	base   int
	at     streamPos
	err    error // the scanner's error; the stream ends before it
}

// streamPos is a position in the stream: the next token's index and the
// end offset of the last token read that is not a separator, where a
// statement or block read so far ends; at and depth are where the next
// token starts and the bracket depth before it, the scanner's state to
// read it again from.
type streamPos struct {
	cursor, end int
	at          lexer.Position
	depth       int
}

// kept is how many tokens behind the cursor stay in the buffer: an
// alternative given up is almost always unread within them (lookahead
// tokens), and read again from the scanner when not.
const kept = 4 * lookahead

// newStream reads sc with room for size tokens (more than kept) before
// it drops the oldest.
func newStream(sc *scanner, size int) *stream {
	return &stream{sc: sc, buf: make([]lexer.Token, 0, size), depths: make([]int, 0, size)}
}

// Peek is the next token; after the last one, or at a scanner error,
// the EOF token.
func (s *stream) Peek() *lexer.Token {
	for s.at.cursor-s.base >= len(s.buf) {
		s.fill()
	}
	return &s.buf[s.at.cursor-s.base]
}

// Next reads the next token; the EOF token is never passed.
func (s *stream) Next() *lexer.Token {
	t := s.Peek()
	if !t.EOF() {
		s.at.cursor++
		if t.Type != kSep {
			s.at.end = t.Pos.Offset + len(t.Value)
		}
	}
	return t
}

// Cursor is how many tokens have been read.
func (s *stream) Cursor() int { return s.at.cursor }

func (s *stream) MakeCheckpoint() streamPos {
	p := s.at
	p.at = s.Peek().Pos
	p.depth = s.depths[p.cursor-s.base]
	return p
}

// LoadCheckpoint unreads the tokens read since p; when p is no longer
// kept, the scanner goes back to it.
func (s *stream) LoadCheckpoint(p streamPos) {
	if p.cursor < s.base {
		s.buf, s.depths, s.base, s.err = s.buf[:0], s.depths[:0], p.cursor, nil
		s.sc.pos, s.sc.depth = p.at, p.depth
	}
	s.at = p
}

// fill takes the next token from the scanner, first dropping the tokens
// more than kept behind the cursor when the buffer is full. Nothing
// holds a token's address across a fill: the reader takes a token's
// fields before it peeks again.
func (s *stream) fill() {
	if len(s.buf) == cap(s.buf) {
		if drop := s.at.cursor - kept - s.base; drop > 0 {
			s.base += drop
			s.buf = s.buf[:copy(s.buf, s.buf[drop:])]
			s.depths = s.depths[:copy(s.depths, s.depths[drop:])]
		}
	}
	if n := len(s.buf); n > 0 && s.buf[n-1].EOF() {
		s.buf, s.depths = append(s.buf, s.buf[n-1]), append(s.depths, s.depths[n-1])
		return
	}
	depth := s.sc.depth
	t, err := s.sc.Next()
	for err == nil && t.Type == kComment {
		t, err = s.sc.Next()
	}
	if err != nil {
		s.err = err
		t = lexer.EOFToken(s.sc.pos)
	}
	s.buf, s.depths = append(s.buf, t), append(s.depths, depth)
}

// drain scans the rest of the text for the error the scanner stops at,
// which a program reports before any parse error, as it did when the
// whole text was lexed before parsing.
func (s *stream) drain() error {
	for s.err == nil {
		t, err := s.sc.Next()
		if err != nil {
			s.err = err
		} else if t.EOF() {
			break
		}
	}
	return s.err
}
