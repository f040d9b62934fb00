package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The text, github and junit formats are read on terminals and in CI logs,
// and what they print comes from the files checked: a message quotes a
// name, a snippet quotes a source line. A linted snapshot is untrusted
// input, so none of its bytes may reach the reader as a control: ESC
// would start a terminal escape sequence (colours, cursor moves, window
// titles, OSC 8 links), CR would overwrite the line it ends, NUL and the
// C1 controls are read as controls by some terminals. Those formats show
// each such character as a hexadecimal escape: \x1b for a C0 control or
// DEL (\x0d for CR too: one form for every control is easier to read
// than Go's mix of \r, \a and \x1b), \u009b for a C1 control, and \xff
// for a byte that is not UTF-8 (an 8-bit terminal reads 0x9b as CSI;
// snippets show U+FFFD instead, as they decode the line into characters).
// The bidirectional formatting characters (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069) are escaped too, as \u202e: they control
// nothing but reorder what is shown, so a message or snippet could read
// differently from the bytes it quotes ("Trojan Source", CVE-2021-42574).
// The characters that have no width and no use in the middle of text
// (U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER, U+FEFF, the byte order
// mark) are escaped too: unseen, they make two different names print
// alike, and fmt -d of a file saved with a byte order mark would show a
// removed and an added line that read the same. The joiners U+200C and
// U+200D stay: scripts and emoji need them.
// Tab and newline stay: a tab is harmless (snippets turn it into a space
// so carets line up) and newlines are the line structure of a message. The json and sarif formats
// carry the text unchanged, escaped as JSON escapes it (jsonControls):
// they are data for programs, which may need the exact text.
// docs/replay.md ("Output and exit codes") documents this.

// isControl reports whether r is shown escaped: a C0 control other than
// tab and newline, DEL, a C1 control, a bidirectional formatting
// character, or an invisible one.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (0x7f <= r && r <= 0x9f) || isBidi(r) || isInvisible(r)
}

// isInvisible reports whether r is a character without width that text
// does not need: U+200B, U+2060 or U+FEFF.
func isInvisible(r rune) bool {
	return r == 0x200b || r == 0x2060 || r == 0xfeff
}

// isBidi reports whether r is a bidirectional formatting character.
func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (0x202a <= r && r <= 0x202e) || (0x2066 <= r && r <= 0x2069)
}

// escapeRune is the escape isControl's characters are shown as.
func escapeRune(r rune) string {
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// visible returns s with every control and every byte that is not UTF-8
// escaped; s itself when there is none, which is nearly always.
func visible(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && n == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case isControl(r):
			esc = escapeRune(r)
		}
		if esc != "" {
			b.WriteString(s[done:i])
			b.WriteString(esc)
			done = i + n
		}
		i += n
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// Visible is visible for commands that show a file's text on a terminal
// outside a report: pilotage fmt -d prints source lines in its diff.
func Visible(s string) string { return visible(s) }

// OneLine is visible with tab and newline escaped too, as \x09 and \x0a:
// for a text that is one line of a layout, a table's cell or a finding's
// message, which a tab or newline it quotes (a step id's, a member
// name's) would move or split.
func OneLine(s string) string { return lineEscapes.Replace(visible(s)) }

// lineEscapes escapes the two controls visible leaves in the form it
// escapes the others.
var lineEscapes = strings.NewReplacer("\t", `\x09`, "\n", `\x0a`)

// shownLine is the window of a source line a snippet quotes, as the text
// format shows it: its controls escaped as visible escapes them.
type shownLine struct {
	text []rune
	// at[i] is where character i of the window starts in text; nil when
	// nothing was escaped and text is the window itself.
	at []int
	// n is the window's length in characters, first the index of its
	// first character in the line.
	n, first int
	// cutBefore and cutAfter say that the line goes on before and after
	// the window: the snippet shows an ellipsis there.
	cutBefore, cutAfter bool
}

// newShownLine shows the characters of a window that starts at character
// first of its line.
func newShownLine(window []rune, first int) shownLine {
	if !slices.ContainsFunc(window, isControl) {
		return shownLine{text: window, n: len(window), first: first}
	}
	l := shownLine{text: make([]rune, 0, len(window)+16), at: make([]int, len(window)), n: len(window), first: first}
	for i, r := range window {
		l.at[i] = len(l.text)
		if isControl(r) {
			l.text = append(l.text, []rune(escapeRune(r))...)
		} else {
			l.text = append(l.text, r)
		}
	}
	return l
}

// shownWidth is how many characters r takes in a snippet.
func shownWidth(r rune) int {
	if isControl(r) {
		return len(escapeRune(r))
	}
	return 1
}

// column moves a 1-based column of the source line to the shown window,
// so a caret still points at its subject. A column past the end of the
// window stays as far past its shown end.
func (l shownLine) column(col int) int {
	switch i := col - 1 - l.first; {
	case i < 0:
		return i + 1
	case i >= l.n:
		return i + 1 + len(l.text) - l.n
	case l.at == nil:
		return i + 1
	default:
		return l.at[i] + 1
	}
}

// visible returns f with every text it shows escaped as OneLine escapes
// it, each being one line of the report, but its hint, which may span
// lines (a test case's diff), whose newlines stay; f's Sections and
// Related are copied, never changed in place.
func (f Finding) visible() Finding {
	for _, p := range []*string{&f.Rule, &f.Section, &f.Message, &f.File, &f.Pointer, &f.Key} {
		*p = OneLine(*p)
	}
	f.Hint = strings.ReplaceAll(visible(f.Hint), "\t", `\x09`)
	if f.Sections != nil {
		sections := make([]string, len(f.Sections))
		for i, s := range f.Sections {
			sections[i] = OneLine(s)
		}
		f.Sections = sections
	}
	if f.Related != nil {
		rel := make([]Location, len(f.Related))
		for i, l := range f.Related {
			l.File, l.Pointer, l.Note = OneLine(l.File), OneLine(l.Pointer), OneLine(l.Note)
			rel[i] = l
		}
		f.Related = rel
	}
	return f
}
