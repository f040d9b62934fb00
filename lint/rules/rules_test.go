package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
)

// Each rule has testdata/<id>.txtar, checked by golden.RuleFixtures. Its
// files come in pairs:
//
//	-- NAME.json --   a document to lint
//	-- NAME.want --   the findings of this rule alone, one per line:
//	                  LINE:COL SEVERITY RULE §SECTION POINTER
//	                  (§SECTION,§SECTION… when the finding cites several)
//	                  (empty for a passing fixture)
//	-- NAME.baseline.json --  optional: an earlier capture, lint's
//	                  --baseline, for the evolution rules
//
// Every fixture whose name starts with "pass" must in addition be clean
// under all rules, so a passing fixture is a conformant document.
func TestRuleFixtures(t *testing.T) {
	every := func(string) bool { return true }
	for _, r := range All() {
		t.Run(r.ID, func(t *testing.T) {
			golden.RuleFixtures(t, filepath.Join("testdata", r.ID+".txtar"), every, func(a *golden.Archive, name string, all bool) string {
				src, _ := a.File(name + ".json")
				base := baselineInput(a, name)
				if all {
					return lintAgainst(All(), name+".json", src, base)
				}
				return lintAgainst([]*lint.Rule{r}, name+".json", src, base)
			})
		})
	}
}

// baselineInput is the fixture's NAME.baseline.json, or nil.
func baselineInput(a *golden.Archive, name string) *lint.Input {
	src, ok := a.File(name + ".baseline.json")
	if !ok {
		return nil
	}
	return &lint.Input{File: name + ".baseline.json", Src: src}
}

// lintWith lints one document and renders each finding as a .want line.
func lintWith(rs []*lint.Rule, name string, src []byte) string {
	return lintAgainst(rs, name, src, nil)
}

// lintAgainst is lintWith comparing the document with base, an earlier
// capture (--baseline), when base is not nil.
func lintAgainst(rs []*lint.Rule, name string, src []byte, base *lint.Input) string {
	rep, err := lint.Run(rs, []*lint.Input{{File: name, Src: src}}, lint.Config{Baseline: base})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "%d:%d %s %s %s %s\n", f.Line, f.Column, f.Severity, f.Rule, citedSections(f), f.Pointer)
	}
	return b.String()
}

// citedSections is every section f cites, as a .want line shows them:
// "§5.1,§11.1,§1.1".
func citedSections(f report.Finding) string {
	var cites []string
	for _, s := range f.AllSections() {
		cites = append(cites, report.Cite(s))
	}
	return strings.Join(cites, ",")
}

// TestRulesHaveDocs keeps rules and docs/rules pages in sync: every rule
// has a page with the required headings, and every page has a rule.
func TestRulesHaveDocs(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "rules")
	pages := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") && e.Name() != "README.md" {
			pages[strings.TrimSuffix(e.Name(), ".md")] = true
		}
	}
	for _, r := range All() {
		if !pages[r.ID] {
			t.Errorf("rule %s has no docs/rules/%s.md", r.ID, r.ID)
			continue
		}
		delete(pages, r.ID)
		b, _ := os.ReadFile(filepath.Join(dir, r.ID+".md"))
		doc := string(b)
		for _, h := range []string{"# " + r.ID, "## What", "## Why", "## The spec", "## Failing example", "## Fixed example"} {
			if !strings.Contains(doc, h) {
				t.Errorf("docs/rules/%s.md lacks %q", r.ID, h)
			}
		}
		if !strings.Contains(doc, report.Cite(r.Section)) {
			t.Errorf("docs/rules/%s.md does not cite %s", r.ID, report.Cite(r.Section))
		}
	}
	for id := range pages {
		t.Errorf("docs/rules/%s.md documents no rule", id)
	}
}
