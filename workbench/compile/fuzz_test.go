package compile

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// FuzzCompile: any input compiles to findings placed inside the file or
// to a model that emits, never a panic. Files the PDL names resolve to one small schema and one
// guide so the fuzzer can reach the code that reads them. Compiled under
// a cap of 1, it reports what capping all its findings afterwards reports.
// Read a statement at a time, as Source reads, it compiles to the
// findings and model of Parse's whole tree (TestStreamedCompilesAlike
// on any input). -short seeds it with langs alone: TestStreamedCompilesAlike
// compiles the fixtures of testdata/errors both ways.
func FuzzCompile(f *testing.F) {
	if !testing.Short() {
		for _, seed := range golden.Sections(f, "testdata/errors/*.txtar", func(name string) bool { return name == "lang.pdl" }) {
			f.Add(seed)
		}
	}
	more, _ := filepath.Glob("../../langs/*/*.pdl")
	for _, n := range more {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
	read := func(name string) ([]byte, error) {
		switch filepath.Ext(name) {
		case ".json":
			return []byte(`{"type": "object", "properties": {"room": {"type": "string"}}}`), nil
		case ".md":
			return []byte("# Guide\n\n```json\n{\"steps\": []}\n```\n"), nil
		}
		return nil, fs.ErrNotExist
	}
	whole := func(name string, src []byte) (*pdl.File, []report.Finding) { return pdl.Parse(name, src) }
	f.Fuzz(func(t *testing.T, src []byte) {
		res := Source("f.pdl", src, Options{ReadFile: read})
		if w := source("f.pdl", src, Options{ReadFile: read}, whole); !bytes.Equal(render(res.Findings), render(w.Findings)) || !reflect.DeepEqual(res.Server, w.Server) {
			t.Fatalf("read a statement at a time:\n%s\nfrom the whole tree:\n%s", render(res.Findings), render(w.Findings))
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, x := range res.Findings {
			if x.Line < 1 || x.Message == "" {
				t.Fatalf("unpositioned finding %+v", x)
			}
			if x.File == "f.pdl" && x.Line > lines {
				t.Fatalf("finding at line %d of a %d-line file: %+v", x.Line, lines, x)
			}
		}
		c := report.NewCap(1)
		capped := Source("f.pdl", src, Options{ReadFile: read, Cap: c})
		shared := &report.Report{Cap: c}
		shared.AddListed(capped.Findings...)
		after := &report.Report{Cap: report.NewCap(1)}
		after.Add(res.Findings...)
		shared.Sort()
		after.Sort()
		if capped.OK() != res.OK() || !reflect.DeepEqual(shared.Findings, after.Findings) || !reflect.DeepEqual(shared.Summary, after.Summary) {
			t.Fatalf("capping while compiling gives %+v\ncapping afterwards %+v", shared, after)
		}
		if !res.OK() || res.Server == nil {
			return
		}
		if _, err := emit.Files(res.Server); err != nil {
			t.Fatalf("a model that compiled does not emit: %v", err)
		}
	})
}
