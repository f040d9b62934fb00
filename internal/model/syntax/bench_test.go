package syntax

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"

	"github.com/pilotage-dev/pilotage/internal/testsupport/textprog"
)

// BenchmarkTextParse reads a 2,000-statement program (what
// BenchmarkValidateTextVsJSON in workbench/engine validates), to show
// the text surface's own share of a validate.
var benchN = 2000

func BenchmarkTextParse(b *testing.B) {
	src := []byte(textprog.Ledger(benchN))
	syn := For(textLanguage(everyConstruct, ""))
	b.SetBytes(int64(len(src)))
	for range b.N {
		if _, err := syn.Parse(src, 32); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONSpan places a diagnostic on the last of 2,000 steps of a
// JSON program, against one jsonpos.Parse of the same bytes in the same
// loop (span/parse): what the span costs beyond the tree it must build
// once to find the value.
func BenchmarkJSONSpan(b *testing.B) {
	var src bytes.Buffer
	src.WriteString(`{"steps": [`)
	for i := range benchN {
		if i > 0 {
			src.WriteString(",\n")
		}
		fmt.Fprintf(&src, `{"id": "s%d", "call": "a.b", "with": {"x": %d}}`, i, i)
	}
	src.WriteString(`], "output": "1"}`)
	p, err := For(homeflow(pilotage.LocatorJSONPointer)).Parse(src.Bytes(), 32)
	if err != nil || len(p.Program.Steps) != benchN {
		b.Fatal(err, p.Diagnostics)
	}
	d := pilotage.Diagnostic{Path: pilotage.PointerPath(fmt.Sprintf("/steps/%d/call", benchN-1))}
	var spanT, parseT time.Duration
	var spanBytes uint64
	var m0, m1 runtime.MemStats
	b.SetBytes(int64(src.Len()))
	for range b.N {
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		if s, _ := p.Span(d); s.Line != benchN {
			b.Fatalf("span at line %d, want %d", s.Line, benchN)
		}
		t1 := time.Now()
		runtime.ReadMemStats(&m1)
		spanBytes += m1.TotalAlloc - m0.TotalAlloc
		t1 = time.Now()
		if _, err := jsonpos.Parse(src.Bytes()); err != nil {
			b.Fatal(err)
		}
		spanT, parseT = spanT+t1.Sub(t0), parseT+time.Since(t1)
	}
	b.ReportMetric(float64(spanT)/float64(parseT), "span/parse")
	b.ReportMetric(float64(spanBytes)/float64(b.N), "span-B/op")
}
