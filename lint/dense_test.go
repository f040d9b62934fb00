package lint_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/snaptest"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// denseSnapshot is docs/examples/snapshot.json with its catalog replaced
// by n entries, every one of them wrong in several ways: a kind and a
// risk the closed-sets guide does not list, and by turns no name, an id
// given before (unless unique), a Language that does not exist,
// risk_hints of the wrong type and an input_schema that is not a schema.
// The first five keep the example's ids, so a comparison with the
// example sees them changed; its other entries are added or removed.
func denseSnapshot(t testing.TB, n int, unique bool) []byte {
	return snaptest.WithItems(t, "..", "  ", func(example []any) []any {
		items := make([]any, n)
		for i := range items {
			e := map[string]any{"id": fmt.Sprintf("x%d", i), "kind": "nokind", "risk": "norisk", "name": "n"}
			if i < len(example) {
				e["id"] = example[i].(map[string]any)["id"]
			}
			if i%3 == 0 {
				delete(e, "name")
			}
			if i%4 == 1 && !unique {
				e["id"] = "dup"
			}
			if i%5 == 2 {
				e["languages"] = []any{"nowhere/v9"}
			}
			if i%7 == 3 {
				e["risk_hints"] = map[string]any{"readOnly": "yes"}
			}
			if i%6 == 4 {
				e["input_schema"] = map[string]any{"type": 3}
			}
			items[i] = e
		}
		return items
	})
}

// TestDenseSnapshotFindings: on a snapshot with findings in every catalog
// entry, lint lists the first --max-per-rule findings of each rule and
// counts the rest, in text and json exactly as before the rules offered
// their findings to the cap as they raised them: the golden files were
// written by lint when it built every finding and capped the list after,
// in the order the rules raised them (not the order of the report, so no
// uncapped report capped after can stand for it). Also compared with the
// example as a baseline, and as the example's baseline.
func TestDenseSnapshotFindings(t *testing.T) {
	const maxPerRule = 3
	dense, distinct := denseSnapshot(t, 300, false), denseSnapshot(t, 300, true)
	example, err := os.ReadFile(snaptest.Example(".."))
	if err != nil {
		t.Fatal(err)
	}
	denseIn := func() *lint.Input { return &lint.Input{File: "dense.json", Src: dense} }
	// The evolution rules compare catalogs whose ids are unique.
	distinctIn := func() *lint.Input { return &lint.Input{File: "distinct.json", Src: distinct} }
	exampleIn := func() *lint.Input { return &lint.Input{File: "snapshot.json", Src: example} }
	for _, c := range []struct {
		name      string
		in, since *lint.Input
	}{
		{"dense", denseIn(), nil},
		{"distinct-since-example", distinctIn(), exampleIn()},
		{"example-since-distinct", exampleIn(), distinctIn()},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := lint.Run(rules.All(), []*lint.Input{c.in}, lint.Config{Baseline: c.since, MaxPerRule: maxPerRule})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []report.Format{report.Text, report.JSON} {
				var out bytes.Buffer
				if err := report.Write(&out, f, rep, report.Options{}); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("testdata", "dense", c.name+"."+string(f)+".golden"), out.Bytes())
			}
		})
	}
}

// TestDenseSnapshotHeapPeak holds the heap lint reaches on a snapshot of
// 60,000 entries with three findings each (4 MB) to a bound per byte: the
// largest goal a collection sets while lint.Run runs, over the goal
// before, read after every collection in a stopped world. Lint built
// every finding and kept them until the report listed 150: the goal
// rose by 58 bytes a byte (690 MB of peak RSS for 16.9 MB), 8.9 now;
// docs/performance.md, "Hostile inputs".
func TestDenseSnapshotHeapPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("lints a 4 MB snapshot with 180,000 findings")
	}
	if !memtest.StoppedWorld(t) {
		return
	}
	src := snaptest.WithItems(t, "..", "", func([]any) []any { return snaptest.Unknown(60000) })
	all := rules.All()
	var rep *report.Report
	peak := memtest.HeapGoalPeak(func() {
		var err error
		rep, err = lint.Run(all, []*lint.Input{{File: "dense.json", Src: src}}, lint.Config{MaxPerRule: report.DefaultMaxPerRule})
		if err != nil {
			t.Fatal(err)
		}
	})
	if len(rep.Findings) != 3*report.DefaultMaxPerRule+3 {
		t.Fatalf("%d findings listed, want %d of each of three rules and three that count the rest", len(rep.Findings), report.DefaultMaxPerRule)
	}
	perByte := float64(peak) / float64(len(src))
	t.Logf("%d bytes: the heap's goal rose by %d bytes at most, %.1f a byte", len(src), peak, perByte)
	if perByte > 12 {
		t.Errorf("the heap's goal rose by %.1f bytes a byte of the snapshot, over 12", perByte)
	}
}
