package compile

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// render is pdltest.Render, short for the many calls here.
var render = pdltest.Render

// TestErrors compiles lang.pdl of every testdata/errors archive (other
// files of the archive are what it names) and compares every finding,
// with its position and hint, with the archive's want section.
func TestErrors(t *testing.T) {
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, ar *golden.Archive) {
		src, err := ar.ReadFile("lang.pdl")
		if err != nil {
			t.Fatal(err)
		}
		res := Source("lang.pdl", src, Options{ReadFile: ar.ReadFile})
		got := render(sortedFindings(res.Findings))
		if len(got) == 0 {
			t.Fatal("no findings for a broken file")
		}
		ar.Check(t, "want", got)
	})
}

func sortedFindings(fs []report.Finding) []report.Finding {
	r := &report.Report{}
	r.Add(fs...)
	r.Sort()
	return r.Findings
}
