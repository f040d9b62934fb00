package replay

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// TestFindingBufferConditions: findings waiting on different conditions
// are capped apart while the trace streams, so those of a condition that
// does not hold take no place; at the end the ones that hold are listed
// at most max per rule and file, the first by position whatever the
// condition and the order they came in, with one count of the rest
// (report.Cap).
func TestFindingBufferConditions(t *testing.T) {
	b := newFindingBuffer(2)
	offer := func(c cond, rule string, from, n int) {
		for i := range n {
			f := report.Finding{Rule: rule, Section: "5.8.1", Severity: report.Error, File: "t.json", Line: from + i}
			if b.admit(f, c) {
				f.Message = fmt.Sprintf("%s %d", rule, from+i)
				b.keep(f, c)
			}
		}
	}
	offer(ifSummary, RuleLevelContent, 1, 5)
	offer(ifFull, RuleLevelContent, 10, 7)
	offer(always, RuleLevelContent, 3, 3)
	offer(always, RuleEntryOnce, 1, 4)
	full := func(c cond) bool { return c != ifSummary }
	got := b.resolve(full, func(rule string) bool { return rule == RuleEntryOnce }, "run-1")
	var msgs []string
	for _, f := range got {
		if f.Key != "run-1" {
			t.Errorf("%q has key %q", f.Message, f.Key)
		}
		msgs = append(msgs, f.Message)
	}
	// ifFull kept lines 10 and 11 of 7 and always 3 and 4 of 3: the two
	// first by position are listed, though offered last, and 5 + 1 left
	// out by the conditions' caps + 2 by the final one are counted;
	// ifSummary's and the dropped rule's are not.
	want := []string{"level-content 3", "level-content 4", "8 more level-content findings in this file are not listed"}
	if !slices.Equal(msgs, want) {
		t.Errorf("got %q, want %q", msgs, want)
	}
}
