package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestEvolutionFindings checks what the .want lines of the evolution
// rules' fixtures do not show: each finding names what changed, and points
// at the baseline's side of the comparison as a related location
// (file:line:col and pointer in NAME.baseline.json), which SARIF reports
// as relatedLocations.
func TestEvolutionFindings(t *testing.T) {
	for _, c := range []struct {
		rule, fixture string
		message       []string
		related       report.Location
	}{
		{"guide-version-bump", "fail-body-changed", []string{`guide "core"`, `kept version "1"`},
			report.Location{Line: 28, Column: 20, Pointer: "/guides/calc~1v1/0/version"}},
		{"catalog-version-change", "fail-entry-changed", []string{`entry "lamp" changed its name`, `still "v1"`},
			report.Location{Line: 48, Column: 26, Pointer: "/catalog/calc~1v1/catalog_version"}},
		{"catalog-version-change", "fail-entry-removed", []string{`entry "sensor" removed`}, report.Location{}},
		{"catalog-version-change", "fail-needless-change", []string{`changed from "v1" to "v2"`}, report.Location{}},
		{"closed-sets-fixed", "fail-kind-added", []string{`body line 20`, `Catalog entry kinds`, `"timer" is not in the baseline's set`},
			report.Location{Line: 42, Column: 17, Pointer: "/guides/calc~1v1/1/body"}},
		{"closed-sets-fixed", "fail-level-hints", []string{`"dangerous" has readOnly false, destructive true, openWorld false; in the baseline, readOnly false, destructive true, openWorld true`}, report.Location{}},
		{"closed-sets-fixed", "fail-level-removed", []string{`"dangerous" of the baseline's set is gone`}, report.Location{}},
	} {
		t.Run(c.rule+"/"+c.fixture, func(t *testing.T) {
			ar, err := txtar.ParseFile(filepath.Join("testdata", c.rule+".txtar"))
			if err != nil {
				t.Fatal(err)
			}
			a := &golden.Archive{Archive: ar}
			src, _ := a.File(c.fixture + ".json")
			base := baselineInput(a, c.fixture)
			r, ok := Registry.Lookup(c.rule)
			if !ok {
				t.Fatalf("no rule %s", c.rule)
			}
			rep, err := lint.Run([]*lint.Rule{r}, []*lint.Input{{File: "new.json", Src: src}}, lint.Config{Baseline: base})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Findings) != 1 {
				t.Fatalf("want one finding, got %+v", rep.Findings)
			}
			f := rep.Findings[0]
			for _, m := range c.message {
				if !strings.Contains(f.Message, m) {
					t.Errorf("message %q does not say %q", f.Message, m)
				}
			}
			if len(f.Related) != 1 {
				t.Fatalf("want one related location in the baseline, got %+v", f.Related)
			}
			rel := f.Related[0]
			if rel.File != base.File || rel.Note == "" {
				t.Errorf("related location %+v is not a described place in %s", rel, base.File)
			}
			if c.related.Pointer != "" && (rel.Line != c.related.Line || rel.Column != c.related.Column || rel.Pointer != c.related.Pointer) {
				t.Errorf("related location %+v, want %s:%d:%d %s", rel, base.File, c.related.Line, c.related.Column, c.related.Pointer)
			}
		})
	}
}

// TestBaselineErrors: a baseline that is not a manifest or snapshot leaves
// nothing to compare with, a configuration error naming the file rather
// than a finding or a silent pass; without a baseline the evolution rules
// say nothing.
func TestBaselineErrors(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "guide-version-bump.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := (&golden.Archive{Archive: ar}).File("fail-body-changed.json")
	in := []*lint.Input{{File: "new.json", Src: src}}
	for base, want := range map[string]string{
		`{"manifest": `: "baseline old.json:1:14: malformed JSON",
		`[1, 2]`:        "baseline old.json is neither a manifest nor a snapshot",
		`"snapshot"`:    "baseline old.json is neither a manifest nor a snapshot",
	} {
		_, err := lint.Run(All(), in, lint.Config{Baseline: &lint.Input{File: "old.json", Src: []byte(base)}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("baseline %s: got error %v, want %q", base, err, want)
		}
	}
	var evolution []*lint.Rule
	for _, r := range All() {
		if r.Category == lint.CatEvolution {
			evolution = append(evolution, r)
		}
	}
	rep, err := lint.Run(evolution, in, lint.Config{})
	if err != nil || len(evolution) == 0 || len(rep.Findings) != 0 {
		t.Errorf("without a baseline: %d evolution rules, findings %+v, error %v", len(evolution), rep.Findings, err)
	}
}
