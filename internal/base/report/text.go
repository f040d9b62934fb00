package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiDim    = "\x1b[2m"
)

// textWriter renders findings the way HCL does: a location and summary
// line, the source line with the subject underlined, then the hint; the
// summary line ends the report.
type textWriter struct {
	bw    *bufio.Writer
	r     *Report // Files, Sources and KeyLabel
	opt   Options
	lines lineReader
	// inputs are r.Files sorted, named the other files the findings
	// shown are in (the guides and schemas a PDL file names, a plan a
	// trace is checked against), which the summary counts too: "3 errors
	// in 1 file" would read as one file to open when the errors are in
	// the PDL and two of its guides. None are counted when the inputs are
	// not listed. A sorted list, not a set: a run of 20,000 files held
	// 2.6 MB in a map of their names.
	inputs []string
	named  map[string]bool
}

func newTextWriter(w io.Writer, r *Report, opt Options) *textWriter {
	return &textWriter{bw: bufio.NewWriter(w), r: r, opt: opt, lines: lineReader{}, named: map[string]bool{},
		inputs: slices.Sorted(slices.Values(r.Files))}
}

func (t *textWriter) paint(code, s string) string {
	if !t.opt.Color {
		return s
	}
	return code + s + ansiReset
}

func (t *textWriter) finding(f Finding) error {
	if f.Suppressed() {
		return nil
	}
	bw, paint := t.bw, t.paint
	file := f.File
	if _, input := slices.BinarySearch(t.inputs, file); len(t.inputs) > 0 && file != "" && !input {
		t.named[file] = true
	}
	f = f.visible()
	sevColor := ansiBlue
	switch f.Severity {
	case Error:
		sevColor = ansiRed
	case Warning:
		sevColor = ansiYellow
	}
	fmt.Fprintf(bw, "%s: %s: %s %s\n", paint(ansiBold, location(f)), paint(sevColor, string(f.Severity)),
		f.Message, paint(ansiDim, fmt.Sprintf("[%s %s]", f.Rule, f.cited())))
	if line, ok := t.lines.window(file, t.r.Sources[file], f.Line, f.Column); ok {
		bw.WriteString(snippet(line, f))
	}
	if f.Pointer != "" {
		fmt.Fprintf(bw, "  %s %s\n", paint(ansiDim, "at"), ClipPointer(f.Pointer))
	}
	if f.Key != "" && t.r.KeyLabel != "" {
		fmt.Fprintf(bw, "  %s %s %s\n", paint(ansiDim, "in"), t.r.KeyLabel, f.Key)
	}
	for _, rel := range f.Related {
		fmt.Fprintf(bw, "  %s %s:%d:%d %s\n", paint(ansiDim, "see"), rel.File, rel.Line, rel.Column, rel.Note)
	}
	if f.Hint != "" {
		fmt.Fprintf(bw, "  %s %s\n", paint(ansiBold, "hint:"), f.Hint)
	}
	return bw.WriteByte('\n')
}

func (t *textWriter) end(r *Report) error {
	fmt.Fprintln(t.bw, summaryLine(r.Summary, len(t.named)))
	return t.bw.Flush()
}

// location is file:line:col, or the file alone for a whole-file finding.
func location(f Finding) string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	return f.File
}

// Count says "1 step" or "N steps": a count with its noun agreeing, for
// every count a text output prints. A noun ending in y takes -ies
// ("1 entry", "2 entries").
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if stem, ok := strings.CutSuffix(word, "y"); ok {
		return fmt.Sprintf("%d %sies", n, stem)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// countNoun makes a plural unit name ("rules", "entries", "plan steps")
// agree with its count.
func countNoun(n int, plural string) string {
	switch {
	case n != 1:
		return plural
	case strings.HasSuffix(plural, "ies"):
		return strings.TrimSuffix(plural, "ies") + "y"
	}
	return strings.TrimSuffix(plural, "s")
}

// Counts is what s counts, as the summary line begins: "3 errors, 1
// warning", with infos and suppressed findings when there are any.
func Counts(s Summary) string {
	parts := []string{Count(s.Errors, "error"), Count(s.Warnings, "warning")}
	if s.Infos > 0 {
		parts = append(parts, Count(s.Infos, "info"))
	}
	if s.Suppressed > 0 {
		parts = append(parts, fmt.Sprintf("%d suppressed", s.Suppressed))
	}
	return strings.Join(parts, ", ")
}

// summaryLine ends a text report of s whose findings are in named files
// besides the s.Files checked.
func summaryLine(s Summary, named int) string {
	line := Counts(s)
	if files := s.Files + named; files > 0 {
		line += " in " + Count(files, "file")
	}
	if len(s.Checked) > 0 {
		keys := slices.Sorted(maps.Keys(s.Checked))
		var c []string
		for _, k := range keys {
			c = append(c, fmt.Sprintf("%d %s", s.Checked[k], countNoun(s.Checked[k], k)))
		}
		line += " (checked " + strings.Join(c, ", ") + ")"
	}
	return line
}

// snippet renders the window of the finding's source line around its
// column (window.go) with a gutter, and underlines the subject: to
// EndColumn when known, otherwise the token at Column. Controls in the
// line are shown escaped (visible.go), and the caret counts the escapes'
// characters.
func snippet(shown shownLine, f Finding) string {
	const maxUnderline = 60
	f.Column = shown.column(f.Column)
	if f.EndLine == f.Line {
		f.EndColumn = shown.column(f.EndColumn)
	}
	text := shown.text
	if shown.cutBefore {
		text = append([]rune{'…'}, text...)
		f.Column++
		f.EndColumn++
	}
	if shown.cutAfter {
		text = append(text[:len(text):len(text)], '…')
	}
	width := 1
	if f.EndLine == f.Line && f.EndColumn > f.Column {
		width = f.EndColumn - f.Column
	} else {
		width = tokenWidth(text, f.Column-1)
	}
	// A windowed line shows only part of a long subject (a guide body):
	// the underline stops where the shown text does.
	width = min(width, max(len(text)-(f.Column-1), 1))
	// A subject longer than a phrase (a whole guide body) is marked by its
	// start; a wall of carets would hide the line it points at.
	if width > maxUnderline {
		width = 1
	}
	gutter := fmt.Sprintf("%4d | ", f.Line)
	pad := strings.Repeat(" ", len(gutter)-2) + "| "
	col := max(f.Column-1, 0)
	return fmt.Sprintf("%s%s\n%s%s%s\n", gutter, strings.ReplaceAll(string(text), "\t", " "), pad, strings.Repeat(" ", col), strings.Repeat("^", max(width, 1)))
}

// tokenWidth guesses the width of the token at col: a quoted string, a
// word, or one character.
func tokenWidth(line []rune, col int) int {
	if col < 0 || col >= len(line) {
		return 1
	}
	if line[col] == '"' {
		for i := col + 1; i < len(line); i++ {
			if line[i] == '\\' {
				i++
				continue
			}
			if line[i] == '"' {
				return i - col + 1
			}
		}
		return len(line) - col
	}
	i := col
	for i < len(line) && (isWord(line[i])) {
		i++
	}
	return max(i-col, 1)
}

func isWord(r rune) bool {
	return r == '_' || r == '-' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}

// Snippet is the text format's view of line:col of src, for a
// diagnostic printed outside a report (pilotage.yaml's): the line, a
// window of it when long, with the token at col underlined; "" when src
// has no such line.
func Snippet(src []byte, line, col int) string {
	shown, ok := lineReader{}.window("", src, line, col)
	if !ok {
		return ""
	}
	return snippet(shown, Finding{Line: line, Column: col})
}
