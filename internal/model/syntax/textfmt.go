package syntax

import (
	"slices"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// Formatter is a Syntax that prints its programs in a canonical layout.
type Formatter interface {
	// Format returns src in the canonical layout, or the syntax
	// diagnostics (located) that keep it from being read.
	Format(src []byte, maxDepth int) ([]byte, []pilotage.Diagnostic, error)
}

// Format prints a text program canonically: one statement per line, two
// spaces per block, a space around the label's punctuation and after each
// argument's, `} else {` on one line, the output last; expressions as
// written; comments kept (on their own line, or after the statement they
// end the line of) and runs of blank lines kept as one. A call whose
// arguments were on several lines gets one argument per line. Formatting
// formatted text changes nothing.
func (t *textSyntax) Format(src []byte, maxDepth int) ([]byte, []pilotage.Diagnostic, error) {
	doc := &jsonpos.Doc{Src: src}
	var items []*tItem
	d, err := t.read(string(src), doc, maxDepth, func(it *tItem) { items = append(items, it) })
	if err != nil {
		return nil, nil, err
	}
	if d != nil {
		return nil, []pilotage.Diagnostic{*d}, nil
	}
	toks, _ := lex(src, t.ts, maxNesting(maxDepth)) // read lexed it whole
	f := &formatter{t: t, src: src, doc: doc}
	for _, tok := range toks {
		if tok.Type == kComment {
			f.comments = append(f.comments, tok)
		}
	}
	f.items(items, 0)
	f.flush(len(src)+1, 0)
	return []byte(f.b.String()), nil, nil
}

type formatter struct {
	t        *textSyntax
	src      []byte
	doc      *jsonpos.Doc // lines of src, found without rescanning it
	b        strings.Builder
	comments []lexer.Token
	lastLine int // source line of the last thing written, 0 before any
}

func indent(depth int) string { return strings.Repeat("  ", depth) }

// flush writes, each on its own line, the comments before offset off,
// with one blank line where the source had at least one.
func (f *formatter) flush(off, depth int) {
	for len(f.comments) > 0 && f.comments[0].Pos.Offset < off {
		c := f.comments[0]
		f.comments = f.comments[1:]
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
	from := sort.Search(len(f.comments), func(i int) bool { return f.comments[i].Pos.Offset >= int(sp.start) })
	to := sort.Search(len(f.comments), func(i int) bool { return f.comments[i].Pos.Offset >= int(sp.end) })
	f.comments = slices.Delete(f.comments, from, to)
	return string(f.src[sp.start:sp.end])
}

func (f *formatter) items(items []*tItem, depth int) {
	for _, it := range items {
		start, end := int(it.whole.start), int(it.whole.end)
		f.flush(start, depth)
		f.gap(f.doc.Position(start).Line)
		f.b.WriteString(indent(depth))
		f.item(it, depth)
		f.end(end, depth)
	}
}

// end finishes the line of a statement or block that ends at off: the
// comment on the same source line after it, if any.
func (f *formatter) end(off, depth int) {
	line := f.doc.Position(off).Line
	if len(f.comments) > 0 && f.comments[0].Pos.Line == line && f.comments[0].Pos.Offset >= off {
		f.b.WriteString("  " + strings.TrimRight(f.comments[0].Value, " \t\r"))
		f.comments = f.comments[1:]
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
