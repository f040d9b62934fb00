package replay

import (
	"io"
	"slices"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// posReader sits between a trace file and its json.Decoder. It keeps the
// bytes the decoder has read but the checker has not yet passed, so a byte
// offset can become line:column without holding the file: offsets are
// asked for in increasing order and everything before the last one is
// counted once and dropped. Memory is the decoder's read-ahead plus the
// entry being checked, whatever the file's size.
type posReader struct {
	r io.Reader
	// buf holds the bytes from offset base on; line and col are the
	// position of base.
	buf       []byte
	base      int64
	line, col int
	// cr is a CR just before base, whose line end is counted once the
	// byte after it is known (lineEnd).
	cr bool
	// lastSig is the last byte before base that is not white space (0
	// at the start): the context a syntax error at base is read in.
	lastSig byte
	// head keeps the file for source snippets while it is no longer than
	// headLimit bytes; past that it is dropped, so a large file is never
	// held.
	head      []byte
	headLimit int
	total     int64
	eof       bool
	// given is how much of the file the decoder has been handed: the
	// bytes from given to total were read ahead of it (peek, fill) and
	// are held for it, and Read gives them before reading on. A walk
	// that skips a value at byte level hands the file on from the value's
	// end to a new decoder by moving given back (walker.resumeAt).
	given int64
	// bad is the offset of the first byte that is not UTF-8, -1 while
	// there is none; open holds the bytes of a character a read ended in
	// the middle of, checked with the next read.
	bad  int64
	open []byte
}

func newPosReader(r io.Reader, headLimit int) *posReader {
	return &posReader{r: r, line: 1, col: 1, headLimit: headLimit, bad: -1}
}

// checkUTF8 looks for the first byte that is not UTF-8 in b, the bytes
// read at offset at: the decoder would read it as U+FFFD without a word,
// so the walk asks (badBefore) and reports it as lint does.
func (p *posReader) checkUTF8(b []byte, at int64) {
	if p.bad >= 0 {
		return
	}
	if len(p.open) > 0 {
		at -= int64(len(p.open))
		b = append(p.open, b...)
		p.open = nil
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if !utf8.FullRune(b[i:]) && !p.eof {
			p.open = append([]byte(nil), b[i:]...)
			return
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			p.bad = at + int64(i)
			return
		}
		i += size
	}
}

// badBefore reports whether a byte that is not UTF-8 lies before off.
func (p *posReader) badBefore(off int64) bool { return p.bad >= 0 && p.bad < off }

func (p *posReader) Read(b []byte) (int, error) {
	if p.given < p.total {
		n := copy(b, p.bytes(p.given, p.total))
		p.given += int64(n)
		return n, nil
	}
	n, err := p.r.Read(b)
	p.buf = append(p.buf, b[:n]...)
	p.took(b[:n], err)
	p.given = p.total
	return n, err
}

// took counts b, bytes just read from the file and appended to the held
// bytes, with err, the reader's error.
func (p *posReader) took(b []byte, err error) {
	if err == io.EOF {
		p.eof = true
	}
	p.checkUTF8(b, p.total)
	p.total += int64(len(b))
	if p.total <= int64(p.headLimit) {
		p.head = append(p.head, b...)
	} else {
		p.head = nil
	}
}

// fill reads the next part of the file into the held bytes, ahead of
// the decoder, and reports whether more may follow (false at the end or
// on a read error, which the decoder meets in turn). The held bytes grow
// by half when full, where append would grow them by a quarter at a
// time and allocate five times the file on the way; from 512 bytes, as
// the decoder's buffer, since a small file's first bytes are read so.
func (p *posReader) fill() bool {
	if p.eof {
		return false
	}
	if cap(p.buf)-len(p.buf) < 512 {
		p.buf = slices.Grow(p.buf, max(512, len(p.buf)/2))
	}
	free := p.buf[len(p.buf):cap(p.buf)]
	n, err := p.r.Read(free)
	p.buf = p.buf[:len(p.buf)+n]
	p.took(free[:n], err)
	return err == nil
}

// peek returns the first n bytes of the file (fewer when it is shorter,
// or when reading fails: the decoder then meets the same end or error),
// read ahead of the decoder, which gets them first: what they say about
// the encoding is the syntax error lint reports for the file, before any
// byte is decoded (walk, jsonpos.CheckEncoding).
func (p *posReader) peek(n int) []byte {
	for p.total < int64(n) && p.fill() {
	}
	return p.bytes(0, int64(n))
}

// readTo reads the file into the held bytes until it holds n bytes or
// more, or up to its end or the first error reading it.
func (p *posReader) readTo(n int64) {
	for p.total < n && p.fill() {
	}
}

// source returns the whole file when it fit under the head limit.
func (p *posReader) source() []byte {
	if p.eof && p.total <= int64(p.headLimit) {
		return p.head
	}
	return nil
}

// clamp keeps off inside the bytes still held.
func (p *posReader) clamp(off int64) int64 {
	return max(p.base, min(off, p.base+int64(len(p.buf))))
}

// advance moves base to off, counting lines and columns (columns count
// characters, as jsonpos and editors do).
func (p *posReader) advance(off int64) {
	off = p.clamp(off)
	k := int(off - p.base)
	for _, c := range p.buf[:k] {
		p.lineEnd(c)
		switch {
		case c == '\n':
			p.line++
			p.col = 1
		case c == '\r':
			p.cr = true
			p.col++
		case c&0xC0 != 0x80: // not a UTF-8 continuation byte
			p.col++
		}
	}
	for i := k - 1; i >= 0; i-- {
		if c := p.buf[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			p.lastSig = c
			break
		}
	}
	p.buf = p.buf[k:]
	p.base = off
}

// lineEnd ends the line at a CR before c, the byte at base, unless c is
// LF: lines end at LF, CR LF or a lone CR, as every position counts them
// (textpos.LineEnd), but a CR read last has no byte after it yet to
// tell a lone one from CR LF's, whose CR is its line's last character.
func (p *posReader) lineEnd(c byte) {
	if p.cr && c != '\n' {
		p.line++
		p.col = 1
	}
	p.cr = false
}

// position returns the line and column of off and forgets what precedes it.
func (p *posReader) position(off int64) jsonpos.Pos {
	p.advance(off)
	if len(p.buf) > 0 {
		p.lineEnd(p.buf[0])
	} else if p.eof {
		p.lineEnd(0)
	}
	return jsonpos.Pos{Offset: int(p.base), Line: p.line, Column: p.col}
}

// valueStart returns the offset of the value that follows off: past
// whitespace and, when sep is true, one ',' or ':' separator. The decoder
// has read those bytes by the time it has returned the value.
func (p *posReader) valueStart(off int64, sep bool) int64 {
	off = p.clamp(off)
	for i := int(off - p.base); i < len(p.buf); i++ {
		switch c := p.buf[i]; c {
		case ' ', '\t', '\n', '\r':
		case ',', ':':
			if !sep {
				return p.base + int64(i)
			}
			sep = false
		default:
			return p.base + int64(i)
		}
	}
	return p.base + int64(len(p.buf))
}

// bytes returns the held bytes in [from, to); valid until the next advance.
func (p *posReader) bytes(from, to int64) []byte {
	from, to = p.clamp(from), p.clamp(to)
	return p.buf[from-p.base : to-p.base]
}

// completeRune reads the rest of a UTF-8 sequence that the held bytes end
// in the middle of (a reader may return a byte at a time), so an error
// at it names the character rather than its first byte. It stops once
// the sequence is whole, and a read takes what the reader has ready, so
// a pipe still open is not waited on past the sequence.
func (p *posReader) completeRune() {
	start := len(p.buf) - 1
	for start > 0 && start > len(p.buf)-utf8.UTFMax && !utf8.RuneStart(p.buf[start]) {
		start--
	}
	for range utf8.UTFMax {
		if start < 0 || utf8.FullRune(p.buf[start:]) || !p.fill() {
			return
		}
	}
}
