package compile

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/pilotage-dev/pilotage/lint/report"
	"github.com/pilotage-dev/pilotage/workbench/pdl/pdltest"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata archives")

// render is pdltest.Render, short for the many calls here.
var render = pdltest.Render

// archiveFS serves an archive's files to the compiler.
func archiveFS(ar *txtar.Archive) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		for _, f := range ar.Files {
			if f.Name == name {
				return f.Data, nil
			}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
}

// TestErrors compiles lang.pdl of every testdata/errors archive (other
// files of the archive are what it names) and compares every finding,
// with its position and hint, with the archive's want section.
func TestErrors(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.txtar")
	if len(files) == 0 {
		t.Fatal("no test archives")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			read := archiveFS(ar)
			src, err := read("lang.pdl")
			if err != nil {
				t.Fatal(err)
			}
			res := Source("lang.pdl", src, Options{ReadFile: read})
			got := render(sortedFindings(res.Findings))
			if len(got) == 0 {
				t.Fatal("no findings for a broken file")
			}
			for i, f := range ar.Files {
				if f.Name != "want" {
					continue
				}
				if *update {
					ar.Files[i].Data = got
					if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				if !bytes.Equal(got, f.Data) {
					t.Errorf("findings differ:\n--- got\n%s--- want\n%s", got, f.Data)
				}
				return
			}
			t.Fatal("archive has no want section")
		})
	}
}

func sortedFindings(fs []report.Finding) []report.Finding {
	r := &report.Report{}
	r.Add(fs...)
	r.Sort()
	return r.Findings
}
