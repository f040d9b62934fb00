package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
)

// bigPDL writes homeflow, the schemas and guides it names, and generated
// entries to a PDL file of at least lines lines that lints clean.
func bigPDL(tb testing.TB, lines int) (string, string) {
	tb.Helper()
	dir := tb.TempDir()
	for _, sub := range []string{"schemas", "guides"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		ents, _ := os.ReadDir(filepath.Join(filepath.Dir(homeflow), sub))
		for _, e := range ents {
			os.WriteFile(filepath.Join(dir, sub, e.Name()), []byte(read(tb, filepath.Join(filepath.Dir(homeflow), sub, e.Name()))), 0o644)
		}
	}
	var b strings.Builder
	b.WriteString(read(tb, homeflow))
	for i := 0; strings.Count(b.String(), "\n") < lines; i++ {
		fmt.Fprintf(&b, "\nentry \"gen.e%d\" kind=device risk=safe {\n  name \"Generated %d\"\n  input_schema `{\"type\": \"object\"}`\n  output_schema `{\"type\": \"object\", \"properties\": {\"v\": {\"type\": \"number\"}}}`\n  compute `{\"v\": 1.0}`\n}\n", i, i)
	}
	return filepath.Join(dir, "big.pdl"), b.String()
}

func TestBigPDLIsClean(t *testing.T) {
	path, src := bigPDL(t, 2000)
	c := start(t)
	if ds := c.WaitDiags(c.Open(path, src), 1); len(ds) != 0 {
		t.Fatalf("the benchmark's file has findings: %+v", ds[0])
	}
}

// BenchmarkDiagnosticsVsLint measures, on a 2,000-line PDL, the time from
// a didChange to its publishDiagnostics against a full lint of the same
// text (pdllint.Run with every rule, what `pilotage lint` runs), run
// alternately in the same process; ratio is diagnostics / lint.
func BenchmarkDiagnosticsVsLint(b *testing.B) {
	path, src := bigPDL(b, 2000)
	c := start(b)
	uri := c.Open(path, src)
	c.WaitDiags(uri, 1)
	var diag, full time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		v := i + 2
		text := src + fmt.Sprintf("# change %d\n", v)
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": v}, "contentChanges": []any{map[string]any{"text": text}}})
		c.WaitDiags(uri, v)
		diag += time.Since(t0)
		t0 = time.Now()
		if _, err := pdllint.Run(rules.All(), []*lint.Input{{File: path, Src: []byte(text)}}, lint.Config{Disabled: map[string]bool{}, MaxPerRule: report.DefaultMaxPerRule}); err != nil {
			b.Fatal(err)
		}
		full += time.Since(t0)
	}
	b.ReportMetric(float64(diag.Milliseconds())/float64(b.N), "diag-ms/op")
	b.ReportMetric(float64(full.Milliseconds())/float64(b.N), "lint-ms/op")
	b.ReportMetric(float64(diag)/float64(full), "ratio")
}
