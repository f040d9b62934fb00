package syntax

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// Formatter is a Syntax that prints its programs in a canonical layout.
type Formatter interface {
	// Format returns src in the canonical layout, or the syntax
	// diagnostics (located) that keep it from being read.
	Format(src []byte, maxDepth int) ([]byte, []pilotage.Diagnostic, error)
}

// Format prints a text program canonically: one statement per line, two
// spaces per block up to 8 (maxIndent), a space around the label's punctuation and after each
// argument's, `} else {` on one line, the output last; expressions as
// written; comments kept (on their own line, or after the statement they
// end the line of) and runs of blank lines kept as one. A call whose
// arguments were on several lines gets one argument per line. Formatting
// formatted text changes nothing. A program with more statements than
// the Language's steps limit is not formatted: it is the
// *program.LimitError validate gives, at the first statement past the
// limit.
func (t *textSyntax) Format(src []byte, maxDepth int) ([]byte, []pilotage.Diagnostic, error) {
	doc := &jsonpos.Doc{Src: src}
	text := string(src)
	f := &formatter{t: t, src: src, doc: doc, comments: comments{sc: newScanner(text, t.ts, maxNesting(maxDepth)), last: -1}}
	// Each top-level statement is written as it is read and then let
	// go, so fmt holds what read holds and the text it writes.
	d, err := t.read(text, doc, maxDepth, func(it *tItem) *program.LimitError {
		f.statement(it, 0)
		return f.over
	})
	switch {
	case err != nil:
		return nil, nil, err
	case d != nil:
		return nil, []pilotage.Diagnostic{*d}, nil
	}
	f.flush(len(src)+1, 0)
	return f.b.Bytes(), nil, nil
}

type formatter struct {
	t        *textSyntax
	src      []byte
	doc      *jsonpos.Doc // lines of src, found without rescanning it
	b        bytes.Buffer
	comments comments
	lastLine int // source line of the last thing written, 0 before any
	// steps counts the statements written that are steps, as the
	// builder does; over is the limit error at the first past the
	// Language's steps limit, after which nothing is written.
	steps  int
	output bool // the top-level output is written: what follows is no step
	over   *program.LimitError
}

// comments are the program's comments, scanned from the text no further
// than the formatter asks: ahead holds the ones scanned and not yet
// written or dropped, so fmt never holds a token for each byte of the
// text. last is the offset of the last token scanned.
type comments struct {
	sc    *scanner
	ahead []lexer.Token
	last  int
	done  bool
}

// scan reads one token, keeping it when it is a comment that does not
// start in [dropFrom, dropTo); false at the end of the text (read has
// lexed it all without error).
func (c *comments) scan(dropFrom, dropTo int) bool {
	if c.done {
		return false
	}
	tok, err := c.sc.Next()
	if err != nil || tok.EOF() {
		c.done = true
		return false
	}
	c.last = tok.Pos.Offset
	if tok.Type == kComment && (tok.Pos.Offset < dropFrom || tok.Pos.Offset >= dropTo) {
		c.ahead = append(c.ahead, tok)
	}
	return true
}

// before is the first comment not yet taken if it starts before offset
// off, scanning for it no further; nil when there is none.
func (c *comments) before(off int) *lexer.Token {
	for len(c.ahead) == 0 && c.last < off && c.scan(0, 0) {
	}
	if len(c.ahead) == 0 || c.ahead[0].Pos.Offset >= off {
		return nil
	}
	return &c.ahead[0]
}

// drop scans past the bytes [start, end), an expression, leaving out
// the comments in them, which are part of its text.
func (c *comments) drop(start, end int) {
	from := sort.Search(len(c.ahead), func(i int) bool { return c.ahead[i].Pos.Offset >= start })
	to := sort.Search(len(c.ahead), func(i int) bool { return c.ahead[i].Pos.Offset >= end })
	c.ahead = slices.Delete(c.ahead, from, to)
	for c.last < end && c.scan(start, end) {
	}
}

// next is the first comment not yet taken, scanning ahead for it no
// further than the end of source line line; nil when there is none.
func (c *comments) next(line int) *lexer.Token {
	for len(c.ahead) == 0 && c.sc.pos.Line <= line && c.scan(0, 0) {
	}
	if len(c.ahead) == 0 {
		return nil
	}
	return &c.ahead[0]
}

// pop takes the first comment; an emptied queue keeps its room, so a
// text of comments is not an allocation per comment.
func (c *comments) pop() {
	if len(c.ahead) == 1 {
		c.ahead = c.ahead[:0]
		return
	}
	c.ahead = c.ahead[1:]
}

// maxIndent is the deepest block a line is indented for: the lines of
// blocks nested deeper stay at its 16 spaces. Indenting each level made
// a program of 127 nested ifs around 9,000 six-byte calls 43 times its
// size in fmt's output, 254 spaces a line; past 8 levels the braces, not
// the margin, show the nesting, and a line is at most 16 bytes longer
// than its text.
const maxIndent = 8

func indent(depth int) string { return strings.Repeat("  ", min(depth, maxIndent)) }

// flush writes, each on its own line, the comments before offset off,
// with one blank line where the source had at least one.
func (f *formatter) flush(off, depth int) {
	for {
		next := f.comments.before(off)
		if next == nil {
			return
		}
		c := *next
		f.comments.pop()
		f.gap(c.Pos.Line)
		f.b.WriteString(indent(depth) + strings.TrimRight(c.Value, " \t\r") + "\n")
		f.lastLine = c.Pos.Line
	}
}

// gap writes a blank line when line is more than one past the last.
func (f *formatter) gap(line int) {
	if f.lastLine > 0 && line > f.lastLine+1 {
		f.b.WriteString("\n")
	}
}

// text is an expression as written; the comments inside it go with it.
func (f *formatter) text(sp span) string {
	f.comments.drop(int(sp.start), int(sp.end))
	return string(f.src[sp.start:sp.end])
}

func (f *formatter) items(items []*tItem, depth int) {
	for _, it := range items {
		f.statement(it, depth)
	}
}

// statement writes a statement on its own line(s), unless the steps
// limit is passed.
func (f *formatter) statement(it *tItem, depth int) {
	if f.overSteps(it, depth) {
		return
	}
	start, end := int(it.whole.start), int(it.whole.end)
	f.flush(start, depth)
	f.gap(f.doc.Position(start).Line)
	f.b.WriteString(indent(depth))
	f.item(it, depth)
	f.end(end, depth)
}

// overSteps counts the step a statement is, as the builder counts them
// (statements after the top-level output are none), and reports whether
// the steps limit is passed, by it or before: the program is then the
// limit error validate gives, not text to write.
func (f *formatter) overSteps(it *tItem, depth int) bool {
	switch {
	case f.over != nil:
		return true
	case depth == 0 && it.Output != nil:
		f.output = true
	case it.Output == nil:
		f.count(it.whole)
	}
	return f.over != nil
}

// count counts one step, the statement at sp.
func (f *formatter) count(sp span) {
	if f.output {
		return
	}
	if f.steps == f.t.steps && f.over == nil {
		f.over = f.t.tooManySteps(f.doc, sp)
	}
	f.steps++
}

// end finishes the line of a statement or block that ends at off: the
// comment on the same source line after it, if any.
func (f *formatter) end(off, depth int) {
	line := f.doc.Position(off).Line
	if c := f.comments.next(line); c != nil && c.Pos.Line == line && c.Pos.Offset >= off {
		f.b.WriteString("  " + strings.TrimRight(c.Value, " \t\r"))
		f.comments.pop()
	}
	f.b.WriteString("\n")
	f.lastLine = line
}

func (f *formatter) item(it *tItem, depth int) {
	ts := f.t.ts
	if it.Label != nil {
		f.b.WriteString(it.Label.Name + " " + ts.Assign + " ")
	}
	switch {
	case it.Output != nil:
		f.b.WriteString(ts.Output + " " + f.text(it.Output.sp))
	case it.Call != nil:
		f.call(it.Call, depth)
	case it.Run != nil:
		f.b.WriteString(ts.Run + " ")
		f.call(it.Run, depth)
	case it.If != nil:
		f.branch(it.If, depth)
	case it.For != nil:
		f.b.WriteString(ts.For + " " + it.For.Item.Name + " " + ts.In + " " + f.text(it.For.List.sp) + " ")
		f.block(it.For.Body, depth)
	}
}

func (f *formatter) call(c *tCall, depth int) {
	bind := f.t.ts.Bind + " "
	if bind != ": " {
		bind = " " + bind
	}
	f.b.WriteString(c.Target.Name + "(")
	sp := c.Args.sp
	multi := strings.Contains(string(f.src[sp.start:sp.end]), "\n") && len(c.Args.List) > 0
	for i, a := range c.Args.List {
		switch {
		case multi:
			f.b.WriteString("\n" + indent(depth+1))
		case i > 0:
			f.b.WriteString(", ")
		}
		f.b.WriteString(string(f.src[a.Name.start:a.Name.end]) + bind + f.text(a.Value))
		if multi {
			f.b.WriteString(",")
		}
	}
	if multi {
		f.b.WriteString("\n" + indent(depth))
	}
	// Comments between the arguments, outside any expression, follow
	// the statement on their own lines.
	f.b.WriteString(")")
}

func (f *formatter) branch(n *tIf, depth int) {
	ts := f.t.ts
	f.b.WriteString(ts.If + " " + f.text(n.Cond.sp) + " ")
	f.block(n.Then, depth)
	switch {
	case n.ElseIf != nil:
		f.count(n.ElseIf.whole) // else IF is an else arm holding one branch step
		f.b.WriteString(" " + ts.Else + " ")
		f.branch(n.ElseIf, depth)
	case n.Else != nil:
		f.b.WriteString(" " + ts.Else + " ")
		f.block(n.Else, depth)
	}
}

// block writes "{", its statements one level deeper, and "}" (without
// the line end, which the statement's end writes).
func (f *formatter) block(bl *tBlock, depth int) {
	sp := bl.whole
	f.b.WriteString("{")
	f.end(int(sp.start)+1, depth+1)
	f.items(bl.Items, depth+1)
	f.flush(int(sp.end)-1, depth+1)
	f.b.WriteString(indent(depth) + "}")
}
