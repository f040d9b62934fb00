package testcase

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

func nested(depth int, inner string) json.RawMessage {
	return json.RawMessage(strings.Repeat(`[`, depth) + inner + strings.Repeat(`]`, depth))
}

func diags(n int) []DiagWant {
	ds := make([]DiagWant, n)
	for i := range ds {
		ds[i] = DiagWant{Code: "syntax", Path: fmt.Sprintf("/steps/%d", i), Message: "the step has no construct member"}
	}
	return ds
}

// TestDiffShapes: where want and got first differ, and a bounded window
// of each there; golden in testdata/diff.golden.
func TestDiffShapes(t *testing.T) {
	checkDiffs(t, "testdata/diff.golden", []namedDiff{
		{"small values whole", Diff(json.RawMessage(`{"a": [1, 2], "b": "x"}`), json.RawMessage(`{"a": [1, 3], "b": "x"}`))},
		{"a missing member", Diff(json.RawMessage(`{"a": 1, "b": 2}`), json.RawMessage(`{"a": 1}`))},
		{"numbers by value", Diff(json.RawMessage(`[1.0, 2]`), json.RawMessage(`[1, 3]`))},
		{"a number and an output nested 9,990 deep", Diff(json.RawMessage(`1`), nested(9990, "1"))},
		{"nested 9,990 deep, differing at the bottom", Diff(nested(9990, "1"), nested(9990, "2"))},
		{"a long string", Diff(json.RawMessage(`"short"`), strings.Repeat("é", 1000))},
		{"a wide array", Diff(json.RawMessage(`[]`), json.RawMessage("["+strings.Repeat("1,", 100000)+"1]"))},
		{"wide objects", Diff(json.RawMessage(`{"k": {"a": 1}}`), json.RawMessage(`{"k": {`+wideObject(50)+`}}`))},
	})
}

// TestDiffManyDiagnostics: where lists of 300,000 diagnostics first
// differ; golden in testdata/diff_diagnostics.golden.
func TestDiffManyDiagnostics(t *testing.T) {
	if testing.Short() {
		t.Skip("diffs lists of 300,000 diagnostics; run without -short")
	}
	checkDiffs(t, "testdata/diff_diagnostics.golden", []namedDiff{
		{"300,000 diagnostics, none expected", listDiff([]DiagWant{}, diags(300000), diagShown)},
		{"300,000 diagnostics, the last differs", listDiff(diags(300000)[:299999:299999], append(diags(299999), DiagWant{Code: "constraint", Path: "/x", Message: "y"}), diagShown)},
	})
}

// namedDiff is a diff and the name of its section in a golden file.
type namedDiff struct{ name, diff string }

// checkDiffs compares diffs, a section each, with the golden file at path.
func checkDiffs(t *testing.T, path string, diffs []namedDiff) {
	t.Helper()
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "== %s\n%s", d.name, d.diff)
	}
	golden.Check(t, path, []byte(b.String()))
}

func wideObject(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"m%02d": %d`, i, i)
	}
	return b.String()
}

// TestDiffBounded: a diff's size does not grow with the depth or width
// of the values, and what it allocates grows at most linearly.
func TestDiffBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("diffs values of a megabyte; run without -short")
	}
	for _, c := range []struct {
		name      string
		want, got any
		size      int // bytes of the values as JSON
	}{
		{"deep", json.RawMessage(`1`), nested(9990, "1"), 2 * 9990},
		{"deep both", nested(9990, "1"), nested(9990, "2"), 4 * 9990},
		{"wide", json.RawMessage(`[]`), json.RawMessage("[" + strings.Repeat("1,", 500000) + "1]"), 1000000},
		{"deep in wide", json.RawMessage(`[]`), json.RawMessage("[" + strings.Repeat(string(nested(150, "1"))+",", 3000) + "1]"), 3000 * 302},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d string
			alloc := memtest.Allocated(func() { d = Diff(c.want, c.got) })
			if len(d) > 4096 {
				t.Errorf("diff of %d bytes, more than 4096:\n%.2000s", len(d), d)
			}
			// Decoding the values into Go's (as SameJSON does) takes
			// some tens of bytes a byte; what is drawn is bounded.
			if limit := uint64(80*c.size + 1<<20); alloc > limit {
				t.Errorf("allocated %d bytes for %d bytes of values, more than %d", alloc, c.size, limit)
			}
		})
	}
	var d string
	many := diags(300000)
	alloc := memtest.Allocated(func() { d = listDiff([]DiagWant{}, many, diagShown) })
	if len(d) > 4096 || alloc > 1<<20 {
		t.Errorf("diff of 300,000 diagnostics: %d bytes, %d allocated", len(d), alloc)
	}
}
