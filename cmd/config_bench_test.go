package cmd_test

import (
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/config"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// configBenchReport is 20,000 findings of five rules over 200 files, half of
// them under langs/legacy/, as a large repository's lint gives.
func configBenchReport() *report.Report {
	rep := &report.Report{Sources: map[string][]byte{}}
	for f := range 200 {
		name := fmt.Sprintf("langs/l%d/m.json", f)
		if f%2 == 0 {
			name = fmt.Sprintf("langs/legacy/l%d/m.json", f)
		}
		rep.Files = append(rep.Files, name)
		for i := range 100 {
			rep.Add(report.Finding{Rule: configTestRules[i%len(configTestRules)].ID, File: name, Line: i + 1, Column: 1, Severity: report.Warning})
		}
	}
	rep.Sort()
	return rep
}

// BenchmarkConfigApply measures bringing a report under a pilotage.yaml with
// rules, two overrides and a suppress entry, against the baseline of
// ordering the same findings (report.Order, which every verb does
// anyway), in the same run; docs/performance.md records the ratio.
func BenchmarkConfigApply(b *testing.B) {
	b.Chdir(b.TempDir())
	cfg, err := config.Parse(config.FileName, []byte(configPrecedenceYAML))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("order (baseline)", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			rep := configBenchReport()
			b.StartTimer()
			rep.Order()
		}
	})
	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			rep := configBenchReport()
			b.StartTimer()
			cfg.Apply(rep, config.Apply{Known: configTestIDs()})
		}
	})
}
