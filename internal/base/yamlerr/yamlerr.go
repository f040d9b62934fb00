// Package yamlerr places a YAML syntax error go-yaml reports at its
// cause, the line and column of the token it is about, with a hint how
// to mend it: go-yaml gives only a line, often that of the construct
// enclosing the error, and counted from 0. pilotage.yaml and case files
// (internal/config, internal/model/testcase) place theirs so.
package yamlerr

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// yamlLine is the position go-yaml's error text gives ("yaml: line 3:
// …"): the only one it gives, and not the offending token's. For a
// parser error it is the line of the enclosing construct when that is
// not the first line, else of the token, and counted from 0.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlAnchor is the anchor an "unknown anchor 'a' referenced" names.
var yamlAnchor = regexp.MustCompile(`anchor '([^']*)'`)

// Error is a YAML syntax error at its cause: Line and Column (1-based,
// Column in characters), go-yaml's message without its "yaml: line N: ",
// and a hint for mending it.
type Error struct {
	Line, Column  int
	Message, Hint string
}

// Place places err, go-yaml's error parsing src, at its cause: the line
// is the last of the shortest run of whole lines from the start that
// fails with the same error (the parser reads in order, so the token it
// stopped at ends that run), and the column is that of the token on that
// line the error is about. docs names the page a hint with nothing more
// specific to say refers to.
func Place(src []byte, err error, docs string) Error {
	msg := strings.TrimPrefix(yamlLine.ReplaceAllString(err.Error(), ""), "yaml: ")
	n := offendingLine(src, err.Error())
	text := string(lineOf(src, n))
	above, opens := indentsAbove(src, n)
	col, hint := yamlCause(msg, text, above, opens, docs)
	return Error{Line: n, Column: col, Message: msg, Hint: hint}
}

// lineEnds are the offsets just past each line of src, end of line
// included; the last is len(src).
func lineEnds(src []byte) []int {
	var ends []int
	for off := 0; off < len(src); {
		// Lines end as YAML ends them, and every position pilotage
		// reports: LF, CR LF or a lone CR.
		i, n := textpos.NextLineEnd(src[off:])
		if n == 0 {
			break
		}
		off += i + n
		ends = append(ends, off)
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(src) {
		ends = append(ends, len(src))
	}
	return ends
}

// offendingLine is the 1-based line that ends the shortest prefix of
// src, in whole lines, whose parse fails with the error text want. A
// prefix ending before the offending line parses, or fails otherwise (at
// its end); one ending on or after it fails the same. go-yaml's line is
// never after the offending one, and the line of the last byte the
// parser read (readTo) never before it: the prefix through it holds all
// the parser saw, so it fails the same. The lines between are halved by
// parsing prefixes, at most maxPrefixParses of them: halving the whole
// file took a dozen parses, 20 for a megabyte case file. Between the two
// there are a handful of lines but for errors that span many (a flow
// collection never closed), which are then placed at most a few lines
// late.
func offendingLine(src []byte, want string) int {
	ends := lineEnds(src)
	fails := func(i int) bool { // whether the prefix through line i+1 fails as src does
		var doc yaml.Node
		err := yaml.Unmarshal(src[:ends[i]], &doc)
		return err != nil && err.Error() == want
	}
	lo, hi := 0, len(ends)-1 // lines before lo parse, or fail otherwise; through hi fails as src does
	if m := yamlLine.FindStringSubmatch(want); m != nil {
		n, _ := strconv.Atoi(m[1])
		lo = min(max(n-1, 0), hi)
	}
	if hi-lo >= 1<<maxPrefixParses {
		// Too many lines to halve within the bound: read up to where the
		// parser stops.
		if end, ok := readTo(src, want); ok {
			i, _ := slices.BinarySearch(ends, end)
			hi = max(lo, min(i, hi))
		}
	}
	for k := 0; lo < hi && k < maxPrefixParses; k++ {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi + 1
}

// maxPrefixParses bounds the prefixes offendingLine parses, so placing
// an error costs a few parses of the file, whatever its length.
const maxPrefixParses = 3

// readTo is how far into src go-yaml reads before it fails with the
// error text want, through a reader of readChunk bytes a call: the
// parser asks for the few characters it looks ahead at a time, so it
// stops reading within readChunk bytes of where it failed. ok is false
// when it fails otherwise, which it should not.
func readTo(src []byte, want string) (end int, ok bool) {
	r := &chunkReader{src: src}
	var doc yaml.Node
	err := yaml.NewDecoder(r).Decode(&doc)
	return r.off, err != nil && err.Error() == want
}

// readChunk is what chunkReader hands the parser a call.
const readChunk = 64

type chunkReader struct {
	src []byte
	off int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.off == len(r.src) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), readChunk)], r.src[r.off:])
	r.off += n
	return n, nil
}

// lineOf is line n (1-based) of src without its end of line.
func lineOf(src []byte, n int) []byte { return lines(src)[n-1] }

// lines are the lines of src without their ends of line.
func lines(src []byte) [][]byte {
	var out [][]byte
	start := 0
	for _, end := range lineEnds(src) {
		out = append(out, bytes.TrimRight(src[start:end], "\r\n"))
		start = end
	}
	return out
}

// indentsAbove are the indentations of the keys enclosing line n: those
// of the lines before it, each less indented than the one after it,
// nearest first. Blank and comment lines do not count. opens says the
// nearest ends with ":" (or a block scalar's | or >), so line n may be
// indented further.
func indentsAbove(src []byte, n int) (out []int, opens bool) {
	lines := lines(src)
	for i := min(n-1, len(lines)) - 1; i >= 0; i-- {
		l := lines[i]
		body := bytes.TrimLeft(l, " ")
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		ind := len(l) - len(body)
		if len(out) == 0 {
			t := bytes.TrimRight(body, " ")
			opens = bytes.ContainsAny(t[len(t)-1:], ":|>")
		}
		// A list item's "- " indents what follows it on its line: the
		// keys of a mapping item ("  - name: a", then "    program:")
		// sit at the indentation after it, the next item at the dash.
		at := []int{ind}
		for d := ind; bytes.HasPrefix(l[d:], []byte("- ")); at = append(at, d) {
			d += 2 + len(l[d+2:]) - len(bytes.TrimLeft(l[d+2:], " "))
		}
		for i := len(at) - 1; i >= 0; i-- {
			if len(out) == 0 || at[i] < out[len(out)-1] {
				out = append(out, at[i])
			}
		}
		if ind == 0 {
			break
		}
	}
	return out, opens
}

// yamlCause is the column of the token on the offending line that msg is
// about, and a hint for mending it. Columns count characters from 1.
func yamlCause(msg, line string, above []int, opens bool, docs string) (int, string) {
	first := len(line) - len(strings.TrimLeft(line, " ")) // the token that came unexpected
	switch {
	case strings.Contains(msg, "tab character"), strings.Contains(msg, "cannot start any token") && first < len(line) && line[first] == '\t':
		return column(line, strings.IndexByte(line, '\t')), "indent with spaces: YAML does not allow tabs in indentation"
	case strings.Contains(msg, "cannot start any token"):
		if i := strings.IndexAny(line, "@`\t"); i >= 0 {
			return column(line, i), "@ and ` are reserved in YAML and cannot start a value: quote it (\"@value\")"
		}
	case strings.Contains(msg, "mapping values are not allowed"):
		return column(line, mappingColon(line)), `quote a value that holds ": " (key: "a: b"), or indent this key like the keys beside it: indented further, it continues the value above`
	case strings.Contains(msg, "end of stream"):
		if i := unclosedQuote(line); i >= 0 {
			return column(line, i), fmt.Sprintf("close the string opened here with %c on this line: a quoted string may span lines, so YAML read to the end of the file for the quote", line[i])
		}
	case strings.Contains(msg, "expected '-' indicator"):
		return first + 1, indentHint(first, above) + `, or start it with "- " to add an item to the list above`
	case strings.Contains(msg, "expected key"), strings.Contains(msg, "expected node content"):
		// Something came where the mapping wanted its next key: text
		// after a value, a line indented like no key, a list item; or a
		// bracket a flow collection on the line did not open.
		switch rest := line[first:]; {
		case strings.Contains(msg, "expected node content") && flowCulprit(line) >= 0:
			return column(line, flowCulprit(line)), "close every [ with ] and every { with }, and separate their items with commas"
		case afterQuoted(line) >= 0:
			return column(line, afterQuoted(line)), `a quoted value ends at its closing quote: quote the whole value, or start a comment with " #"`
		case !slices.Contains(above, first) && !(opens && first > above[0]):
			return first + 1, indentHint(first, above)
		case rest == "-" || strings.HasPrefix(rest, "- "):
			return first + 1, `a list item among the keys of a mapping: put the list under a key of its own ("key:", then "- item" indented below it)`
		}
	case strings.Contains(msg, "expected ',' or"):
		if i := flowCulprit(line); i >= 0 {
			return column(line, i), "close every [ with ] and every { with }, and separate their items with commas"
		}
		if i := afterQuoted(line); i >= 0 {
			return column(line, i), `a quoted value ends at its closing quote: quote the whole value, or start a comment with " #"`
		}
	case strings.Contains(msg, "expected ':'"):
		return first + 1, `a key needs ": " after it, and a list item "- " before it`
	case strings.Contains(msg, "unknown anchor"):
		if m := yamlAnchor.FindStringSubmatch(msg); m != nil {
			if i := strings.Index(line, "*"+m[1]); i >= 0 {
				return column(line, i), fmt.Sprintf("define the anchor with &%s on a value before this *%s", m[1], m[1])
			}
		}
	}
	if i := slices.IndexFunc([]rune(line), func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f || r == utf8.RuneError }); i >= 0 {
		return i + 1, "remove the control character or invalid UTF-8 here: YAML is text"
	}
	return first + 1, "check this line's indentation and quotes against the keys above it (" + docs + ")"
}

// column is the character column of byte offset i of line.
func column(line string, i int) int { return utf8.RuneCountInString(line[:max(i, 0)]) + 1 }

// indentHint says which indentations the line could have had.
func indentHint(ind int, above []int) string {
	if len(above) == 0 {
		return fmt.Sprintf("this line is indented %s: top-level keys start at the first column", spaces(ind))
	}
	ls := slices.Sorted(slices.Values(above))
	levels := strconv.Itoa(ls[len(ls)-1])
	for i := len(ls) - 2; i >= 0; i-- {
		sep := ", "
		if i == len(ls)-2 {
			sep = " or "
		}
		levels = strconv.Itoa(ls[i]) + sep + levels
	}
	return fmt.Sprintf("this line is indented %s, like none of the lines above it (%s spaces): indent it like the keys of the mapping it belongs to", spaces(ind), levels)
}

// spaces is n spaces in words.
func spaces(n int) string {
	if n == 1 {
		return "1 space"
	}
	return fmt.Sprintf("%d spaces", n)
}

// scanQuoted calls at for each byte of line outside quoted strings and
// comments, with its offset; it returns the offset of a quote still open
// at the end of the line, or -1.
func scanQuoted(line string, at func(i int)) int {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case opensQuote(line, i):
			end := quoteEnd(line, i)
			if end < 0 {
				return i
			}
			i = end
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return -1
		default:
			at(i)
		}
	}
	return -1
}

// opensQuote reports whether line[i] opens a quoted string: a quote where
// a value may start (it's is a plain word).
func opensQuote(line string, i int) bool {
	return (line[i] == '"' || line[i] == '\'') && (i == 0 || strings.ContainsRune(" \t[{,:-", rune(line[i-1])))
}

// quoteEnd is the offset of the quote that closes the string opening at
// line[start], or -1 when the line does not close it. A double-quoted
// string escapes with \, a single-quoted one writes its quote twice.
func quoteEnd(line string, start int) int {
	q := line[start]
	for i := start + 1; i < len(line); i++ {
		switch {
		case q == '"' && line[i] == '\\':
			i++
		case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++
		case line[i] == q:
			return i
		}
	}
	return -1
}

// afterQuoted is the offset of text that follows a quoted value on the
// line ("x" y), where only a comment, or a ":" after a quoted key, may;
// -1 when there is none.
func afterQuoted(line string) int {
	for i := 0; i < len(line); i++ {
		if !opensQuote(line, i) {
			continue
		}
		end := quoteEnd(line, i)
		if end < 0 {
			return -1
		}
		j := end + 1
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) && !strings.ContainsRune(":,]}#", rune(line[j])) {
			return j
		}
		i = end
	}
	return -1
}

// unclosedQuote is the offset of the quote that opens a string the line
// does not close, or -1.
func unclosedQuote(line string) int { return scanQuoted(line, func(int) {}) }

// mappingColon is the offset of the ": " go-yaml refused: the second
// on the line (a value holding ": "), else the first (a key indented
// under a plain value, read as its continuation).
func mappingColon(line string) int {
	var colons []int
	scanQuoted(line, func(i int) {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ') {
			colons = append(colons, i)
		}
	})
	switch len(colons) {
	case 0:
		return len(line) - len(strings.TrimLeft(line, " "))
	case 1:
		return colons[0]
	}
	return colons[1]
}

// flowCulprit is the offset of the bracket that breaks a flow collection
// on the line: a closing one that does not match, else the last opening
// one left open, or -1.
func flowCulprit(line string) int {
	var stack []int
	bad := -1
	scanQuoted(line, func(i int) {
		switch c := line[i]; {
		case bad >= 0:
		case c == '[' || c == '{':
			stack = append(stack, i)
		case c == ']' || c == '}':
			if len(stack) == 0 || line[stack[len(stack)-1]] != map[byte]byte{']': '[', '}': '{'}[c] {
				bad = i
				return
			}
			stack = stack[:len(stack)-1]
		}
	})
	if bad >= 0 {
		return bad
	}
	if len(stack) > 0 {
		return stack[len(stack)-1]
	}
	return -1
}
