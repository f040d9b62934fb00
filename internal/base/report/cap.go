package report

import (
	"fmt"
	"slices"
)

// DefaultMaxPerRule is how many findings of one rule one file lists
// before the rest are counted instead: every checking verb's default for
// --max-per-rule.
const DefaultMaxPerRule = 50

// Cap lists at most a number of findings of each rule in each file, in
// the order they are offered, and counts the rest, so a file wrong in
// every line gives a report of bounded size, and a producer that offers
// findings as it goes (replay's stream) keeps bounded memory. What it
// left out is told by one finding per rule and file (Left), in every
// format, so the omission shows and an error left out still fails the
// run. lint, build and replay all cap through it.
type Cap struct {
	max   int
	keys  map[capKey]*capCount
	order []capKey // the keys with findings left out, in order of the first
}

// capHint is the hint of a finding that counts others.
const capHint = "raise --max-per-rule to list them"

type capKey struct{ file, rule string }

type capCount struct {
	listed, left int
	// sum counts those left out: their rule, the sections the first
	// cites, their file, and the gravest severity among them.
	sum Finding
	// mixed is set when those left out do not all cite what the first
	// does: the count then cites the rule's section (Report.addLeft).
	mixed bool
}

// NewCap returns a cap of max findings per rule and file; max is at
// least 1, or nothing would be listed and a failing file could pass.
func NewCap(max int) *Cap {
	return &Cap{max: max, keys: map[capKey]*capCount{}}
}

// Admit counts f and reports whether it is listed. Only its rule,
// section, severity and file are read, so a producer can offer a finding
// before building its message and build it only when it is listed.
func (c *Cap) Admit(f Finding) bool {
	k := capKey{f.File, f.Rule}
	n := c.keys[k]
	if n == nil {
		n = &capCount{}
		c.keys[k] = n
	}
	if n.listed < c.max {
		n.listed++
		return true
	}
	c.leave(k, n, f, 1)
	return false
}

// LeaveAll counts n findings like f as left out when the cap lists no
// more of f's rule and file, as n calls of Admit would, and reports
// whether it did; it counts nothing when Admit would list one. A
// producer with many findings of one kind in a row counts them at once
// (replay, of a steps array of values that are not steps).
func (c *Cap) LeaveAll(f Finding, n int) bool {
	k := capKey{f.File, f.Rule}
	cn := c.keys[k]
	if cn == nil || cn.listed < c.max {
		return false
	}
	c.leave(k, cn, f, n)
	return true
}

// leave counts count findings like f as left out.
func (c *Cap) leave(k capKey, n *capCount, f Finding, count int) {
	if n.left == 0 {
		c.order = append(c.order, k)
		n.sum = Finding{Rule: f.Rule, Section: f.Section, Sections: f.Sections, Severity: f.Severity, File: f.File, Hint: capHint}
	} else {
		if graver(f.Severity, n.sum.Severity) {
			n.sum.Severity = f.Severity
		}
		n.mixed = n.mixed || !slices.Equal(f.AllSections(), n.sum.AllSections())
	}
	n.left += count
}

// Include counts what o left out, of the rules keep accepts, as left out
// by c too. Replay caps the findings that wait on different conditions
// apart and settles those that hold in one cap at the end of the trace.
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
		c.leave(k, n, o.keys[k].sum, o.keys[k].left)
		n.mixed = n.mixed || o.keys[k].mixed
	}
}

// AddListed appends findings a producer has already offered to a cap and
// that cap listed (the PDL compiler under compile.Options.Cap), keeping
// the summary counts in step. Add would offer them again: to the same cap
// that counts each one twice and leaves out half of what was listed. What
// the producer's cap left out reaches the report through r.Cap being that
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
