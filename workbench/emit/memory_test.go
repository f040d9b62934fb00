package emit_test

import (
	"runtime"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// TestBuildHeapPeak holds the heap a build of the generated Language of
// BenchmarkBuildVsDecode reaches to a bound per byte of the file
// (docs/performance.md, "build", issue 13 item 8). The collector lets
// the heap grow to twice what it found live (GOGC=100), so the peak is
// the largest goal it sets during the build, less the goal the heap
// before it had; that goal is read after every collection, which stops
// the test (memtest.StoppedWorld).
func TestBuildHeapPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 2.5 MiB Language of 10,000 CEL expressions")
	}
	if !memtest.StoppedWorld(t) {
		return
	}
	src := pdltest.Generated(5000, 50, true)
	dir := t.TempDir()
	compile.ResetCaches()
	peak := memtest.HeapGoalPeak(func() {
		// As pilotage build compiles a file it read (compile.Load) and
		// writes what it builds (cmd/buildverb).
		res := compile.Source("bench.pdl", src, compile.Options{Shared: true})
		if !res.OK() {
			t.Fatalf("the generated Language does not compile: %v", res.Findings[0])
		}
		files, err := emit.FilesToWrite(res.Server)
		if err != nil {
			t.Fatal(err)
		}
		if err := emit.Write(dir, files, nil); err != nil {
			t.Fatal(err)
		}
	})
	perByte := float64(peak) / float64(len(src))
	t.Logf("%d bytes of PDL: the heap's goal rose by %d bytes at most, %.1f a byte", len(src), peak, perByte)
	// Measured at 4.7 – 4.9 a byte (7.5 once, a collection during the
	// CEL checks) since the snapshot is written as it is encoded, 4.8 –
	// 9.3 when its whole text was held in a buffer first, 10.1 – 11.4
	// when the compiler dropped the whole tree only during the CEL
	// checks, 13.1 – 20.5 before that (docs/performance.md, "build").
	if perByte > 9 {
		t.Errorf("the heap's goal rose by %.1f bytes a byte of the file, over 9", perByte)
	}
}

// TestGeneratedSnapshotInTreeBudget: the manifest and snapshot of the
// generated Language of BenchmarkBuildVsDecode take less than half the
// tree budget lint and replay hold them to (jsonpos.TreeBudget), so only
// documents far denser than any build's output are refused.
func TestGeneratedSnapshotInTreeBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 2.5 MiB Language of 10,000 CEL expressions")
	}
	res := compile.Source("bench.pdl", pdltest.Generated(5000, 50, true), compile.Options{Shared: true})
	if !res.OK() {
		t.Fatalf("the generated Language does not compile: %v", res.Findings[0])
	}
	files, err := emit.Files(res.Server)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files[:2] {
		tally, err := jsonpos.CheckTally(f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		tree, budget := tally.TreeBytes(), jsonpos.TreeBudget(len(f.Data))
		t.Logf("%s: %d bytes, tree %d (%.2f a byte), budget %d", f.Path, len(f.Data), tree, float64(tree)/float64(len(f.Data)), budget)
		if tree > budget/2 {
			t.Errorf("%s: its tree would take %d bytes, over half the budget of %d", f.Path, tree, budget)
		}
	}
}

// TestManyGuidesSnapshotHeapPeak holds the heap the snapshot of a
// Language of 20,000 small guides takes to be made ready for writing
// (FilesToWrite) to 7 bytes a byte of its file (the heap's goal, so
// twice what stays live: the guides' values and compact encodings, and
// the files' list): with the guides encoded in the snapshot's head, that
// head and its indented copy, grown by doubling, took it to 11.0; 5.5
// with the guides spliced in as the file is written (docs/performance.md,
// "Many small guides").
func TestManyGuidesSnapshotHeapPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a Language of 20,000 guides")
	}
	if !memtest.StoppedWorld(t) {
		return
	}
	src := pdltest.SmallGuides(20000)
	res := compile.Source("guides.pdl", src, compile.Options{Shared: true})
	if !res.OK() {
		t.Fatalf("the guides do not compile: %v", res.Findings[0])
	}
	var files []emit.File
	peak := memtest.HeapGoalPeak(func() {
		var err error
		if files, err = emit.FilesToWrite(res.Server); err != nil {
			t.Fatal(err)
		}
	})
	perByte := float64(peak) / float64(len(src))
	t.Logf("%d bytes of PDL: the heap's goal rose by %d bytes at most, %.1f a byte", len(src), peak, perByte)
	if perByte > 7 {
		t.Errorf("the heap's goal rose by %.1f bytes a byte of the file, over 7", perByte)
	}
	runtime.KeepAlive(files)
}
