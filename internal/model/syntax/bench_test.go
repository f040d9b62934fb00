package syntax

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
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

// jsonSteps is a JSON program of n call steps, one a line.
func jsonSteps(n int) []byte {
	var src bytes.Buffer
	src.WriteString(`{"steps": [`)
	for i := range n {
		if i > 0 {
			src.WriteString(",\n")
		}
		fmt.Fprintf(&src, `{"id": "s%d", "call": "a.b", "with": {"x": "%d"}}`, i, i)
	}
	src.WriteString(`], "output": "1"}`)
	return src.Bytes()
}

// spanEveryStep places every step of a freshly read program, as plan's
// program listing (workbench/progtext) and replay's findings do.
func spanEveryStep(tb testing.TB, src []byte) {
	p, err := For(homeflow(pilotage.LocatorJSONPointer)).Parse(src, 32)
	if err != nil || len(p.Diagnostics) > 0 {
		tb.Fatal(err, p.Diagnostics[:min(len(p.Diagnostics), 1)])
	}
	for i := range p.Program.Steps {
		if s, _ := p.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(fmt.Sprintf("/steps/%d/call", i))}); s.Line != i+1 {
			tb.Fatalf("step %d placed on line %d", i, s.Line)
		}
	}
}

// BenchmarkJSONSpan reads a 2,000-step JSON program and places every
// step, against one jsonpos.Parse of the same bytes in the same loop
// (span/parse): the read and the placing cost a few parses, not one per
// step.
func BenchmarkJSONSpan(b *testing.B) {
	src := jsonSteps(benchN)
	var spanT, parseT time.Duration
	var spanBytes uint64
	b.SetBytes(int64(len(src)))
	for range b.N {
		t0 := time.Now()
		spanBytes += memtest.Allocated(func() { spanEveryStep(b, src) })
		t1 := time.Now()
		if _, err := jsonpos.Parse(src); err != nil {
			b.Fatal(err)
		}
		spanT, parseT = spanT+t1.Sub(t0), parseT+time.Since(t1)
	}
	b.ReportMetric(float64(spanT)/float64(parseT), "span/parse")
	b.ReportMetric(float64(spanBytes)/float64(b.N), "span-B/op")
}
