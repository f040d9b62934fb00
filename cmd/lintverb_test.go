package cmd_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/lintverb"
	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

func lintFiles(t *testing.T, p lintverb.Params) (string, string, int) {
	t.Helper()
	p.Report, p.Progress = verbtest.TextReport{}, progress.Never
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
