package lint_test

import (
	"encoding/json"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// benchLarge is a snapshot of about 55 MB: many entries with schemas and
// long guide bodies, the kind of input whose peak memory was reported at
// 13 times its size.
var benchLarge = benchShape{languages: 4, entries: 32_000, guides: 400, shapes: 200, paras: 30}

var benchLargeSnapshot = sync.OnceValue(func() []byte { return generateSnapshot(benchLarge) })

// heapObjects is the runtime metric sampled for the peak: bytes in heap
// objects, live or not yet collected, which is what the process must hold
// in memory at that moment.
const heapObjects = "/memory/classes/heap/objects:bytes"

// peakHeap runs f after a collection and returns how far the heap grew
// above its size before f, at most: a goroutine samples the heap every
// 50µs, so a peak is missed by at most what f allocates in that time. The
// memory f starts from (the input) is not counted.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: heapObjects}}
		tick := time.NewTicker(50 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	metrics.Read(sample)
	peak = max(peak, sample[0].Value.Uint64())
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkLintPeakMemory lints the large snapshot and decodes it with
// encoding/json into `any`, alternately in the same run, and reports the
// peak heap of each above the input as bytes per input byte ("lint-peak/B",
// "decode-peak/B") and their ratio. The process also holds the input, one
// more byte per byte, in both cases.
func BenchmarkLintPeakMemory(b *testing.B) {
	src := benchLargeSnapshot()
	all := rules.All()
	var lintPeak, decodePeak uint64
	for b.Loop() {
		decodePeak = max(decodePeak, peakHeap(func() {
			var v any
			if err := json.Unmarshal(src, &v); err != nil {
				b.Fatal(err)
			}
			runtime.KeepAlive(v)
		}))
		lintPeak = max(lintPeak, peakHeap(func() {
			rep, err := lint.Run(all, benchInputs(src), lint.Config{})
			if err != nil {
				b.Fatal(err)
			}
			if rep.Summary.Errors+rep.Summary.Warnings > 0 {
				b.Fatalf("%d findings on the large snapshot; it should lint clean", len(rep.Findings))
			}
		}))
	}
	size := float64(len(src))
	b.ReportMetric(size/1e6, "input-MB")
	b.ReportMetric(float64(lintPeak)/size, "lint-peak/B")
	b.ReportMetric(float64(decodePeak)/size, "decode-peak/B")
	b.ReportMetric(float64(lintPeak)/float64(decodePeak), "peak-ratio")
}
