package compile

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
)

// BenchmarkCompileHomeflow compiles langs/homeflow as pilotage build
// does, from a fresh process's caches each time: what a change to the
// compiler's checks (the schemas charged together, say) costs a real
// Language. Compare two test binaries alternating, as docs/performance.md
// does.
func BenchmarkCompileHomeflow(b *testing.B) {
	for b.Loop() {
		expr.ResetCaches()
		res, _, err := Load("../../langs/homeflow/homeflow.pdl", report.DefaultMaxPerRule)
		if err != nil || !res.OK() {
			b.Fatalf("%v %+v", err, res.Findings)
		}
	}
}
