package replay

import (
	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Seen is a trace entry as replay read it, handed to Options.OnStep so a
// report can lay the trace over its plan while it streams past, without
// reading the file twice or holding its entries.
type Seen struct {
	// ID is the entry's id, "" when it has none or the entry is not an
	// object of the right shape.
	ID string
	// Index is the entry's place in the trace's steps, as the pointers
	// of findings about it give it (/trace/steps/Index).
	Index int
	// Status is the step outcome's, "" without one.
	Status string
	// TMs is the step's duration (t_ms), -1 when absent or not a number
	// ≥ 0.
	TMs       float64
	Decisions []pilotage.Decision
}

// TraceSeen is what a trace file said of its Run, handed to
// Options.OnTrace when the file has been read and checked.
type TraceSeen struct {
	File  string
	RunID string
	// Level is the trace's level, "" when it has none or it is not a
	// string, or a string too long to be a level: replay checks such a
	// string, quotes its start in a trace-level finding, and keeps no
	// more of it.
	Level    string
	Outcome  *pilotage.Outcome
	Entries  int
	Findings []report.Finding
}

// seen builds an entry's Seen.
func seen(e *entry) *Seen {
	s := &Seen{TMs: -1, Index: e.index}
	if e.bad != nil {
		return s
	}
	w := &e.w
	if w.ID != nil {
		s.ID = *w.ID
	}
	s.Decisions = w.Decisions
	if o := w.Outcome; o != nil && o.Status != nil {
		s.Status = *o.Status
	}
	if w.TMs.set {
		s.TMs = w.TMs.v
	}
	return s
}

// traceSeen builds a file's TraceSeen from the members it had.
func traceSeen(file string, s *stream, fs []report.Finding) *TraceSeen {
	t := s.trace()
	ts := &TraceSeen{File: file, Entries: s.entries, Findings: fs}
	ts.RunID, _ = stringOf(t.runID)
	if ts.RunID == "" {
		ts.RunID, _ = stringOf(s.top.runID)
	}
	ts.Level, _ = stringOf(t.level)
	out := t.outcome
	if out == nil {
		out = s.top.outcome
	}
	if o, ok := outcomeOf(out); ok {
		ts.Outcome = &pilotage.Outcome{OK: *o.OK, Status: *o.Status, Error: o.Error}
	}
	return ts
}
