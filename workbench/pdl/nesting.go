package pdl

import (
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// nesting follows a file's blocks as scan reads it, with how their lines
// are indented, so that a brace left out is reported where it is missing
// rather than where the count of braces first goes wrong. A { left out
// shows only at a } far below that closes nothing, and a } left out only
// at the end of the file, while the lines in between parse as statements
// of the wrong block: each then an error of its own ("unknown keyword
// entry in an entry"). Indentation says where the brace was meant: a
// statement whose next line is indented deeper wanted a block, and a line
// indented as far out as a block's own line is outside it. It is only
// read once the braces do not balance, so a file laid out in any other
// way (all at the left margin) is never judged on it.
type nesting struct {
	name string
	open []block
	// first and last are the first and last token of the line being
	// read, line the line it ends on (a raw string or text block ends on
	// a later line than it starts).
	first, last token
	line        int32
	// src is the text being read, for the statement a hint repeats.
	src string
	// wanting is the last statement with no { whose next line is
	// indented deeper, and wantingEnd where its line ends: the statement
	// a } that closes nothing most likely belongs to.
	wanting    token
	wantingEnd int
	// outs are the first line indented out of each indented block, in
	// the order they were read: where a } left out most likely belongs.
	outs []outdent
}

// block is an open block: its { and the column of its line's first
// token, and inner that of the first line inside it (0 until there is
// one). Only a block whose inner lines are indented deeper than its own
// is judged on indentation.
type block struct {
	pos           Pos
	indent, inner int32
	out           bool // a line indented out of it was recorded (outs)
}

// outdent is a line indented out of the block opened at open: at, its
// first token, is a statement (or a }) indented no deeper than the
// block's own line.
type outdent struct {
	open Pos
	at   token
}

// token reads t, a token other than an end of line or a comment.
func (n *nesting) token(t token) {
	if t.pos.Line != n.line {
		n.newLine(t)
	}
	n.last = t
	n.line = t.pos.Line + int32(strings.Count(t.val, "\n"))
}

// newLine reads t, the first token of a line.
func (n *nesting) newLine(t token) {
	closing := t.typ == tokPunct && t.val == "}"
	prev := n.first
	if prev.typ == tokIdent && n.last.val != "{" && n.line == n.last.pos.Line &&
		t.pos.Column > prev.pos.Column && !closing {
		n.wanting, n.wantingEnd = prev, int(n.last.pos.Offset)+len(n.last.val)
	}
	n.first = t
	if len(n.open) == 0 {
		return
	}
	b := &n.open[len(n.open)-1]
	switch col := t.pos.Column; {
	case b.inner == 0:
		if !closing {
			b.inner = col
		}
	case b.out || b.inner <= b.indent:
	case col < b.indent || col == b.indent && !closing:
		b.out = true
		n.outs = append(n.outs, outdent{open: b.pos, at: t})
	}
}

// push opens the block of t, a {.
func (n *nesting) push(t token) {
	n.open = append(n.open, block{pos: t.pos, indent: n.first.pos.Column})
}

// pop closes the innermost block for t, a }; false when none is open, and
// then the finding says which statement most likely lacks its {.
func (n *nesting) pop(t token) (report.Finding, bool) {
	if len(n.open) > 0 {
		n.open = n.open[:len(n.open)-1]
		return report.Finding{}, true
	}
	w := n.wanting
	if w.typ == tokEOF {
		return Errorf(RuleSyntax, t.pos.In(n.name), lexer.Position{},
			"remove it, or add the { it should close", "unmatched }"), false
	}
	n.wanting = token{}
	end := w.pos
	end.Advance(w.val)
	stmt := strings.TrimRight(n.src[w.pos.Offset:n.wantingEnd], " \t")
	return Errorf(RuleSyntax, w.pos.In(n.name), end.In(n.name),
		fmt.Sprintf("add the { it lacks: %s {", clip(stmt)),
		fmt.Sprintf("%s has no {, yet the lines after it are indented as its block: the } at %d:%d closes nothing",
			w.val, t.pos.Line, t.pos.Column)), false
}

// unclosed reports the blocks still open at the end of the file, one
// finding each: at the { of each block a line was indented out of, first
// to last, with that line as where its } most likely belongs, when there
// are as many of them; otherwise at each open {.
func (n *nesting) unclosed() []report.Finding {
	var fs []report.Finding
	if len(n.outs) >= len(n.open) {
		for _, o := range n.outs[:len(n.open)] {
			where := fmt.Sprintf("where %s is indented as a statement outside the block", clip(o.at.val))
			if o.at.val == "}" && o.at.typ == tokPunct {
				where = "whose } is indented as an outer block's"
			}
			fs = append(fs, Errorf(RuleSyntax, o.open.In(n.name), lexer.Position{},
				fmt.Sprintf("add the } that closes it, most likely before line %d, %s", o.at.pos.Line, where),
				"block is never closed"))
		}
		return fs
	}
	for i := len(n.open) - 1; i >= 0; i-- {
		fs = append(fs, Errorf(RuleSyntax, n.open[i].pos.In(n.name), lexer.Position{},
			"add the } that closes it", "block is never closed"))
	}
	return fs
}
