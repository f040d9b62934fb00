package lint_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// FuzzLint runs every rule over arbitrary bytes: lint gives findings or a
// clean pass, never a panic or an error, every finding names a registered
// rule and a position inside the input, and every writer renders the
// report. Seeds are the rule fixtures and the documentation's examples;
// -short takes one fixture in four (lint/rules' TestRuleFixtures lints
// each with its rule, and each passing one with all).
func FuzzLint(f *testing.F) {
	isJSON := func(name string) bool { return strings.HasSuffix(name, ".json") }
	for i, seed := range golden.Sections(f, filepath.Join("rules", "testdata", "*.txtar"), isJSON) {
		if !testing.Short() || i%4 == 0 {
			f.Add(seed)
		}
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
	all, known := allRules()
	f.Fuzz(func(t *testing.T, src []byte) {
		rep, err := lint.Run(all, []*lint.Input{{File: "fuzz.json", Src: src}}, lint.Config{})
		if err != nil {
			t.Fatalf("Run failed on input: %v", err)
		}
		checkFuzzReport(t, rep, known, map[string][]byte{"fuzz.json": src})
	})
}

// FuzzLintBaseline runs every rule, the evolution rules among them, over
// an arbitrary input compared with an arbitrary baseline (--baseline):
// a baseline that is not a manifest or snapshot is refused with an error,
// anything else gives findings or a clean pass, never a panic, and a
// related location in the baseline lies inside it. Seeds are the evolution
// rules' fixture pairs (NAME.json with NAME.baseline.json).
func FuzzLintBaseline(f *testing.F) {
	seeds := 0
	for _, path := range []string{"catalog-version-change", "closed-sets-fixed", "guide-version-bump"} {
		a := golden.ReadArchive(f, filepath.Join("rules", "testdata", path+".txtar"))
		for _, file := range a.Files {
			name, ok := strings.CutSuffix(file.Name, ".baseline.json")
			if !ok {
				continue
			}
			src, ok := a.File(name + ".json")
			if !ok {
				f.Fatalf("%s: %s has no %s.json", path, file.Name, name)
			}
			f.Add(file.Data, src)
			seeds++
		}
	}
	if seeds == 0 {
		f.Fatal("no baseline fixture to seed from")
	}
	all, known := allRules()
	f.Fuzz(func(t *testing.T, base, src []byte) {
		rep, err := lint.Run(all, []*lint.Input{{File: "fuzz.json", Src: src}},
			lint.Config{Baseline: &lint.Input{File: "baseline.json", Src: base}})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "baseline baseline.json") {
				t.Fatalf("Run failed for another reason than the baseline: %v", err)
			}
			return
		}
		checkFuzzReport(t, rep, known, map[string][]byte{"fuzz.json": src, "baseline.json": base})
	})
}

// allRules returns every registered rule and the set of their IDs.
func allRules() ([]*lint.Rule, map[string]bool) {
	all := rules.All()
	known := map[string]bool{}
	for _, r := range all {
		known[r.ID] = true
	}
	return all, known
}

// checkFuzzReport checks that every finding of rep names a registered
// rule and lies, like its related locations, inside one of files (the
// first of which, "fuzz.json", is the linted input), and that every
// writer renders rep.
func checkFuzzReport(t *testing.T, rep *report.Report, known map[string]bool, files map[string][]byte) {
	t.Helper()
	inside := func(what string, l report.Location) {
		src, ok := files[l.File]
		lines := bytes.Count(src, []byte("\n")) + 1
		if !ok || l.Line < 1 || l.Line > lines || l.Column < 1 || l.Column > len(src)+1 {
			t.Errorf("%s at %s:%d:%d outside the inputs", what, l.File, l.Line, l.Column)
		}
		if l.Pointer != "" && !strings.HasPrefix(l.Pointer, "/") {
			t.Errorf("%s: pointer %q is not a JSON Pointer", what, l.Pointer)
		}
	}
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
		inside("finding "+fd.Rule, report.Location{File: fd.File, Line: fd.Line, Column: fd.Column, Pointer: fd.Pointer})
		for _, r := range fd.Related {
			inside("related location of "+fd.Rule, r)
		}
	}
	for _, format := range report.Formats {
		if err := report.Write(io.Discard, format, rep, report.Options{Color: true}); err != nil {
			t.Errorf("writing %s: %v", format, err)
		}
	}
}
