package config

import (
	"fmt"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// benchReport is 20,000 findings of five rules over 200 files, half of
// them under langs/legacy/, as a large repository's lint gives.
func benchReport() *report.Report {
	rep := &report.Report{Sources: map[string][]byte{}}
	for f := range 200 {
		name := fmt.Sprintf("langs/l%d/m.json", f)
		if f%2 == 0 {
			name = fmt.Sprintf("langs/legacy/l%d/m.json", f)
		}
		rep.Files = append(rep.Files, name)
		for i := range 100 {
			rep.Add(report.Finding{Rule: testRules[i%len(testRules)].ID, File: name, Line: i + 1, Column: 1, Severity: report.Warning})
		}
	}
	rep.Sort()
	return rep
}

// BenchmarkApply measures bringing a report under a pilotage.yaml with
// rules, two overrides and a suppress entry, against the baseline of
// ordering the same findings (report.Order, which every verb does
// anyway), in the same run; docs/performance.md records the ratio.
func BenchmarkApply(b *testing.B) {
	b.Chdir(b.TempDir())
	cfg, err := Parse(FileName, []byte(precedenceYAML))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("order (baseline)", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			rep := benchReport()
			b.StartTimer()
			rep.Order()
		}
	})
	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			rep := benchReport()
			b.StartTimer()
			cfg.Apply(rep, Apply{Known: testIDs()})
		}
	})
}
