package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

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

// pending is a finding waiting for the end of its file.
type pending struct {
	f report.Finding
	c cond
}

// findingBuffer keeps at most max findings per rule and condition, the
// first by position, and counts the rest, so memory stays bounded
// however long the trace (report.Cap). Each condition has its own cap:
// findings waiting on a condition that turns out not to hold must not
// take the places of those that stand.
type findingBuffer struct {
	max  int
	caps map[cond]*report.Cap
}

func newFindingBuffer(max int) *findingBuffer {
	return &findingBuffer{max: max, caps: map[cond]*report.Cap{}}
}

// admit offers one finding under c and reports whether it is listed, for
// now; f needs only its rule, section, severity, file and position, so
// the caller builds the message only then (keep), and a trace wrong in
// every entry costs a count per entry, not a message.
func (b *findingBuffer) admit(f report.Finding, c cond) bool {
	k := b.caps[c]
	if k == nil {
		k = report.NewCap(b.max)
		b.caps[c] = k
	}
	return k.Admit(f)
}

// leaveAll counts n findings like f under c, at f's position or after,
// none of them kept, when none would be (report.Cap.LeaveAll), and
// reports whether it did.
func (b *findingBuffer) leaveAll(f report.Finding, c cond, n int) bool {
	k := b.caps[c]
	return k != nil && k.LeaveAll(f, n)
}

// keep completes the finding admit has just listed under c.
func (b *findingBuffer) keep(f report.Finding, c cond) { b.caps[c].Keep(f) }

// resolve returns the findings whose condition holds, the first max of a
// rule by position, plus one finding per rule that had more, saying how
// many were left out (report.Cap). drop lists rules whose findings do
// not apply to this trace at all.
func (b *findingBuffer) resolve(holds func(cond) bool, drop func(rule string) bool, key string) []report.Finding {
	all := report.NewCap(b.max)
	keep := func(rule string) bool { return !drop(rule) }
	for _, c := range []cond{always, ifComplete, ifIncomplete, ifFull, ifSummary} {
		k := b.caps[c]
		if k == nil || !holds(c) {
			continue
		}
		all.Merge(k, keep)
	}
	out := append(all.Take(), all.Left()...)
	key = report.Clip(key)
	for i := range out {
		out[i].Key = key
	}
	return out
}
