package report

import (
	"sort"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// A snippet quotes at most maxWidth characters of its line, as shown
// (escapes count their characters), with the finding's column
// maxWidth/4 characters in: long lines (minified JSON, a guide body in one
// string, a file of NUL bytes) are windowed, with an ellipsis where text
// is cut. Only the window is decoded and escaped, so a snippet costs the
// same on a 16 MB line as on a short one (a 16 MB line of NUL bytes, each
// shown as \x00, took 1.2 GB and ten seconds when the whole line was).
const maxWidth = 160

// markEvery is how many bytes of a line lie between two of its marks.
const markEvery = 1024

// lineReader finds, for each finding, the window of its source line
// around its column. Findings come sorted by file and line, often many
// on one line (a minified JSON file is a single line), so for each file it
// keeps where every lineEvery-th line starts, found as far as asked, and
// for the last line it was asked about a mark (byte offset, character
// index) every markEvery bytes: a line is found from the start before it
// and a column from the mark before it, so n findings on one long line
// cost one pass over the line, not n (40,000 findings on a 400 KB line
// took minutes when every finding decoded the whole line), also when the
// findings of two files alternate; and a finding on line 16,000,000 costs
// 16,000 starts, not 16,000,000 (128 MB).
type lineReader map[string]*fileLines

// lineEvery is how many lines lie between two kept line starts.
const lineEvery = 1024

type fileLines struct {
	src []byte
	// starts[i] is the offset of line i*lineEvery+1; the last is where
	// the search for further lines goes on.
	starts []int
	done   bool   // whether starts reaches the last line
	n      int    // the line marked, 0 for none
	line   []byte // line n without its end of line
	marks  []mark
	chars  int // line n's length in characters
}

// mark is where character ch of the line starts: at byte off.
type mark struct{ off, ch int }

// window is the shown window of line n (1-based) of file, whose source is
// src, around the 1-based column col; false when src is nil or has no
// line n.
func (lr lineReader) window(file string, src []byte, n, col int) (shownLine, bool) {
	if src == nil || n < 1 {
		return shownLine{}, false
	}
	fl := lr[file]
	if fl == nil {
		fl = &fileLines{src: src, starts: []int{0}}
		lr[file] = fl
	}
	if n != fl.n {
		line, ok := fl.find(n)
		if !ok {
			return shownLine{}, false
		}
		fl.mark(n, line)
	}
	return fl.window(col), true
}

// find returns line n (1-based) without its end of line; false when the
// source has no line n.
func (fl *fileLines) find(n int) ([]byte, bool) {
	for !fl.done && (n-1)/lineEvery >= len(fl.starts) {
		off, ok := skipLines(fl.src, fl.starts[len(fl.starts)-1], lineEvery)
		if !ok {
			fl.done = true
			break
		}
		fl.starts = append(fl.starts, off)
	}
	i := (n - 1) / lineEvery
	if i >= len(fl.starts) {
		return nil, false
	}
	off, ok := skipLines(fl.src, fl.starts[i], (n-1)%lineEvery)
	if !ok {
		return nil, false
	}
	end, _ := textpos.NextLineEnd(fl.src[off:])
	return fl.src[off : off+end], true
}

// skipLines returns the offset of the start of the k-th line after the
// one starting at off; false when src ends before it. Lines end as
// every position counts them (textpos.LineEnd).
func skipLines(src []byte, off, k int) (int, bool) {
	for range k {
		i, n := textpos.NextLineEnd(src[off:])
		if n == 0 {
			return 0, false
		}
		off += i + n
	}
	return off, true
}

// mark makes line the marked line n. Each mark is at most markEvery
// bytes, and at most three more to reach a character start, after the
// previous one; the characters between are counted by utf8.RuneCount,
// which counts an invalid byte as one character as the decoding does.
func (fl *fileLines) mark(n int, line []byte) {
	fl.n, fl.line, fl.marks = n, line, fl.marks[:0]
	ch := 0
	for off := 0; off < len(line); {
		fl.marks = append(fl.marks, mark{off, ch})
		end := min(off+markEvery, len(line))
		for k := 0; k < utf8.UTFMax-1 && end < len(line) && !utf8.RuneStart(line[end]); k++ {
			end++
		}
		ch += utf8.RuneCount(line[off:end])
		off = end
	}
	fl.chars = ch
}

// runeLen is the length of the character at the start of b: an invalid
// byte is one character, as when the line is converted to []rune, and as
// jsonpos counts columns.
func runeLen(b []byte) int {
	if b[0] < utf8.RuneSelf {
		return 1
	}
	_, size := utf8.DecodeRune(b)
	return size
}

// offset is the byte offset of character ch of the marked line (the end
// of the line for ch past it).
func (fl *fileLines) offset(ch int) int {
	i := sort.Search(len(fl.marks), func(i int) bool { return fl.marks[i].ch > ch }) - 1
	if i < 0 {
		return 0
	}
	m := fl.marks[i]
	for m.off < len(fl.line) && m.ch < ch {
		m.off += runeLen(fl.line[m.off:])
		m.ch++
	}
	return m.off
}

// window is the shown window of the marked line around the 1-based
// column col: the whole line when it shows in maxWidth characters,
// otherwise the last characters before col that show in maxWidth/4 and
// as many from col as the rest of maxWidth holds, never cutting an
// escape in two.
func (fl *fileLines) window(col int) shownLine {
	if fl.chars <= maxWidth && fits(fl.line) {
		return newShownLine([]rune(string(fl.line)), 0)
	}
	at := min(max(col-1, 0), fl.chars)
	first := max(at-maxWidth/4, 0)
	off := fl.offset(first)
	var runes []rune
	width := 0
	for range at - first {
		r, size := utf8.DecodeRune(fl.line[off:])
		runes, width, off = append(runes, r), width+shownWidth(r), off+size
	}
	for width > maxWidth/4 {
		width -= shownWidth(runes[0])
		runes = runes[1:]
	}
	start := at - len(runes)
	for off < len(fl.line) {
		r, size := utf8.DecodeRune(fl.line[off:])
		if width+shownWidth(r) > maxWidth {
			break
		}
		runes, width, off = append(runes, r), width+shownWidth(r), off+size
	}
	l := newShownLine(runes, start)
	l.cutBefore, l.cutAfter = start > 0, off < len(fl.line)
	return l
}

// fits reports whether a line shows whole in maxWidth characters.
func fits(line []byte) bool {
	width := 0
	for _, r := range string(line) {
		if width += shownWidth(r); width > maxWidth {
			return false
		}
	}
	return true
}
