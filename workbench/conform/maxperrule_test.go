package conform

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// Options.MaxPerRule caps lint's findings on the saved snapshot as lint
// caps them offline (report.Cap): the broken example snapshot has two
// catalog-entry-languages findings (§5.4); with a cap of 1 conform lists
// one and counts the other, and 'pilotage lint --max-per-rule 1' of the
// saved file gives the same lint findings. Without a cap the default (50)
// applies, so both are listed.
func TestMaxPerRule(t *testing.T) {
	const rule = "catalog-entry-languages"
	lintFindings := func(rep *report.Report) []string {
		var out []string
		for _, f := range rep.Findings {
			if slices.ContainsFunc(lintRules(), func(r report.RuleInfo) bool { return r.ID == f.Rule }) {
				out = append(out, f.Rule+" "+f.Pointer+" "+f.Message)
			}
		}
		return out
	}
	count := func(rep *report.Report) (listed, left int) {
		for _, f := range rep.Findings {
			switch {
			case f.Rule == rule && f.Hint == "raise --max-per-rule to list them":
				left++
			case f.Rule == rule:
				listed++
			}
		}
		return listed, left
	}
	for _, tc := range []struct {
		// offline is lint's --max-per-rule that max stands for.
		max, offline, listed, left int
	}{{1, 1, 1, 1}, {0, report.DefaultMaxPerRule, 2, 0}} {
		dir := t.TempDir()
		rep := check(t, inMemory(t, newFake(t, "../../docs/examples/broken-snapshot.json").server()), Options{Dir: dir, MaxPerRule: tc.max})
		if listed, left := count(rep); listed != tc.listed || left != tc.left {
			t.Errorf("MaxPerRule %d: %d %s findings listed and %d counting the rest, want %d and %d:\n%s",
				tc.max, listed, rule, left, tc.listed, tc.left, findings(rep))
		}
		path := filepath.Join(dir, "snapshot.json")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		offline, err := lint.Run(rules.All(), []*lint.Input{{File: path, Src: src}}, lint.Config{MaxPerRule: tc.offline})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := lintFindings(rep), lintFindings(offline); !slices.Equal(got, want) {
			t.Errorf("MaxPerRule %d: conform's lint findings differ from lint's on the saved snapshot:\n%q\nwant\n%q", tc.max, got, want)
		}
	}
}
