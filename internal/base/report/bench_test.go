package report

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// BenchmarkHugeLineText writes the text report of one finding in the
// middle of a 16 MB line of NUL bytes (lint of such a file, issue 13 item
// 8) and, in the same loop, counts the line ends of the source
// (bytes.Count, one pass over the input, the least any reader of the file
// does). It reports the time of the report over that pass's (pass-ratio)
// and the bytes the report allocates per byte of source (alloc/B).
func BenchmarkHugeLineText(b *testing.B) {
	src := make([]byte, 16<<20)
	r := &Report{Tool: "t", Sources: map[string][]byte{"nul.json": src}}
	r.Add(Finding{Rule: "json-syntax", Section: "5", Severity: Error, Message: "malformed JSON", File: "nul.json", Line: 1, Column: len(src) / 2})
	var report, pass time.Duration
	var alloc uint64
	for b.Loop() {
		start := time.Now()
		alloc += memtest.Allocated(func() {
			if err := Write(io.Discard, Text, r, Options{}); err != nil {
				b.Fatal(err)
			}
		})
		report += time.Since(start)
		start = time.Now()
		if bytes.Count(src, []byte("\n")) != 0 {
			b.Fatal("a line end in a file of NUL bytes")
		}
		pass += time.Since(start)
	}
	b.ReportMetric(float64(report)/float64(pass), "pass-ratio")
	b.ReportMetric(float64(alloc)/float64(b.N)/float64(len(src)), "alloc/B")
}
