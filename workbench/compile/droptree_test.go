package compile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// TestDroppedTreeCompilesAlike compiles each file of testdata/errors, each
// Language of langs and a small generated one twice, dropping the tree
// during the CEL checks and keeping it, and wants the same findings in the
// same order and the same model: reading the tree again must change
// nothing a build or lint shows.
func TestDroppedTreeCompilesAlike(t *testing.T) {
	always := func(int, int) bool { return true }
	never := func(int, int) bool { return false }
	alike := func(t *testing.T, name string, src []byte, opts Options) {
		t.Helper()
		a, b := source(name, src, opts, always), source(name, src, opts, never)
		if !bytes.Equal(render(a.Findings), render(b.Findings)) {
			t.Errorf("%s: findings differ:\n%s\nkept:\n%s", name, render(a.Findings), render(b.Findings))
		}
		if !reflect.DeepEqual(a.Server, b.Server) {
			t.Errorf("%s: the compiled model differs", name)
		}
	}
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, ar *golden.Archive) {
		src, err := ar.ReadFile("lang.pdl")
		if err != nil {
			t.Fatal(err)
		}
		alike(t, "lang.pdl", src, Options{ReadFile: ar.ReadFile})
	})
	langs, _ := filepath.Glob("../../langs/*/*.pdl")
	for _, name := range langs {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		alike(t, name, src, Options{Dir: filepath.Dir(name)})
	}
	alike(t, "generated.pdl", pdltest.Generated(60, 2, true), Options{})
	if dropTree(0, 1) || !dropTree(10000, 2590667) {
		t.Error("dropTree: a file without CEL drops its tree, or the benchmark's Language keeps it")
	}
}
