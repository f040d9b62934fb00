package compile

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
)

// appendProse joins each section's paragraphs in statement order, each
// after a blank line, after the section's fixed text if it has one, and
// leaves a section no statement names as it was.
func TestAppendProse(t *testing.T) {
	s := closedsets.Sets{ScopeRules: "Fixed.", StepIdentifiers: "Kept."}
	var prose proseSections
	for _, p := range []struct{ sec, text string }{{"scope_rules", "A."}, {"output", ""}, {"output", "B."}, {"scope_rules", ""}, {"scope_rules", "C."}, {"output", "D."}} {
		prose.add(p.sec, p.text)
	}
	appendProse(&s, prose)
	want := closedsets.Sets{ScopeRules: "Fixed.\n\nA.\n\n\n\nC.", Output: "B.\n\nD.", StepIdentifiers: "Kept."}
	if fmt.Sprintf("%#v", s) != fmt.Sprintf("%#v", want) {
		t.Errorf("got %#v\nwant %#v", s, want)
	}
}

// manyLines is a Language of n statements, one a line, each line's
// format given the statement's index.
func manyLines(n int, line string) []byte {
	var b strings.Builder
	b.WriteString("language \"a/v1\" {\n  title \"A\"\n  capabilities { guides; validate }\n  guide core \"Core\" level=core { body \"# C\" }\n")
	for i := range n {
		fmt.Fprintf(&b, line, i)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

const (
	proseLine      = "  prose scope_rules \"A room name is a plain string %d.\"\n"
	diagnosticLine = "  diagnostic code_%d \"A room name is a plain string.\"\n"
)

// A Language's prose paragraphs cost linear work in their number: each
// was joined to its section by copying the section so far, 35 s of lint
// for 20,000 (docs/performance.md, "Many prose paragraphs"). What a
// compile allocates counts the copying without timing it: 4x the
// paragraphs may allocate at most 6x the bytes; the copying allocated
// 15x from 2,000 to 8,000. -short compiles 1,000 and 4,000, where the
// copying, still most of the bytes, would allocate about 14x.
func TestProseLinear(t *testing.T) {
	allocated := func(n int) uint64 {
		src := manyLines(n, proseLine)
		// The least of three compiles: TotalAlloc is the process's.
		var least uint64
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			Source("p.pdl", src, Options{})
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; least == 0 || d < least {
				least = d
			}
		}
		return least
	}
	n := 2000
	if testing.Short() {
		n = 1000
	}
	small, large := allocated(n), allocated(4*n)
	t.Logf("%d paragraphs allocated %d bytes, %d %d (%.1fx)", n, small, 4*n, large, float64(large)/float64(small))
	if large > 6*small {
		t.Errorf("4x the paragraphs allocated %.1fx the bytes (%d then %d)", float64(large)/float64(small), small, large)
	}
}

// BenchmarkCompileProse compiles a Language of 20,000 prose paragraphs
// and, as the baseline in the same run, one of 20,000 diagnostic codes
// of lines as long, which no copying ever slowed: go test
// ./workbench/compile -run XXX -bench CompileProse (docs/performance.md,
// "Many prose paragraphs").
func BenchmarkCompileProse(b *testing.B) {
	for _, c := range []struct{ name, line string }{{"diagnostic", diagnosticLine}, {"prose", proseLine}} {
		src := manyLines(20_000, c.line)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Source("p.pdl", src, Options{})
			}
		})
	}
}
