package cmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/lintverb"
	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
)

func lintFiles(t *testing.T, p lintverb.Params) (string, string, int) {
	t.Helper()
	p.Report, p.Progress = verbtest.Reporter{}, progress.Never
	if p.MaxPerRule == 0 {
		p.MaxPerRule = report.DefaultMaxPerRule
	}
	r := verbtest.Call(func(s verb.Streams) error { return lintverb.Lint(context.Background(), p, s) })
	return r.Out, r.Err, r.Code
}

// TestLintPDL: a Language of langs/ is clean, and the pdllint fixture
// with findings fails with them listed, at their places in the PDL.
func TestLintPDL(t *testing.T) {
	if out, errs, code := lintFiles(t, lintverb.Params{Files: []string{"../langs/homeflow/homeflow.pdl"}}); code != verb.ExitOK {
		t.Fatalf("homeflow: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code := lintFiles(t, lintverb.Params{Files: []string{"../workbench/pdllint/testdata/guides.pdl"}, MaxPerRule: 2})
	if code != verb.ExitFindings || errs != "" {
		t.Fatalf("guides.pdl: exit %d, stderr %q", code, errs)
	}
	golden.Check(t, filepath.Join("testdata", "guides.golden"), []byte(out))
}

// TestLintUsage: what the command line refuses is refused by the
// function, exit 2 with the reason, before anything is read.
func TestLintUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    lintverb.Params
		want string
	}{
		{"no files", lintverb.Params{}, "lint needs at least one FILE"},
		{"max per rule", lintverb.Params{Files: []string{"x.json"}, MaxPerRule: -1}, "--max-per-rule must be at least 1"},
		{"two stdin", lintverb.Params{Files: []string{"-"}, Baseline: "-"}, "standard input (-) can be read only once"},
		{"missing", lintverb.Params{Files: []string{"testdata/lintverb/missing.json"}}, "no such file"},
		{"baseline broken", lintverb.Params{Files: []string{"../langs/calc/calc.pdl"}, Baseline: "testdata/lintverb/broken.pdl"}, "baseline testdata/lintverb/broken.pdl does not build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := lintFiles(t, tc.p)
			if code != verb.ExitUsage || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.want)
			}
		})
	}
}

// TestLintStreamsAsWhole: lint writes each file's report as it checks
// the file, in every format, byte for byte what it wrote of the whole
// report held to the end: of inputs named out of order, PDL files whose
// findings are in the guides they read (which join the sarif rule table
// only once a PDL file is read) and files capped by --max-per-rule.
func TestLintStreamsAsWhole(t *testing.T) {
	files := []string{"../workbench/pdllint/testdata/guides.pdl", "../docs/examples/broken-snapshot.json",
		"../workbench/pdllint/testdata/floor.pdl", "../docs/examples/manifest.json"}
	var ins []*lint.Input
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, &lint.Input{File: f, Src: src})
	}
	whole, err := pdllint.Run(rules.All(), ins, lint.Config{Disabled: map[string]bool{}, MaxPerRule: 2})
	if err != nil {
		t.Fatal(err)
	}
	streamsAsWhole(t, whole, func(s verb.Streams, r verb.Reporter) error {
		return lintverb.Lint(context.Background(), lintverb.Params{Files: files, MaxPerRule: 2, Report: r, Progress: progress.Never}, s)
	})
}

// streamsAsWhole checks that the verb run writes, in every format, what
// report.Write makes of whole, and exits 1.
func streamsAsWhole(t *testing.T, whole *report.Report, run func(verb.Streams, verb.Reporter) error) {
	t.Helper()
	for _, f := range report.Formats {
		var want strings.Builder
		if err := report.Write(&want, f, whole, report.Options{}); err != nil {
			t.Fatal(err)
		}
		r := verbtest.Call(func(s verb.Streams) error { return run(s, verbtest.Reporter{Format: f}) })
		if r.Code != verb.ExitFindings || r.Out != want.String() {
			t.Errorf("%s: exit %d, stderr %q, streamed:\n%s\nwhole:\n%s", f, r.Code, r.Err, r.Out, want.String())
		}
	}
}
