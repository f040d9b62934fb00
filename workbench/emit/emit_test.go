package emit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// examples are the Languages of langs/ (langs/<name>/<name>.pdl), each
// built into testdata/golden/<name>; a new example gets its goldens with
// -update.
var examples = func() []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "langs", "*", "*.pdl"))
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".pdl"))
	}
	return names
}()

func build(t testing.TB, name string) []emit.File {
	t.Helper()
	res, _, err := compile.Load(filepath.Join("..", "..", "langs", name, name+".pdl"), report.DefaultMaxPerRule)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("%s does not compile: %+v", name, res.Findings)
	}
	files, err := emit.Files(res.Server)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// written builds example name as pilotage build does, FilesToWrite
// written by Write, and reads the files back.
func written(t *testing.T, name string) []emit.File {
	t.Helper()
	res, _, err := compile.Load(filepath.Join("..", "..", "langs", name, name+".pdl"), report.DefaultMaxPerRule)
	if err != nil {
		t.Fatal(err)
	}
	files, err := emit.FilesToWrite(res.Server)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := emit.Write(dir, files, nil); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if files[i].Data, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestGolden builds every example twice, in memory and written to files
// as pilotage build writes them (the snapshot streamed): both builds are
// byte-identical, and equal to the files under testdata/golden (go test
// -update rewrites them after a deliberate change).
func TestGolden(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			first, second := build(t, name), written(t, name)
			if len(first) != len(second) {
				t.Fatalf("builds differ in file count: %d, %d", len(first), len(second))
			}
			dir := filepath.Join("testdata", "golden", name)
			if golden.Updating() {
				// Start empty, so a file the build no longer writes goes.
				os.RemoveAll(dir)
			}
			var got []string
			for i, f := range first {
				got = append(got, f.Path)
				if !bytes.Equal(f.Data, second[i].Data) || f.Path != second[i].Path {
					t.Errorf("%s differs between two builds", f.Path)
				}
				golden.Check(t, filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data)
			}
			var want []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					want = append(want, filepath.ToSlash(rel))
				}
				return nil
			})
			if len(want) != len(got) {
				t.Errorf("golden has %v, build wrote %v", want, got)
			}
		})
	}
}

// TestSnapshotShape checks the snapshot against data-model.md and the
// embedded JSON Schema, and the manifest's operation addresses against
// binding.md.
func TestSnapshotShape(t *testing.T) {
	for _, name := range examples {
		files := build(t, name)
		var snap pilotage.Snapshot
		if err := json.Unmarshal(files[1].Data, &snap); err != nil {
			t.Fatal(err)
		}
		sch, err := pilotage.Schema("snapshot.json")
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		json.Unmarshal(files[1].Data, &doc)
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: snapshot.json fails its schema: %v", name, err)
		}
		for _, l := range snap.Manifest.Languages {
			prefix := strings.NewReplacer("/", "_", ".", "_").Replace(l.ID)
			if l.Guides != prefix+"_learn" || l.Loop.Validate != prefix+"_validate" {
				t.Errorf("%s: addresses %q, %q", l.ID, l.Guides, l.Loop.Validate)
			}
			caps := pilotage.Effective(snap.Manifest.Capabilities, l.Capabilities)
			if (l.Catalog != "") != caps.Has(pilotage.CapCatalog) || (l.Loop.Execute != "") != caps.Has(pilotage.CapExecute) ||
				(l.Loop.Trace != "") != caps.Has(pilotage.CapTraceFetch) {
				t.Errorf("%s: addresses do not follow the effective capabilities (§4.3 rule 7)", l.ID)
			}
			_, hasCatalog := snap.Catalog[l.ID]
			if hasCatalog != caps.Has(pilotage.CapCatalog) {
				t.Errorf("%s: catalog present = %v", l.ID, hasCatalog)
			}
			closed := 0
			for _, g := range snap.Guides[l.ID] {
				if g.Body == nil || g.SizeBytes != len(*g.Body) {
					t.Errorf("%s: guide %s size_bytes does not match its body", l.ID, g.ID)
				}
				for _, tp := range g.Topics {
					if tp == pilotage.TopicClosedSets {
						closed++
					}
				}
			}
			if closed != 1 {
				t.Errorf("%s: %d closed-sets guides", l.ID, closed)
			}
		}
	}
}

// TestCatalogVersion: revision alone does not change catalog_version
// (§5.4); any other field does.
func TestCatalogVersion(t *testing.T) {
	a := []pilotage.CatalogEntry{{ID: "x", Kind: "k", Risk: "safe"}}
	b := []pilotage.CatalogEntry{{ID: "x", Kind: "k", Risk: "safe", Revision: "r2"}}
	c := []pilotage.CatalogEntry{{ID: "x", Kind: "k", Risk: "write"}}
	if emit.CatalogVersion(a) != emit.CatalogVersion(b) {
		t.Error("revision changed catalog_version")
	}
	if emit.CatalogVersion(a) == emit.CatalogVersion(c) {
		t.Error("risk change did not change catalog_version")
	}
}

// TestSnapshotJSONMatchesEncoder: the spliced, concurrent encoding of the
// snapshot is byte for byte the plain encoding of Snapshot, for the
// examples and for a file with what the fast path treats apart: several
// catalogs in key order unlike file order, an empty catalog, entries seen
// by one Language only, revisions, and characters json.Marshal escapes
// for HTML in catalog_version's hash but JSON writes as they are.
// CompactSnapshotJSON is that encoding compacted (json.Compact), and
// IndentedLen of it the length of that encoding.
func TestSnapshotJSONMatchesEncoder(t *testing.T) {
	var srcs [][]byte
	for _, name := range examples {
		src, err := os.ReadFile(filepath.Join("..", "..", "langs", name, name+".pdl"))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, src)
	}
	langs := `risk safe readOnly "r"
kind device callable "d"
`
	for _, id := range []string{"zeta/v1", "alpha/v1", "empty/v1"} {
		langs += "language \"" + id + "\" {\n  capabilities {\n    guides\n    validate\n    catalog\n  }\n" +
			"  guide core \"G\" level=core {\n    body \"# G <b>&</b>\"\n  }\n}\n"
	}
	srcs = append(srcs, []byte(langs+`entry "a" kind=device risk=safe {
  description "Reads <room> & more \u2028 \"items\": []"
  revision "r7"
  languages "zeta/v1" "alpha/v1"
  input_schema `+"`"+`{"type": "object", "properties": {"q": {"type": "string", "pattern": "<[a-z]+>&"}}}`+"`"+`
}
entry "b" kind=device risk=safe {
  description "x < y && z"
  languages "alpha/v1"
  tags x y
}
entry "c" kind=device risk=safe {
  name "C"
  languages "zeta/v1"
  revision "2"
}
`), pdltest.Generated(300, 3, true))
	for i, src := range srcs {
		res := compile.Source("x.pdl", src, compile.Options{Dir: "../../langs/" + examples[min(i, len(examples)-1)]})
		if !res.OK() {
			t.Fatalf("source %d does not compile: %+v", i, res.Findings)
		}
		want, err := emit.JSON(emit.Snapshot(res.Server))
		if err != nil {
			t.Fatal(err)
		}
		got, err := emit.SnapshotJSON(res.Server)
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, fmt.Sprintf("source %d", i), got, want)
		var wantCompact bytes.Buffer
		if err := json.Compact(&wantCompact, want); err != nil {
			t.Fatal(err)
		}
		wantCompact.WriteByte('\n')
		gotCompact, err := emit.CompactSnapshotJSON(res.Server)
		if err != nil {
			t.Fatal(err)
		}
		sameBytes(t, fmt.Sprintf("source %d, compact", i), gotCompact, wantCompact.Bytes())
		if n := emit.IndentedLen(gotCompact); n != len(got) {
			t.Errorf("source %d: IndentedLen of the compact snapshot is %d, the snapshot has %d bytes", i, n, len(got))
		}
	}
}

// sameBytes fails with the first difference of got and want around it.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	n := 0
	for n < min(len(got), len(want)) && got[n] == want[n] {
		n++
	}
	t.Errorf("%s: snapshots differ at byte %d:\n--- got\n%s\n--- want\n%s", what, n,
		got[max(0, n-200):min(len(got), n+200)], want[max(0, n-200):min(len(want), n+200)])
}

// TestDocsExamplesAreTheBuild keeps the bundled examples honest
// (docs/examples/README.md): snapshot.json and manifest.json are what
// building langs/homeflow writes, byte for byte.
func TestDocsExamplesAreTheBuild(t *testing.T) {
	built := map[string][]byte{}
	for _, f := range build(t, "homeflow") {
		built[f.Path] = f.Data
	}
	for _, name := range []string{"snapshot.json", "manifest.json"} {
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(doc, built[name]) {
			t.Errorf("docs/examples/%s is not what building langs/homeflow writes; copy it from `pilotage build langs/homeflow/homeflow.pdl -o out`", name)
		}
	}
}
