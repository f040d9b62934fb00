package report

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// BenchmarkWriteJSON writes a Run's response of a normal depth (a
// 200-step trace, each step with its calls, decisions and an output
// object) through WriteJSON and, in the same loop, through json.Encoder
// with SetIndent, which it replaced for run/validate/plan -f json. It
// reports WriteJSON's time over the Encoder's (encoder-ratio): bounding
// the indentation must not slow a normal response.
func BenchmarkWriteJSON(b *testing.B) {
	steps := make([]any, 200)
	for i := range steps {
		steps[i] = map[string]any{
			"id": fmt.Sprintf("step_%d", i), "status": "success", "t_ms": 1.5,
			"calls":     []any{"lamp.set", "sensors.read"},
			"decisions": []any{map[string]any{"expr": "input.room == 'living'", "took": "then"}},
			"output":    map[string]any{"room": "living <&>", "lux": 120, "on": true, "levels": []any{1, 2, 3}},
		}
	}
	v := map[string]any{"run_id": "r-1", "outcome": map[string]any{"ok": true, "status": "success"},
		"output": map[string]any{"rooms": []any{"a", "b"}}, "trace": map[string]any{"level": "full", "steps": steps}}
	var mine, enc time.Duration
	var a, e bytes.Buffer
	for b.Loop() {
		a.Reset()
		start := time.Now()
		if err := WriteJSON(&a, v); err != nil {
			b.Fatal(err)
		}
		mine += time.Since(start)
		e.Reset()
		start = time.Now()
		en := json.NewEncoder(&e)
		en.SetIndent("", "  ")
		en.SetEscapeHTML(false)
		if err := en.Encode(v); err != nil {
			b.Fatal(err)
		}
		enc += time.Since(start)
	}
	if !bytes.Equal(a.Bytes(), e.Bytes()) {
		b.Fatal("WriteJSON differs from the Encoder")
	}
	b.ReportMetric(float64(mine)/float64(enc), "encoder-ratio")
}
