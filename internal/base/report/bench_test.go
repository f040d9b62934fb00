package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
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

// manyFileBatches is the reports of n files of four findings each, as
// lint of n small broken manifests makes them: one report a file, sorted,
// with the file's text for snippets.
func manyFileBatches(n int) []*Report {
	out := make([]*Report, n)
	src := []byte(`{"pilotage": "1.1", "languages": [{}]}` + "\n")
	for i := range out {
		file := fmt.Sprintf("many/m%05d.json", i)
		r := &Report{Files: []string{file}, Sources: map[string][]byte{file: src}}
		for k, rule := range []string{"capability-declaration", "capability-floor", "capability-floor", "schema"} {
			r.Add(Finding{Rule: rule, Section: "4.2", Sections: []string{"4.2", "5.1"}, Severity: Error, File: file, Line: 1, Column: 35,
				Message: fmt.Sprintf("the Language entry languages[0] leaves %d undeclared, but every Language must declare at least guides and validate", k),
				Pointer: "/languages/0", Hint: "declare the capability, or the Server-level one"})
		}
		r.Sort()
		out[i] = r
	}
	return out
}

// BenchmarkManyFiles writes the report of 20,000 files of four findings
// each (lint or replay of many small broken files) in text and sarif,
// alternately in one loop: as lint and replay wrote it before, every
// file's report added to one held to the end and written whole (whole),
// and as they write it now, each file's written as it comes (report.
// Stream). It reports the heap live just before the last file is written
// (after a collection), whole's over the Stream's (held-ratio), and the
// time, whole's over the Stream's (time-ratio).
func BenchmarkManyFiles(b *testing.B) {
	batches := manyFileBatches(20_000)
	files := make([]string, len(batches))
	for i, r := range batches {
		files[i] = r.Files[0]
	}
	live := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, f := range []Format{Text, SARIF} {
		b.Run(string(f), func(b *testing.B) {
			var wholeHeld, streamHeld uint64
			var wholeTook, streamTook time.Duration
			for b.Loop() {
				base := live()
				start := time.Now()
				head := &Report{Tool: "pilotage lint", Files: files}
				for _, r := range batches {
					head.AddReport(cloneReport(r))
				}
				head.Sort()
				wholeTook += time.Since(start)
				wholeHeld += live() - base
				start = time.Now()
				if err := Write(io.Discard, f, head, Options{}); err != nil {
					b.Fatal(err)
				}
				wholeTook += time.Since(start)
				head = nil

				base = live()
				start = time.Now()
				head = &Report{Tool: "pilotage lint", Files: files}
				s := NewStream(io.Discard, f, head, Options{})
				for i, r := range batches {
					s.AddReport(cloneReport(r))
					if i+1 < len(files) {
						if err := s.Flush(files[i+1], 0); err != nil {
							b.Fatal(err)
						}
					}
				}
				streamTook += time.Since(start)
				streamHeld += live() - base
				start = time.Now()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				streamTook += time.Since(start)
			}
			b.ReportMetric(float64(wholeHeld)/float64(b.N)/(1<<20), "whole-MiB")
			b.ReportMetric(float64(streamHeld)/float64(b.N)/(1<<20), "stream-MiB")
			b.ReportMetric(float64(wholeHeld)/float64(max(streamHeld, 1)), "held-ratio")
			b.ReportMetric(float64(wholeTook)/float64(streamTook), "time-ratio")
		})
	}
}

// cloneReport is a copy of r whose findings the caller may keep: a
// checker makes each file's anew.
func cloneReport(r *Report) *Report {
	c := *r
	c.Findings = slices.Clone(r.Findings)
	return &c
}

// inOrderCap is Cap's admission before it listed by position (session
// 14's Admit and leave), kept as BenchmarkCap's baseline: the first max
// offered of each rule and file are listed, and the rest counted.
type inOrderCap struct {
	max   int
	keys  map[capKey]*inOrderCount
	order []capKey
}

type inOrderCount struct {
	listed int
	tally
}

func (c *inOrderCap) admit(f Finding) bool {
	k := capKey{f.File, f.Rule}
	n := c.keys[k]
	if n == nil {
		n = &inOrderCount{}
		c.keys[k] = n
	}
	if n.listed < c.max {
		n.listed++
		return true
	}
	if n.add(&f, 1) {
		c.order = append(c.order, k)
	}
	return false
}

// BenchmarkCap offers 200,000 findings of 4 rules in one file to a cap of
// DefaultMaxPerRule, as a checker does that finds one at every entry of a
// broken file, and, alternately in the same loop, to the old in-order
// admission (inOrderCap). Orders: in order of position (every checker's
// common case, and the only one the old admission listed rightly), the
// reverse (each offer takes the last listed's place: the heap's worst
// case) and shuffled. It reports the time per offer of each and the
// heap's over the old (heap-ratio).
func BenchmarkCap(b *testing.B) {
	const n = 200_000
	rules := []string{"trace-shape", "entry-once", "level-content", "entry-calls"}
	base := make([]Finding, n)
	for i := range base {
		base[i] = Finding{Rule: rules[i%len(rules)], Section: "5.8", Severity: Error, File: "t.json", Line: 1 + i, Column: 3}
	}
	reversed := slices.Clone(base)
	slices.Reverse(reversed)
	shuffled := slices.Clone(base)
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name string
		fs   []Finding
	}{{"in-order", base}, {"reversed", reversed}, {"shuffled", shuffled}} {
		b.Run(c.name, func(b *testing.B) {
			var heap, old time.Duration
			for b.Loop() {
				start := time.Now()
				hc := NewCap(DefaultMaxPerRule)
				for _, f := range c.fs {
					if hc.Admit(f) {
						hc.Keep(f)
					}
				}
				if len(hc.Take()) != len(rules)*DefaultMaxPerRule {
					b.Fatal("the heap lists the wrong number")
				}
				heap += time.Since(start)
				start = time.Now()
				oc := &inOrderCap{max: DefaultMaxPerRule, keys: map[capKey]*inOrderCount{}}
				listed := 0
				for _, f := range c.fs {
					if oc.admit(f) {
						listed++
					}
				}
				if listed != len(rules)*DefaultMaxPerRule {
					b.Fatal("the old admission lists the wrong number")
				}
				old += time.Since(start)
			}
			b.ReportMetric(float64(heap)/float64(b.N)/n, "heap-ns/offer")
			b.ReportMetric(float64(old)/float64(b.N)/n, "old-ns/offer")
			b.ReportMetric(float64(heap)/float64(old), "heap-ratio")
		})
	}
}
