package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// malformedTrace is a trace with no run_id, level or outcome, whose
// steps are n values that are not steps, one a line, every seventh an
// object without an id: trace-shape findings at each entry, and the
// document-level ones ("trace has no level"), placed at the trace's
// start but known only at its end.
func malformedTrace(n int) string {
	var b strings.Builder
	b.WriteString("{\"steps\": [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i%7 == 3 {
			b.WriteString(`{"calls": []}`)
		} else {
			b.WriteString("1")
		}
	}
	b.WriteString("\n]}\n")
	return b.String()
}

// listed is the findings of res that are not counts, as
// "rule@line:col pointer: message".
func listed(res Result) []string {
	var out []string
	for _, f := range res.Findings {
		if !f.CountsLeft() {
			out = append(out, fmt.Sprintf("%s@%d:%d %s: %s", f.Rule, f.Line, f.Column, f.Pointer, f.Message))
		}
	}
	slices.Sort(out)
	return out
}

// TestBigTraceListsFirstByPosition: a trace over sourceLimit, streamed,
// lists the first --max-per-rule trace-shape findings by position, as
// the same trace cut to a small file does: the document-level findings,
// which the walk knows only at the end, among them, and the same steps
// after them, though hundreds of thousands more were found first. Only
// the count differs.
func TestBigTraceListsFirstByPosition(t *testing.T) {
	plan := basePlan(t)
	small := malformedTrace(120)
	sres := Replay(plan, "t.json", strings.NewReader(small), Options{})
	if sres.Source == nil {
		t.Fatal("the small trace was not kept whole")
	}
	s := listed(sres)
	for _, m := range []string{"run_id", "level", "outcome"} {
		want := "trace-shape@1:1 : trace has no " + m
		if !slices.Contains(s, want) {
			t.Errorf("the small trace does not list %q", want)
		}
	}
	if testing.Short() {
		t.Skip("the 1.2 MB trace: the full suite's")
	}
	big := malformedTrace(400_000)
	if len(big) <= sourceLimit {
		t.Fatalf("%d bytes is not over sourceLimit", len(big))
	}
	bres := Replay(plan, "t.json", strings.NewReader(big), Options{})
	if bres.Source != nil {
		t.Fatal("the big trace was kept whole")
	}
	b := listed(bres)
	if len(b) != report.DefaultMaxPerRule {
		t.Errorf("the big trace lists %d findings, want %d", len(b), report.DefaultMaxPerRule)
	}
	if !slices.Equal(s, b) {
		t.Errorf("the big trace lists\n%s\nthe small one\n%s", strings.Join(b, "\n"), strings.Join(s, "\n"))
	}
	var count string
	for _, f := range bres.Findings {
		if f.CountsLeft() {
			count = f.Message
		}
	}
	if want := fmt.Sprintf("%d more trace-shape findings in this file are not listed", 400_000+3-report.DefaultMaxPerRule); count != want {
		t.Errorf("count %q, want %q", count, want)
	}
}
