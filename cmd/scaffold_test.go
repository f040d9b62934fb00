package cmd_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/scaffold"
)

// TestScaffoldInit: every template of workbench/scaffold (pilotage
// init) writes a PDL that compiles with no finding, programs and a
// corpus; writing again refuses, names the first file it would
// overwrite, and leaves what is there untouched.
func TestScaffoldInit(t *testing.T) {
	if got := scaffold.Templates(); !slices.Equal(got, []string{"json", "text"}) {
		t.Fatalf("templates %v", got)
	}
	for _, name := range scaffold.Templates() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			written, err := scaffold.Init(scaffold.Params{Dir: dir, Template: name})
			if err != nil {
				t.Fatal(err)
			}
			pdl := filepath.Join(dir, "todo.pdl")
			if !slices.Contains(written, pdl) || !slices.Contains(written, filepath.Join(dir, "tests", "todo.yaml")) {
				t.Fatalf("wrote %v", written)
			}
			res, rep, err := compile.Load(pdl, 10)
			if err != nil || !res.OK() || len(rep.Findings) > 0 {
				t.Fatalf("%s does not compile clean: %v %v", pdl, err, rep.Findings)
			}
			mine := filepath.Join(dir, "programs", "shopping.input.json")
			if err := os.WriteFile(mine, []byte(`{"item": "mine"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(pdl)
			_, err = scaffold.Init(scaffold.Params{Dir: dir, Template: name})
			var ee *scaffold.ExistsError
			if !errors.As(err, &ee) {
				t.Fatalf("second Init: %v", err)
			}
			if b, _ := os.ReadFile(mine); string(b) != `{"item": "mine"}` {
				t.Errorf("overwrote %s: %s", mine, b)
			}
			if _, err := os.Stat(pdl); err == nil {
				t.Errorf("a refused Init wrote %s", pdl)
			}
		})
	}
	if _, err := scaffold.Init(scaffold.Params{Dir: t.TempDir(), Template: "yaml"}); err == nil {
		t.Error("an unknown template was written")
	}
}
