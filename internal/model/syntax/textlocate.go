package syntax

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// locate gives each diagnostic its text range (§5.5): the token, value or
// statement its JSON Pointer names (or the nearest enclosing one that
// exists in the text; "" is the whole program), narrowed to its range
// inside an expression. A diagnostic that already has a range keeps it.
func (b *builder) locate(diags []pilotage.Diagnostic) []pilotage.Diagnostic {
	out := make([]pilotage.Diagnostic, len(diags))
	for i, d := range diags {
		if d.Path.Text == nil {
			sp := b.find(d.Path.Pointer, d.Range)
			d.Path = textPath(b.doc, int(sp.start), int(sp.end))
		}
		d.Range = nil
		out[i] = d
	}
	return out
}

// spanOf is locate's range as lines and columns, the end left out when
// it is on another line.
func (b *builder) spanOf(d pilotage.Diagnostic) (start, end pilotage.LineCol) {
	r := b.locate([]pilotage.Diagnostic{d})[0].Path.Text
	start = r.Start
	if r.End.Line == r.Start.Line {
		end = r.End
	}
	return start, end
}

// place names where ptr is in the text for a message: the line and
// column where what it names starts (a step's statement, its label).
func (b *builder) place(ptr string) string {
	at := b.doc.Position(int(b.find(ptr, nil).start))
	return fmt.Sprintf("line %d, column %d", at.Line, at.Column)
}

// find is the span of what ptr names, with r (a range inside the
// expression ptr names, if any) narrowing it: the step ptr is in is
// found in the program, and its statement read again.
func (b *builder) find(ptr string, r *pilotage.CharRange) span {
	whole := between(0, len(b.text))
	segs := strings.Split(ptr, "/")[1:]
	switch {
	case len(segs) >= 1 && segs[0] == "output" && b.prog.Output != nil:
		it := b.reread(b.outputAt)
		if len(segs) == 1 && r != nil {
			return b.within(it.Output.sp, r)
		}
		return it.whole
	case len(segs) < 2 || segs[0] != "steps":
		return whole
	}
	s := at(b.prog.Steps, segs[1])
	if s == nil {
		return whole
	}
	rest := segs[2:]
	for len(rest) >= 2 {
		inner := b.child(s, rest[0], rest[1])
		if inner == nil {
			break
		}
		s, rest = inner, rest[2:]
	}
	return b.member(s, b.reread(b.startOf(s)), rest, r)
}

// at is the step of steps at index seg, written as the JSON Pointer
// writes it; nil when there is none.
func at(steps []*program.Step, seg string) *program.Step {
	i, err := strconv.Atoi(seg)
	if err != nil || i < 0 || i >= len(steps) || strconv.Itoa(i) != seg {
		return nil
	}
	return steps[i]
}

// child is the step at index seg of s's sequence named member.
func (b *builder) child(s *program.Step, member, seg string) *program.Step {
	g := b.t.g
	switch {
	case s.Kind == program.Branch && len(g.Arms) == 2 && member == g.Arms[1]:
		return at(s.Arms[1], seg)
	case s.Kind == program.Branch && len(g.Arms) == 2 && member == g.Arms[0]:
		return at(s.Arms[0], seg)
	case s.Kind == program.Loop && member == g.Body:
		return at(s.Body, seg)
	}
	return nil
}

// member is the span of rest, the members under step s, in its
// statement it: where a member is named twice (a grammar leaving
// a construct's members empty), the one the JSON form writes last.
func (b *builder) member(s *program.Step, it *tItem, rest []string, r *pilotage.CharRange) span {
	if len(rest) == 0 {
		return it.whole
	}
	g, m := b.t.g, rest[0]
	exact := len(rest) == 1
	switch s.Kind {
	case program.Call, program.Run:
		c, target, args := it.Call, g.Call, g.Args
		if s.Kind == program.Run {
			c, target, args = it.Run, g.Run, g.RunArgs
		}
		switch m {
		case args:
			if exact {
				return c.Args.sp
			}
			for _, a := range c.Args.List {
				if b.str(a.Name) == rest[1] {
					return b.expression(a.Value, len(rest) == 2, r)
				}
			}
			return c.Args.sp
		case target:
			return c.Target.sp
		}
	case program.Branch:
		n := it.If
		switch {
		case len(g.Arms) == 2 && m == g.Arms[1] && n.ElseIf != nil:
			return n.ElseIf.whole
		case len(g.Arms) == 2 && m == g.Arms[1] && n.Else != nil:
			return n.Else.whole
		case len(g.Arms) == 2 && m == g.Arms[0]:
			return n.Then.whole
		case m == g.Branch:
			return b.expression(n.Cond.sp, exact, r)
		}
	case program.Loop:
		n := it.For
		switch m {
		case g.Body:
			return n.Body.whole
		case g.Item:
			return n.Item.sp
		case g.Loop:
			return b.expression(n.List.sp, exact, r)
		}
	}
	if m == "id" {
		if it.Label != nil {
			return it.Label.sp
		}
		return it.first
	}
	return it.whole
}

// expression is the span of the expression at sp, or of the range r
// inside it when the pointer named the expression itself.
func (b *builder) expression(sp span, exact bool, r *pilotage.CharRange) span {
	if exact && r != nil {
		return b.within(sp, r)
	}
	return sp
}

// within is the range r of the expression at sp, given in code points
// of the text CEL read, in the program text.
func (b *builder) within(sp span, r *pilotage.CharRange) span {
	_, ins := b.render(sp)
	start := int(sp.start)
	text := b.text[start:sp.end]
	return between(start+original(text, ins, r.Start), start+original(text, ins, r.End))
}

// original maps a code-point offset into an expression as CEL read it to
// a byte offset of its text as written: past each inserted "steps." the
// offsets shift back, and inside one they are the label's start.
func original(text string, ins []int, r int) int {
	b := []byte(text)
	n := utf8.RuneCountInString(stepsPrefix)
	shift := 0
	for k, o := range ins {
		at := o + n*k // where insertion k starts in the text CEL read
		if r < at {
			break
		}
		if r < at+n {
			return runeOffset(b, o)
		}
		shift = n * (k + 1)
	}
	return runeOffset(b, r-shift)
}

// startOf is the offset of step s's statement.
func (b *builder) startOf(s *program.Step) int32 {
	b.indexOnce.Do(func() {
		b.index = make(map[*program.Step]int, len(b.starts))
		program.Walk(b.prog.Steps, func(s *program.Step) { b.index[s] = len(b.index) })
	})
	return b.starts[b.index[s]]
}

// reread is the statement at offset start, read again: it read the first
// time, so it reads the same (and within the depth limit).
func (b *builder) reread(start int32) *tItem {
	it, _ := newReader(newStream(rescan(b.text, b.t.ts, int(start)), 2*kept+1), math.MaxInt).item()
	return it
}
