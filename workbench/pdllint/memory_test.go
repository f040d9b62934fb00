package pdllint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// TestLintHeapPeak holds the heap a lint of the generated Language of
// BenchmarkBuildVsDecode reaches to a bound per byte of the file, as
// TestBuildHeapPeak (workbench/emit) holds build's (docs/performance.md,
// "build", issue 13 item 8): the largest goal a collection sets while
// Run compiles, emits and lints, over the goal before, read after every
// collection in a stopped world.
func TestLintHeapPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("lints a 2.5 MiB Language of 10,000 CEL expressions")
	}
	if !memtest.StoppedWorld(t) {
		return
	}
	src := pdltest.Generated(5000, 50, true)
	compile.ResetCaches()
	all := rules.All()
	peak := memtest.HeapGoalPeak(func() {
		rep, err := Run(all, []*lint.Input{{File: "gen.pdl", Src: src}}, lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Errors > 0 {
			t.Fatalf("the generated Language has %d errors", rep.Summary.Errors)
		}
	})
	perByte := float64(peak) / float64(len(src))
	t.Logf("%d bytes of PDL: the heap's goal rose by %d bytes at most, %.1f a byte", len(src), peak, perByte)
	// Measured at 8.6 a byte since the snapshot lint parses is compact
	// and the model's catalog is dropped after emitting it (each alone
	// 10.7 – 10.9), 12.9 before (docs/performance.md, "build", "Peak
	// memory of lint").
	if perByte > 10 {
		t.Errorf("the heap's goal rose by %.1f bytes a byte of the file, over 10", perByte)
	}
}

// TestBudgetsAreTheBuiltFiles: lint parses a PDL build's snapshot
// compact, but holds it to the budgets per byte of the indented file
// build writes, so an input_schema of 40,000 one-digit enum members,
// within the budget of that file and over that of its compact form, is
// compiled and checked from the PDL as from the built snapshot, without
// a too-large warning.
func TestBudgetsAreTheBuiltFiles(t *testing.T) {
	name := filepath.Join("..", "..", "langs", "deploy", "deploy.pdl")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	// Spaced out in the PDL, so that the compiler, which holds a schema
	// to a budget per byte of the PDL (schemacost.Budget), compiles it.
	members := strings.Repeat("1,"+strings.Repeat(" ", 46), 40000)
	src = bytes.Replace(src, []byte(`{"message": {"type": "string"}}`),
		[]byte(`{"message": {"type": "string"}, "x": {"enum": [`+members+`0]}}`), 1)
	res := compile.Source(name, src, compile.Options{Dir: filepath.Dir(name)})
	if !res.OK() {
		t.Fatalf("the Language does not compile: %v", res.Findings[0])
	}
	built, err := emit.SnapshotJSON(res.Server)
	if err != nil {
		t.Fatal(err)
	}
	// What lint runs on a PDL after compiling it (Check), on this compile.
	in, err := Prepare(name, res)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChecker(rules.All(), lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	fromPDL := c.Compiled(name, in, res, nil)
	fromBuild, err := lint.Run(rules.All(), []*lint.Input{{File: "snapshot.json", Src: built}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range []*report.Report{fromPDL, fromBuild} {
		for _, f := range rep.Findings {
			t.Errorf("%s: %s %s: %s", f.File, f.Severity, f.Rule, f.Message)
		}
	}
}
