package replay

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/lint/report"
)

// cond says when a finding holds. A trace's level, outcome and mode may
// come after its steps in the file, so findings that depend on them are
// kept until the whole file has been read and then kept or dropped.
type cond uint8

const (
	always       cond = iota
	ifComplete        // the Run completed (outcome ok: true)
	ifIncomplete      // the Run started and did not complete
	ifFull            // the trace level is full
	ifSummary         // the trace level is summary (or unknown, §1.3)
)

// DefaultMaxPerRule is how many findings of one rule one trace file
// reports before the rest are counted instead of listed. It bounds memory
// on huge broken traces and keeps reports readable.
const DefaultMaxPerRule = 50

// pending is a finding waiting for the end of its file.
type pending struct {
	f report.Finding
	c cond
}

type bucket struct {
	rule string
	c    cond
}

// findingBuffer keeps at most max findings per rule and condition, and
// counts the rest.
type findingBuffer struct {
	max    int
	kept   []pending
	counts map[bucket]int
}

func newFindingBuffer(max int) *findingBuffer {
	return &findingBuffer{max: max, counts: map[bucket]int{}}
}

// admit counts one finding of rule under c and reports whether it is to
// be kept; the caller builds the finding only then, so a trace wrong in
// every entry costs a count per entry, not a message.
func (b *findingBuffer) admit(rule string, c cond) bool {
	k := bucket{rule, c}
	b.counts[k]++
	return b.counts[k] <= b.max
}

func (b *findingBuffer) keep(f report.Finding, c cond) { b.kept = append(b.kept, pending{f, c}) }

// resolve returns the findings whose condition holds, plus one finding per
// rule that had more than max, saying how many were left out. drop lists
// rules whose findings do not apply to this trace at all.
func (b *findingBuffer) resolve(holds func(cond) bool, drop func(rule string) bool, file, key string) []report.Finding {
	var out []report.Finding
	for _, p := range b.kept {
		if holds(p.c) && !drop(p.f.Rule) {
			p.f.Key = key
			out = append(out, p.f)
		}
	}
	extra := map[string]int{}
	var order []string
	for k, n := range b.counts {
		if n > b.max && holds(k.c) && !drop(k.rule) {
			if extra[k.rule] == 0 {
				order = append(order, k.rule)
			}
			extra[k.rule] += n - b.max
		}
	}
	for _, id := range order {
		r := RuleByID(id)
		out = append(out, report.Finding{Rule: id, Section: r.Section, Severity: r.Severity, File: file, Key: key,
			Message: fmt.Sprintf("%d more %s findings in this trace are not listed", extra[id], id),
			Hint:    "raise --max-per-rule to list them"})
	}
	return out
}
