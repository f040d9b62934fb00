package compile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// TestStreamedCompilesAlike compiles each file of testdata/errors, each
// Language of langs and a small generated one twice, reading it a
// statement at a time (pdl.Stream, as Source does) and from Parse's whole
// tree, and wants the same findings in the same order and the same
// model: reading the statements again, and keeping only the places of an
// entry once it is compiled, must change nothing a build or lint shows.
// Each Language is read with its source shared and copied (-short: one
// or the other, in turn).
func TestStreamedCompilesAlike(t *testing.T) {
	whole := func(name string, src []byte) (*pdl.File, []report.Finding) { return pdl.Parse(name, src) }
	alikeTo := func(t *testing.T, a *Result, name string, src []byte, opts Options) {
		t.Helper()
		b := source(name, src, opts, whole)
		if !bytes.Equal(render(a.Findings), render(b.Findings)) {
			t.Errorf("%s: findings differ:\n%s\nfrom the whole tree:\n%s", name, render(a.Findings), render(b.Findings))
		}
		if !reflect.DeepEqual(a.Server, b.Server) {
			t.Errorf("%s: the compiled model differs", name)
		}
	}
	alike := func(t *testing.T, name string, src []byte, opts Options) {
		t.Helper()
		alikeTo(t, Source(name, src, opts), name, src, opts)
	}
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, ar *golden.Archive) {
		src, err := ar.ReadFile("lang.pdl")
		if err != nil {
			t.Fatal(err)
		}
		alikeTo(t, errorsSource(t, ar), "lang.pdl", src, Options{ReadFile: ar.ReadFile})
	})
	langs, _ := filepath.Glob("../../langs/*/*.pdl")
	for i, name := range langs {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// -short reads each Language one way, shared (pdl.ParseShared)
		// and copied in turn; the full suite both ways.
		if !testing.Short() || i%2 == 0 {
			alike(t, name, src, Options{Dir: filepath.Dir(name)})
		}
		if !testing.Short() || i%2 == 1 {
			alike(t, name, src, Options{Dir: filepath.Dir(name), Shared: true})
		}
	}
	alike(t, "generated.pdl", pdltest.Generated(60, 2, true), Options{})
}
