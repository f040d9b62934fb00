package basetest_test

import (
	"testing"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// The PDL lexer and jsonpos count columns in code points; LSP counts
// UTF-16 units, so an astral character (two units) before a finding
// moves its LSP character by two, a BMP one (é, °) by one.
func TestTextposRoundTrip(t *testing.T) {
	src := []byte("ab\n°C 😀x\r\n\xffz\nlast")
	tx := textpos.New(src)
	cases := []struct {
		line, col  int
		l, char    uint32
		wantOffset int
	}{
		{1, 1, 0, 0, 0},
		{1, 3, 0, 2, 2},
		{2, 4, 1, 3, 3 + 4},    // after "°C " (° is 2 bytes)
		{2, 5, 1, 5, 3 + 8},    // after the emoji: 2 units, 4 bytes
		{3, 2, 2, 1, 15},       // an invalid byte is one unit
		{4, 5, 3, 4, len(src)}, // end of the last line
	}
	for _, c := range cases {
		l, ch := tx.ToUTF16(c.line, c.col)
		if l != c.l || ch != c.char {
			t.Errorf("ToUTF16(%d,%d) = %d,%d, want %d,%d", c.line, c.col, l, ch, c.l, c.char)
		}
		if off := tx.Offset(l, ch); off != c.wantOffset {
			t.Errorf("Offset(%d,%d) = %d, want %d", l, ch, off, c.wantOffset)
		}
		if gl, gc := tx.Column(l, ch); gl != c.line || gc != c.col {
			t.Errorf("Column(%d,%d) = %d,%d, want %d,%d", l, ch, gl, gc, c.line, c.col)
		}
	}
}

// Positions outside the text clamp instead of panicking: an editor may
// send a position of a version the server has not seen yet.
func TestTextposClamp(t *testing.T) {
	tx := textpos.New([]byte("😀\nab"))
	if l, ch := tx.ToUTF16(9, 9); l != 1 || ch != 2 {
		t.Errorf("past the end: %d,%d", l, ch)
	}
	if l, ch := tx.ToUTF16(1, 99); l != 0 || ch != 2 {
		t.Errorf("past the line: %d,%d", l, ch)
	}
	if off := tx.Offset(0, 1); off != 0 {
		t.Errorf("inside a surrogate pair: %d", off)
	}
	if off := tx.Offset(7, 0); off != 7 {
		t.Errorf("past the last line: %d", off)
	}
}

func FuzzTextposConvert(f *testing.F) {
	f.Add([]byte("a😀\n\xff"), uint16(0), uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, line, char uint16) {
		tx := textpos.New(src)
		off := tx.Offset(uint32(line), uint32(char))
		if off < 0 || off > len(src) {
			t.Fatalf("offset %d outside [0,%d]", off, len(src))
		}
		l, c := tx.Column(uint32(line), uint32(char))
		if int(line) < tx.Lines() && utf8.Valid(src) {
			if gl, gc := tx.ToUTF16(l, c); gl != uint32(line) || gc > uint32(char) {
				t.Fatalf("(%d,%d) -> %d:%d -> (%d,%d)", line, char, l, c, gl, gc)
			}
		}
	})
}

// TestTextposLineEnds: LF, CR LF and a lone CR each end a line, as LSP counts
// them, and a line's text stops before its end: a position past it clamps
// to the line's last character, not into its CR.
func TestTextposLineEnds(t *testing.T) {
	src := []byte("a\rbc\r\nd\ne\r")
	tx := textpos.New(src)
	if n := tx.Lines(); n != 5 {
		t.Fatalf("%d lines, want 5", n)
	}
	for _, c := range []struct {
		line, char uint32
		off        int
	}{{0, 9, 1}, {1, 0, 2}, {1, 9, 4}, {2, 0, 6}, {3, 1, 9}, {4, 0, 10}} {
		if off := tx.Offset(c.line, c.char); off != c.off {
			t.Errorf("Offset(%d,%d) = %d, want %d", c.line, c.char, off, c.off)
		}
	}
	for i, want := range []int{0, 1, 0, 0, 2, 1, 0, 1, 0, 1} {
		if got := textpos.LineEnd(src, i); got != want {
			t.Errorf("LineEnd at %d (%q) = %d, want %d", i, src[i], got, want)
		}
	}
}
