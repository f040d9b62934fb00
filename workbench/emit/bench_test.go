package emit_test

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// buildSnapshot compiles and emits src, returning the snapshot bytes.
func buildSnapshot(b *testing.B, src []byte) []byte {
	res := compile.Source("bench.pdl", src, compile.Options{})
	if !res.OK() {
		b.Fatalf("generated PDL does not compile: %+v", res.Findings[:min(3, len(res.Findings))])
	}
	files, err := emit.Files(res.Server)
	if err != nil {
		b.Fatal(err)
	}
	return files[1].Data
}

// BenchmarkBuildVsDecode measures, in the same run, parse+compile+build
// of the generated file against encoding/json decoding the snapshot it
// emits into any, and reports the ratio of wall-clock times (target: at
// most 3) and of process CPU times, with and without scripted behaviour
// (CEL) on every entry.
func BenchmarkBuildVsDecode(b *testing.B) {
	b.Run("behaviour", func(b *testing.B) { benchBuild(b, pdltest.Generated(5000, 50, true)) })
	b.Run("plain", func(b *testing.B) { benchBuild(b, pdltest.Generated(5000, 50, false)) })
}

func benchBuild(b *testing.B, src []byte) {
	snap := buildSnapshot(b, src)
	var build, decode time.Duration
	var buildCPU, decodeCPU int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Each build starts as a fresh pilotage build process does: no
		// CEL or schema cached by an earlier build (the engine's caches
		// would make every build after the first a warm one, and keep a
		// large live heap for the collector to mark). Each side starts
		// from a collected heap, so neither pays for the other's garbage.
		compile.ResetCaches()
		runtime.GC()
		t0, c0 := time.Now(), cpuNow()
		buildSnapshot(b, src)
		build, buildCPU = build+time.Since(t0), buildCPU+cpuNow()-c0
		runtime.GC()
		t1, c1 := time.Now(), cpuNow()
		var v any
		if err := json.Unmarshal(snap, &v); err != nil {
			b.Fatal(err)
		}
		decode, decodeCPU = decode+time.Since(t1), decodeCPU+cpuNow()-c1
	}
	b.ReportMetric(float64(build.Milliseconds())/float64(b.N), "build-ms/op")
	b.ReportMetric(float64(decode.Milliseconds())/float64(b.N), "decode-ms/op")
	b.ReportMetric(float64(build)/float64(decode), "ratio")
	if decodeCPU > 0 {
		// Build runs on every CPU and decode on one, so on an idle
		// machine this is above the wall-clock ratio; under load it is
		// the steadier of the two. Its two sides are reported too: a
		// change to the build can move the decode's cost (a larger heap
		// left by the build makes the collector run less often during
		// the decode).
		b.ReportMetric(float64(buildCPU)/float64(decodeCPU), "cpu-ratio")
		b.ReportMetric(float64(buildCPU)/1e6/float64(b.N), "build-cpu-ms/op")
		b.ReportMetric(float64(decodeCPU)/1e6/float64(b.N), "decode-cpu-ms/op")
	}
	b.ReportMetric(float64(len(src)>>10), "pdl-KiB")
	b.ReportMetric(float64(len(snap)>>10), "snapshot-KiB")
}
