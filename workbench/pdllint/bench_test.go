package pdllint

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// BenchmarkLintGenerated lints the generated Language of
// docs/performance.md ("build"; `plain`, without behaviour CEL) with two
// principals, so the checks that read every text a caller receives
// against what each principal sees (pdl-guide-name, §10.3) run over its
// 50 guides and closed sets as they do on a real Language; without
// principals they are skipped. Compare two test binaries alternating, as
// docs/performance.md does ("lint", "The hidden-name rule").
func BenchmarkLintGenerated(b *testing.B) {
	src := append(pdltest.Generated(5000, 50, false), `
principal owner token="owner-token" {
  sees "*"
}
principal guest token="guest-token" {
  sees "dev*"
}
`...)
	all := rules.All()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		compile.ResetCaches()
		rep, err := Run(all, []*lint.Input{{File: "gen.pdl", Src: src}}, lint.Config{})
		if err != nil || rep.Summary.Errors > 0 {
			b.Fatalf("%v %+v", err, rep.Findings)
		}
	}
}
