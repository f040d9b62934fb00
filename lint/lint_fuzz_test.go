package lint_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/golden"
	"github.com/pilotage-dev/pilotage/lint/report"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// FuzzLint runs every rule over arbitrary bytes: lint gives findings or a
// clean pass, never a panic or an error, every finding names a registered
// rule and a position inside the input, and every writer renders the
// report. Seeds are the rule fixtures and the documentation's examples.
func FuzzLint(f *testing.F) {
	isJSON := func(name string) bool { return strings.HasSuffix(name, ".json") }
	for _, seed := range golden.Sections(f, filepath.Join("rules", "testdata", "*.txtar"), isJSON) {
		f.Add(seed)
	}
	examples, _ := filepath.Glob(filepath.Join("..", "docs", "examples", "*.json"))
	for _, path := range examples {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(``))
	f.Add([]byte(`{"snapshot": "pilotage/1.1"}`))
	all := rules.All()
	known := map[string]bool{}
	for _, r := range all {
		known[r.ID] = true
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		rep, err := lint.Run(all, []*lint.Input{{File: "fuzz.json", Src: src}}, lint.Config{})
		if err != nil {
			t.Fatalf("Run failed on input: %v", err)
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, fd := range rep.Findings {
			if !known[fd.Rule] {
				t.Errorf("finding from unregistered rule %q: %+v", fd.Rule, fd)
			}
			switch fd.Severity {
			case report.Error, report.Warning, report.Info:
			default:
				t.Errorf("finding with severity %q", fd.Severity)
			}
			if fd.Message == "" || fd.Section == "" || fd.File != "fuzz.json" {
				t.Errorf("incomplete finding %+v", fd)
			}
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 || fd.Column > len(src)+1 {
				t.Errorf("finding at %d:%d outside the input (%d lines, %d bytes): %+v", fd.Line, fd.Column, lines, len(src), fd)
			}
			if fd.Pointer != "" && !strings.HasPrefix(fd.Pointer, "/") {
				t.Errorf("pointer %q is not a JSON Pointer", fd.Pointer)
			}
		}
		for _, format := range report.Formats {
			if err := report.Write(io.Discard, format, rep, report.Options{Color: true}); err != nil {
				t.Errorf("writing %s: %v", format, err)
			}
		}
	})
}
