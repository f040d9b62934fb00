package compile

import (
	"slices"
	"sync"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// render is pdltest.Render, short for the many calls here.
var render = pdltest.Render

// TestErrors compiles lang.pdl of every testdata/errors archive (other
// files of the archive are what it names) and compares every finding,
// with its position and hint, with the archive's want section.
func TestErrors(t *testing.T) {
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, ar *golden.Archive) {
		res := errorsSource(t, ar)
		got := render(sortedFindings(res.Findings))
		if len(got) == 0 {
			t.Fatal("no findings for a broken file")
		}
		ar.Check(t, "want", got)
	})
}

// errorsSource is Source of lang.pdl of a testdata/errors archive, the
// files it names read from the archive. TestErrors, TestRuleSectionsAgree
// and TestStreamedCompilesAlike each read every archive's findings:
// compiled once, not three times. The Result is shared; a test reads it.
func errorsSource(t *testing.T, ar *golden.Archive) *Result {
	t.Helper()
	src, err := ar.ReadFile("lang.pdl")
	if err != nil {
		t.Fatal(err)
	}
	errorsMemo.Lock()
	defer errorsMemo.Unlock()
	key := ar.Path + "\x00" + string(src)
	res, ok := errorsMemo.m[key]
	if !ok {
		res = Source("lang.pdl", src, Options{ReadFile: ar.ReadFile})
		errorsMemo.m[key] = res
	}
	return res
}

var errorsMemo = struct {
	sync.Mutex
	m map[string]*Result
}{m: map[string]*Result{}}

func sortedFindings(fs []report.Finding) []report.Finding {
	r := &report.Report{}
	r.Add(fs...)
	r.Sort()
	return r.Findings
}

// TestRuleSectionsAgree: every finding of the testdata/errors archives
// cites only sections its rule's metadata lists (--list-rules, sarif),
// and every section pdl-value lists is cited by one of them: the list
// says where the rule's findings come from, no more and no less. Before,
// pdl-value listed §5.1 alone while its findings cited §6.6, §4.3 or
// binding.md, and cited §5.1 for values other sections define (a
// Language id's §3.3, a status's §5.7, a guide level's §5.2).
func TestRuleSectionsAgree(t *testing.T) {
	infos := map[string]report.RuleInfo{}
	for _, r := range pdl.Rules {
		infos[r.ID] = r
	}
	cited := map[string]bool{}
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, ar *golden.Archive) {
		for _, f := range errorsSource(t, ar).Findings {
			ri, ok := infos[f.Rule]
			if !ok {
				continue
			}
			for _, s := range f.AllSections() {
				if !slices.Contains(ri.AllSections(), s) {
					t.Errorf("%s:%d: %s cites %s, which the rule does not list (%v): %s", f.File, f.Line, f.Rule, s, ri.AllSections(), f.Message)
				}
				if f.Rule == pdl.RuleValue {
					cited[s] = true
				}
			}
		}
	})
	for _, s := range infos[pdl.RuleValue].AllSections() {
		if !cited[s] {
			t.Errorf("pdl-value lists %s, which no finding of testdata/errors cites", s)
		}
	}
}
