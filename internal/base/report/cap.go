package report

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"
)

// DefaultMaxPerRule is how many findings of one rule one file lists
// before the rest are counted instead: every checking verb's default for
// --max-per-rule.
const DefaultMaxPerRule = 50

// Cap lists at most a number of findings of each rule in each file, the
// first by position (line, then column, then the order offered), and
// counts the rest, so a file wrong in every line gives a report of
// bounded size, and a producer that offers findings as it goes
// (replay's stream) keeps bounded memory: the cap holds, for each rule
// and file, the findings it lists so far in a max-heap by position, and
// a finding offered before the last of a full one takes the last's
// place, which is then counted. What it left out is told by one finding
// per rule and file (Left), in every format, so the omission shows and
// an error left out still fails the run. A finding found after those
// listed but placed before them (a trace's "has no level", known at its
// end, placed at its start) is listed as it would be had it come first.
// lint, build and replay all cap through it.
//
// A producer that places a finding only once it is listed (a search of
// the document) offers it at position zero (Line and Column 0): such
// findings are listed in the order offered, as the first of a document
// a checker walks in order.
type Cap struct {
	max   int
	keys  map[capKey]*capCount
	order []capKey // the keys with findings left out, in order of the first
	last  *held    // the finding Admit last listed, which Keep completes
}

// admitted numbers the findings every cap admits, in order: it orders
// those at one position, and the findings Take hands on, across caps
// (Merge).
var admitted atomic.Int64

// capHint is the hint of a finding that counts others.
const capHint = "raise --max-per-rule to list them"

type capKey struct{ file, rule string }

type capCount struct {
	// listed is a max-heap by position (after): listed[0] is the last
	// listed, the first to leave for a finding before it.
	listed []*held
	tally
}

// tally counts the findings of one rule and file left out.
type tally struct {
	left int
	// sum counts those left out: their rule, the sections the first
	// cites, their file, and the gravest severity among them.
	sum Finding
	// mixed is set when those left out do not all cite what the first
	// does: the count then cites the rule's section (Report.addLeft).
	mixed bool
}

// add counts count findings like f and reports whether they are the
// first counted.
func (t *tally) add(f *Finding, count int) (first bool) {
	first = t.left == 0
	if first {
		t.sum = Finding{Rule: f.Rule, Section: f.Section, Sections: f.Sections, Severity: f.Severity, File: f.File, Hint: capHint}
	} else {
		if graver(f.Severity, t.sum.Severity) {
			t.sum.Severity = f.Severity
		}
		t.mixed = t.mixed || !slices.Equal(f.AllSections(), t.sum.AllSections())
	}
	t.left += count
	return first
}

// held is a finding a cap lists, at the position it was offered at.
type held struct {
	line, col, seq int
	f              Finding
	// taken is set once Take has handed f on: it stays listed, and
	// counts among the max, but no later finding takes its place.
	taken bool
}

// after reports whether a comes after b in a cap's order: by line, then
// column, then the order admitted.
func (a *held) after(b *held) bool {
	return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col), cmp.Compare(a.seq, b.seq)) > 0
}

// NewCap returns a cap of max findings per rule and file; max is at
// least 1, or nothing would be listed and a failing file could pass.
func NewCap(max int) *Cap {
	return &Cap{max: max, keys: map[capKey]*capCount{}}
}

// count returns the counts of f's rule and file, made on first use.
func (c *Cap) count(f *Finding) (capKey, *capCount) {
	k := capKey{f.File, f.Rule}
	n := c.keys[k]
	if n == nil {
		n = &capCount{}
		c.keys[k] = n
	}
	return k, n
}

// full reports whether n lists max findings and a finding offered at
// line:col now is not listed: the last listed is at or before line:col
// (one offered there now comes after it), or handed on already.
func (c *Cap) full(n *capCount, line, col int) bool {
	if len(n.listed) < c.max {
		return false
	}
	top := n.listed[0]
	return top.taken || cmp.Or(cmp.Compare(line, top.line), cmp.Compare(col, top.col)) >= 0
}

// Admit offers f and reports whether it is listed, for now: the cap
// holds it, and a finding offered later before it may still take its
// place, which counts it then. f's rule, section, severity, file and
// position are read; a producer that builds a finding's message only
// once it is listed offers one without and gives the whole finding to
// Keep right after, at the position offered (which orders it). A
// finding not listed is counted.
func (c *Cap) Admit(f Finding) bool {
	k, n := c.count(&f)
	if c.full(n, f.Line, f.Column) {
		c.leave(k, n, &f, 1)
		c.last = nil
		return false
	}
	c.hold(k, n, held{line: f.Line, col: f.Column, seq: int(admitted.Add(1)), f: f})
	return true
}

// hold lists h, the last listed of n leaving when n is full (full has
// said h comes before it): h is held in its place, so a cap that lists
// one finding in place of another allocates nothing.
func (c *Cap) hold(k capKey, n *capCount, h held) {
	if len(n.listed) < c.max {
		c.last = new(held)
		*c.last = h
		n.listed = append(n.listed, c.last)
		up(n.listed, len(n.listed)-1)
		return
	}
	c.last = n.listed[0]
	c.leave(k, n, &c.last.f, 1)
	*c.last = h
	down(n.listed, 0)
}

// Keep puts f in place of the finding Admit has just listed (f's
// position orders it as that one's did) and returns where the cap holds
// it, for the producer to complete before it offers another finding
// (which may take its place); nil, keeping nothing, when Admit has just
// left one out.
func (c *Cap) Keep(f Finding) *Finding {
	if c.last == nil {
		return nil
	}
	c.last.f = f
	return &c.last.f
}

// up and down restore the max-heap h (after) above and below i.
func up(h []*held, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].after(h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func down(h []*held, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && h[l].after(h[m]) {
			m = l
		}
		if r := l + 1; r < len(h) && h[r].after(h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Take hands on the findings listed and not handed on before, in the
// order offered. They stay counted as listed: a finding offered after is
// listed only while its rule's list in its file has room.
func (c *Cap) Take() []Finding {
	hs := c.untaken(func(string) bool { return true })
	out := make([]Finding, len(hs))
	for i, h := range hs {
		out[i] = h.f
		h.taken, h.f = true, Finding{}
	}
	return out
}

// untaken returns what c lists and has not handed on, of the rules keep
// accepts, in the order offered.
func (c *Cap) untaken(keep func(rule string) bool) []*held {
	var hs []*held
	for k, n := range c.keys {
		if !keep(k.rule) {
			continue
		}
		for _, h := range n.listed {
			if !h.taken {
				hs = append(hs, h)
			}
		}
	}
	slices.SortFunc(hs, func(a, b *held) int { return cmp.Compare(a.seq, b.seq) })
	return hs
}

// LeaveAll counts n findings like f as left out when none would be
// listed, as n calls of Admit would, and reports whether it did; it
// counts nothing when Admit would list f. The n are at f's position or
// after, offered after every finding so far. A producer with many
// findings of one kind in a row counts them at once (replay, of a steps
// array of values that are not steps).
func (c *Cap) LeaveAll(f Finding, n int) bool {
	k := capKey{f.File, f.Rule}
	cn := c.keys[k]
	if cn == nil || !c.full(cn, f.Line, f.Column) {
		return false
	}
	c.leave(k, cn, &f, n)
	return true
}

// leave counts count findings like f as left out.
func (c *Cap) leave(k capKey, n *capCount, f *Finding, count int) {
	if n.add(f, count) {
		c.order = append(c.order, k)
	}
}

// Merge offers c what o lists and has not handed on, of the rules keep
// accepts, at the positions and in the order they were offered to o
// (Take hands on all of them in the order offered to either), and
// counts what o left out of those rules (Include). Replay caps the
// findings that wait on different conditions apart and settles those
// that hold in one cap at the end of the trace.
func (c *Cap) Merge(o *Cap, keep func(rule string) bool) {
	for _, h := range o.untaken(keep) {
		k, n := c.count(&h.f)
		if len(n.listed) == c.max && (n.listed[0].taken || !n.listed[0].after(h)) {
			c.leave(k, n, &h.f, 1)
			continue
		}
		c.hold(k, n, held{line: h.line, col: h.col, seq: h.seq, f: h.f})
	}
	c.Include(o, keep)
}

// Include counts what o left out, of the rules keep accepts, as left out
// by c too: pdllint counts the PDL compiler's with lint's.
func (c *Cap) Include(o *Cap, keep func(rule string) bool) {
	for _, k := range o.order {
		if !keep(k.rule) {
			continue
		}
		n := c.keys[k]
		if n == nil {
			n = &capCount{}
			c.keys[k] = n
		}
		c.leave(k, n, &o.keys[k].sum, o.keys[k].left)
		n.mixed = n.mixed || o.keys[k].mixed
	}
}

// AddListed appends findings a cap listed and handed on (Take: the PDL
// compiler's under compile.Options.Cap, lint's), keeping the summary
// counts in step. Add would offer them again: to the same cap that
// counts each one twice and leaves out half of what was listed. What the
// producer's cap left out reaches the report through r.Cap being that
// cap, or through r.Cap.Include.
func (r *Report) AddListed(fs ...Finding) {
	for _, f := range fs {
		r.Findings = append(r.Findings, f)
		r.count(f, 1)
	}
}

// Left returns one finding per rule and file that had findings left out,
// saying how many, in the order the first of them was left out. Each
// cites what the first it counts cites (Report.addLeft puts the rule's
// section in when they differ: cited).
func (c *Cap) Left() []Finding {
	out := make([]Finding, 0, len(c.order))
	for _, k := range c.order {
		n := c.keys[k]
		f := n.sum
		f.Message = fmt.Sprintf("%d more %s findings in this file are not listed", n.left, k.rule)
		out = append(out, f)
	}
	return out
}

// cited reports whether every finding f, of Left, counts cites what f
// cites.
func (c *Cap) cited(f Finding) bool {
	n := c.keys[capKey{f.File, f.Rule}]
	return n != nil && !n.mixed
}

// CountsLeft reports whether f is a cap's count of findings it left out
// (Left), not a finding of the input: one who quotes a report's first
// error skips it.
func (f Finding) CountsLeft() bool { return f.Line == 0 && f.Hint == capHint }

// graver reports whether severity a outranks b (error, warning, info).
func graver(a, b Severity) bool {
	rank := func(s Severity) int {
		switch s {
		case Error:
			return 2
		case Warning:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}
