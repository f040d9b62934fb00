package compile

import (
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// BenchmarkCompileHomeflow compiles langs/homeflow as pilotage build
// does, from a fresh process's caches each time: what a change to the
// compiler's checks (the schemas charged together, say) costs a real
// Language. Compare two test binaries alternating, as docs/performance.md
// does.
func BenchmarkCompileHomeflow(b *testing.B) {
	for b.Loop() {
		ResetCaches()
		res, _, err := Load("../../langs/homeflow/homeflow.pdl", report.DefaultMaxPerRule)
		if err != nil || !res.OK() {
			b.Fatalf("%v %+v", err, res.Findings)
		}
	}
}

// BenchmarkCompileSchemasCached compiles langs/homeflow again and again,
// as the language server does on every edit, with the compiled schema
// texts kept from the compile before (warm) and dropped before each
// compile (cold: what every compile paid before they were kept), one of
// each alternating in the same loop; the CEL caches stay warm on both
// sides. ratio is warm / cold.
func BenchmarkCompileSchemasCached(b *testing.B) {
	load := func() {
		res, _, err := Load("../../langs/homeflow/homeflow.pdl", report.DefaultMaxPerRule)
		if err != nil || !res.OK() {
			b.Fatalf("%v %+v", err, res.Findings)
		}
	}
	load()
	var cold, warm time.Duration
	for b.Loop() {
		compiled.Reset()
		t0 := time.Now()
		load()
		cold += time.Since(t0)
		t0 = time.Now()
		load()
		warm += time.Since(t0)
	}
	b.ReportMetric(float64(cold.Microseconds())/float64(b.N), "cold-µs/op")
	b.ReportMetric(float64(warm.Microseconds())/float64(b.N), "warm-µs/op")
	b.ReportMetric(float64(warm)/float64(cold), "ratio")
}
