// Package guidemd reads the block structure of guide bodies as Markdown
// (CommonMark + GFM tables, with goldmark) within bounds that keep hostile
// bodies cheap, and names
// their topics the way data-model.md §5.2 does: topic t of a guide is the
// section whose heading text, lower-cased with spaces turned into '-',
// equals t.
package guidemd

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Bounds on what is handed to goldmark, whose time grows faster than
// linearly with block nesting and whose syntax tree takes 300 to 550
// bytes for each line, table cell and nested quote or list: 1 MB of
// "- a" lines took 180 MB, a table of 100,000 columns 190 MB. MaxBlocks
// counts those (Blocks), so a tree is at most some 4 MB whatever the
// body's shape. Guides are a few kilobytes of headings, tables and
// prose, so these never bind an honest guide.
const (
	MaxBodyBytes = 1 << 20
	MaxBlocks    = 8192
	MaxNesting   = 32
)

// TooComplexError says why a body was not parsed, and where.
type TooComplexError struct {
	Line    int // 1-based line in the body
	Message string
}

func (e *TooComplexError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// md reads the block structure only. Every reader of guides looks at
// blocks (headings, GFM tables, fenced code) through their source lines,
// never at inline Markdown or link reference definitions, and goldmark is
// quadratic in both: a 200 KB body of "[a](" took 28 s, of '['s then
// ']'s 19 s, and 1 MB of "[a]: b" lines 54 s. So there is no inline
// parser (inline content stays plain text) and no link reference
// definitions (a line "[a]: b" stays a paragraph).
var md = goldmark.New(
	goldmark.WithParser(parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))),
	goldmark.WithExtensions(extension.Table))

// Parse parses body's Markdown blocks, leaving inline content as text. It
// refuses, with a *TooComplexError, a body that Check refuses; it never
// fails otherwise.
func Parse(body []byte) (ast.Node, error) {
	if err := Check(body); err != nil {
		return nil, err
	}
	return md.Parser().Parse(text.NewReader(body)), nil
}

// Check says, as a *TooComplexError, why Parse would refuse body: it is
// over MaxBodyBytes, has more than MaxBlocks lines, table cells and
// nested quotes and lists, or a line nests block containers deeper than
// MaxNesting. It reads body once and allocates nothing, so a writer of a
// guide can ask before anyone parses it.
func Check(body []byte) error {
	return checkHead(body, len(body))
}

// CheckHead is Check of a body of size bytes whose first lines are head:
// Check reads a line at a time, each line counting at least one block,
// so a head of MaxBlocks+1 lines (or the whole body, if shorter) is
// refused as the body would be. A writer of a large guide need not hold
// all of it, or a copy of its text as bytes, to ask.
func CheckHead(head string, size int) error {
	return checkHead(head, size)
}

// bodyText is what Check and CheckHead read.
type bodyText interface{ ~string | ~[]byte }

func checkHead[T bodyText](body T, size int) error {
	if size > MaxBodyBytes {
		return &TooComplexError{Line: 1, Message: fmt.Sprintf("the body is %d bytes; a guide of more than %d bytes is not parsed", size, MaxBodyBytes)}
	}
	blocks := 0
	for n, rest, more := 1, body, true; more; n++ {
		l := rest
		if i := indexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			more = false
		}
		d := nesting(l)
		if d > MaxNesting {
			return &TooComplexError{Line: n, Message: fmt.Sprintf("this line opens %d nested block quotes or lists; at most %d are parsed", d, MaxNesting)}
		}
		// A line holds at most one cell more than it has pipes.
		if blocks += 1 + d + pipes(l); blocks > MaxBlocks {
			return &TooComplexError{Line: n, Message: fmt.Sprintf("the body has more than %d lines, table cells and nested quotes and lists by this line; a guide of more is not parsed", MaxBlocks)}
		}
	}
	return nil
}

// indexByte is the index of the first c in s, or -1.
func indexByte[T bodyText](s T, c byte) int {
	switch s := any(s).(type) {
	case []byte:
		return bytes.IndexByte(s, c)
	case string:
		return strings.IndexByte(s, c)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// pipes counts the '|'s in s.
func pipes[T bodyText](s T) int {
	switch s := any(s).(type) {
	case []byte:
		return bytes.Count(s, []byte{'|'})
	case string:
		return strings.Count(s, "|")
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '|' {
			n++
		}
	}
	return n
}

// nesting counts the block-container markers ("> ", "- ", "* ", "+ ",
// "1. ", "1) ") that open a line; leading indentation counts one level per
// four columns, since list items also nest by indentation alone.
func nesting[T bodyText](line T) int {
	width := 0
	for i := 0; i < len(line); i++ {
		if c := line[i]; c == ' ' {
			width++
		} else if c == '\t' {
			width += 4
		} else {
			break
		}
	}
	if width/4 > MaxNesting {
		return width / 4
	}
	depth, i := 0, 0
	for {
		for j := 0; j < 4 && i < len(line) && (line[i] == ' ' || line[i] == '\t'); j++ {
			i++
		}
		switch {
		case i < len(line) && line[i] == '>':
			i++
		case i+1 < len(line) && (line[i] == '-' || line[i] == '*' || line[i] == '+') && (line[i+1] == ' ' || line[i+1] == '\t'):
			i += 2
		default:
			k := i
			for k < len(line) && k-i < 9 && line[k] >= '0' && line[k] <= '9' {
				k++
			}
			if k == i || k+1 >= len(line) || (line[k] != '.' && line[k] != ')') || (line[k+1] != ' ' && line[k+1] != '\t') {
				return depth
			}
			i = k + 2
		}
		depth++
	}
}

// HeadingText is a heading's source text, its lines joined by spaces.
func HeadingText(h *ast.Heading, src []byte) string {
	parts := make([]string, 0, h.Lines().Len())
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(src))))
	}
	return strings.Join(parts, " ")
}

// Slug is the topic id a heading's text names: lower-cased, spaces as '-'.
func Slug(heading string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(heading)), " ", "-")
}

// Topics returns the topic ids of a parsed body: the slugs of its
// top-level headings, in order.
func Topics(doc ast.Node, src []byte) []string {
	var out []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			out = append(out, Slug(HeadingText(h, src)))
		}
	}
	return out
}
