// Package textpos converts between the positions findings carry (1-based
// lines, columns counted in Unicode code points) and the ones the
// Language Server Protocol counts (0-based lines, UTF-16 code units).
package textpos

import (
	"bytes"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// LineEnd is the length of the line end that starts at src[i]: 2 for CR
// LF, 1 for LF or a CR not followed by LF, 0 for any other byte and past
// src's end. Every position pilotage reports counts lines so (jsonpos's
// line:col, report's snippets, the LSP's ranges, YAML errors' lines), as
// YAML and LSP do: a file whose lines end in a lone CR was all on line 1.
func LineEnd(src []byte, i int) int {
	switch {
	case i < 0 || i >= len(src):
		return 0
	case src[i] == '\n':
		return 1
	case src[i] != '\r':
		return 0
	case i+1 < len(src) && src[i+1] == '\n':
		return 2
	}
	return 1
}

// NextLineEnd is the offset of the first line end in src and its length
// (LineEnd), or len(src) and 0 when src has none.
func NextLineEnd(src []byte) (at, n int) {
	i := bytes.IndexAny(src, "\r\n")
	if i < 0 {
		return len(src), 0
	}
	return i, LineEnd(src, i)
}

// LoneCR is the offset of the first CR in src not followed by an LF, -1
// when there is none. A CR alone (a classic Mac line end) ends a line for
// an editor, the language server and every position reported (LineEnd),
// but not for PDL's or a text program's reader, which would run the
// statements either side of it together (a comment swallowing the rest
// of the file): such a file is refused there, once, before it is read.
func LoneCR[T ~string | ~[]byte](src T) int {
	for i := 0; i < len(src); i++ {
		if src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			return i
		}
	}
	return -1
}

// Text indexes the line starts of a source, so each conversion reads one
// line, not the file.
type Text struct {
	src   []byte
	lines []int // byte offset of each line's start
}

// New indexes src. Lines end at LF, CR LF or a lone CR (LineEnd), as LSP
// counts them.
func New(src []byte) *Text {
	t := &Text{src: src, lines: []int{0}}
	for off := 0; ; {
		at, n := NextLineEnd(src[off:])
		if n == 0 {
			return t
		}
		off += at + n
		t.lines = append(t.lines, off)
	}
}

// Lines is the number of lines (a final line without \n counts).
func (t *Text) Lines() int { return len(t.lines) }

// line returns the bytes of 0-based line n without its line end; nil
// past the end.
func (t *Text) line(n int) []byte {
	if n < 0 || n >= len(t.lines) {
		return nil
	}
	b := t.src[t.lines[n]:]
	at, _ := NextLineEnd(b)
	return b[:at]
}

// ToUTF16 converts a 1-based line and code-point column to a 0-based line
// and UTF-16 character offset. A column past the line's end clamps to
// it; a line past the file's end clamps to the last line's end; zero or
// negative values mean the start.
func (t *Text) ToUTF16(line, column int) (l, char uint32) {
	if line < 1 {
		return 0, 0
	}
	n := line - 1
	if n >= len(t.lines) {
		n = len(t.lines) - 1
		column = int(^uint(0) >> 1)
	}
	b := t.line(n)
	units := 0
	for cp := 1; cp < column && len(b) > 0; cp++ {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		units += utf16.RuneLen(r) // an invalid byte decodes as U+FFFD: one unit
	}
	return uint32(n), uint32(units)
}

// Offset converts a 0-based line and UTF-16 character offset to a byte
// offset into the source, clamped to the line (a character inside a
// surrogate pair goes to the pair's start).
func (t *Text) Offset(line, char uint32) int {
	if int(line) >= len(t.lines) {
		return len(t.src)
	}
	start := t.lines[line]
	b := t.line(int(line))
	i, units := 0, 0
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		w := utf16.RuneLen(r)
		if units+w > int(char) {
			break
		}
		units += w
		i += size
	}
	return start + i
}

// Column converts a 0-based line and UTF-16 character offset to the
// 1-based line and code-point column findings use.
func (t *Text) Column(line, char uint32) (l, column int) {
	off := t.Offset(line, char)
	if int(line) >= len(t.lines) {
		line = uint32(len(t.lines) - 1)
	}
	return int(line) + 1, utf8.RuneCount(t.src[t.lines[line]:off]) + 1
}

// Source is the indexed text.
func (t *Text) Source() []byte { return t.src }

// At converts a byte offset to a 0-based line and UTF-16 character
// offset.
func (t *Text) At(off int) (line, char uint32) {
	off = max(0, min(off, len(t.src)))
	n := sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) - 1
	units := 0
	for _, r := range string(t.src[t.lines[n]:off]) {
		units += utf16.RuneLen(r)
	}
	return uint32(n), uint32(units)
}
