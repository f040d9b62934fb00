package pilotage_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

const module = "github.com/pilotage-dev/pilotage"

// layers are the project's layers, top first (docs/design.md, "Layers"):
// a package imports only from its own layer or the ones below it. A
// package belongs to the layer of the longest prefix of its path.
var layers = []struct {
	name     string
	prefixes []string
	what     string
}{
	{"cmd", []string{"cmd", "internal/config"}, "verbs: flags → params → one library call; pilotage.yaml"},
	{"workbench", []string{"workbench"}, "PDL front end, compile, emit, engine, MCP server, conform"},
	{"checkers", []string{"lint", "replay"}, "checkers of artifacts; lint and replay never import each other"},
	{"model", []string{"internal/model"}, "the Language and program model"},
	{"base", []string{"internal/base"}, "findings, JSON positions, suggestions, text encoding, guide parsing, rule registry"},
	{"root", []string{""}, "the spec's types and schemas"},
}

// testsUp are the imports up a layer that a package's tests may make, each
// with its reason.
var testsUp = map[[2]string]string{
	{"replay", "cmd/progress"}: "BenchmarkReplay1M measures replay as pilotage replay --progress meters it",
}

// testSupport is imported by tests only, from any layer; it imports only
// model, base and root.
const testSupport = "internal/testsupport"

type goPackage struct {
	ImportPath                         string
	Dir                                string
	GoFiles                            []string
	Imports, TestImports, XTestImports []string
}

// rel is p's path inside the module, "" for the root package.
func rel(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }

func under(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

// layerOf is the index in layers of the package at path (relative), or -1
// for test support.
func layerOf(path string) int {
	if under(path, testSupport) {
		return -1
	}
	best, bestLen := len(layers)-1, -1
	for i, l := range layers {
		for _, p := range l.prefixes {
			if under(path, p) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

// group is the unit the cycle check and the checkers' sibling rule see: a
// top-level directory, or a package directly under workbench/,
// internal/base/ or internal/model/ with everything below it.
func group(path string) string {
	parts := strings.Split(path, "/")
	n := 1
	if parts[0] == "workbench" || parts[0] == "internal" {
		n = 2
		if parts[0] == "internal" {
			n = 3
		}
	}
	return strings.Join(parts[:min(n, len(parts))], "/")
}

// listPackages runs go list on the module once; every test here reads
// its answer (one go list is most of what each of them costs).
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	listed.once.Do(func() { listed.pkgs, listed.err = goList() })
	if listed.err != nil {
		t.Fatal(listed.err)
	}
	return listed.pkgs
}

var listed struct {
	once sync.Once
	pkgs []goPackage
	err  error
}

func goList() ([]goPackage, error) {
	// Naming the fields spares go list working out what no test here
	// reads (whether each package is stale, among others): half its time.
	out, err := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports,TestImports,XTestImports", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		return nil, fmt.Errorf("go list found %d packages; the listing is broken", len(pkgs))
	}
	return pkgs, nil
}

// own keeps the module's packages of paths, relative.
func own(paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, module) {
			out = append(out, rel(p))
		}
	}
	return out
}

// TestLayers: no import, of a package or of its tests, points up a layer;
// lint and replay do not import each other; only tests import test
// support; and the groups (workbench/engine with engine/runstore, lint
// with lint/rules, …) form no cycle, which Go's own rule against package
// cycles does not rule out.
func TestLayers(t *testing.T) {
	groups := map[string]map[string]bool{}
	for _, p := range listPackages(t) {
		from := rel(p.ImportPath)
		lf := layerOf(from)
		check := func(imports []string, test bool) {
			for _, to := range own(imports) {
				lt := layerOf(to)
				switch {
				case lt == -1 && !test:
					t.Errorf("%s imports %s, which only tests may import", from, to)
				case lt == -1, to == from:
				case lf == -1 && lt < len(layers)-3:
					t.Errorf("%s (test support) imports %s; it may import model, base and root only", from, to)
				case lf >= 0 && lt < lf && !(test && testsUp[[2]string{from, to}] != ""):
					t.Errorf("%s (layer %s) imports %s of the layer above, %s", from, layers[lf].name, to, layers[lt].name)
				case lf == lt && layers[lf].name == "checkers" && group(from) != group(to):
					t.Errorf("%s imports %s: lint and replay are siblings and never import each other", from, to)
				}
				if g, h := group(from), group(to); g != h && lt != -1 && !test {
					if groups[g] == nil {
						groups[g] = map[string]bool{}
					}
					groups[g][h] = true
				}
			}
		}
		check(p.Imports, false)
		check(p.TestImports, true)
		check(p.XTestImports, true)
	}
	if c := cycle(groups); c != nil {
		t.Errorf("the groups form a cycle: %s", strings.Join(c, " → "))
	}
}

// cycle returns one cycle of the graph g, or nil.
func cycle(g map[string]map[string]bool) []string {
	state := map[string]int{} // 1 on the path, 2 done
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		switch state[n] {
		case 1:
			i := slices.Index(path, n)
			return append(slices.Clone(path[i:]), n)
		case 2:
			return nil
		}
		state[n] = 1
		path = append(path, n)
		for _, m := range slices.Sorted(maps.Keys(g[n])) {
			if c := visit(m); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
		return nil
	}
	for _, n := range slices.Sorted(maps.Keys(g)) {
		if c := visit(n); c != nil {
			return c
		}
	}
	return nil
}

// TestTestCycle: the cycle check finds a cycle of groups and none in a
// chain, so TestLayers can fail.
func TestTestCycle(t *testing.T) {
	g := map[string]map[string]bool{"a": {"b": true}, "b": {"c": true}, "c": {"a": true}, "d": {"a": true}}
	if c := cycle(g); strings.Join(c, " ") != "a b c a" {
		t.Errorf("cycle = %v, want a b c a", c)
	}
	delete(g["c"], "a")
	if c := cycle(g); c != nil {
		t.Errorf("cycle of a chain = %v", c)
	}
}

// TestPackageGraph keeps the package graph in docs/design.md equal to what
// go list says: the module's packages in their layers and their imports
// (not those of tests), an import left out where a longer path of imports
// already leads there. go test . -run TestPackageGraph -update redraws it.
func TestPackageGraph(t *testing.T) {
	pkgs := listPackages(t)
	imports := map[string][]string{}
	var paths []string
	for _, p := range pkgs {
		from := rel(p.ImportPath)
		paths = append(paths, from)
		imports[from] = own(p.Imports)
	}
	golden.Generated(t, filepath.Join("docs", "design.md"), "packages", []byte(mermaid(paths, reduce(imports))))
}

// reduce leaves out each import a→c for which another import a→b leads
// to c, so the picture keeps the edges that say something.
func reduce(imports map[string][]string) map[string][]string {
	reach := map[string]map[string]bool{}
	var reachable func(n string) map[string]bool
	reachable = func(n string) map[string]bool {
		if r, ok := reach[n]; ok {
			return r
		}
		r := map[string]bool{}
		reach[n] = r
		for _, m := range imports[n] {
			r[m] = true
			for k := range reachable(m) {
				r[k] = true
			}
		}
		return r
	}
	out := map[string][]string{}
	for n, ms := range imports {
		for _, m := range ms {
			implied := slices.ContainsFunc(ms, func(b string) bool { return b != m && reachable(b)[m] })
			if !implied {
				out[n] = append(out[n], m)
			}
		}
	}
	return out
}

// mermaid draws the packages as a Mermaid flowchart: one box per layer,
// top first, holding its packages.
func mermaid(paths []string, imports map[string][]string) string {
	id := func(p string) string {
		if p == "" {
			return "root"
		}
		return strings.NewReplacer("/", "_", "-", "_").Replace(p)
	}
	var b strings.Builder
	b.WriteString("```mermaid\nflowchart TB\n")
	byLayer := make([][]string, len(layers)+1)
	for _, p := range paths {
		l := layerOf(p)
		if l < 0 {
			l = len(layers)
		}
		byLayer[l] = append(byLayer[l], p)
	}
	for i, ps := range byLayer {
		name, what := "test support", "imported by tests only"
		if i < len(layers) {
			name, what = layers[i].name, layers[i].what
		}
		fmt.Fprintf(&b, "  subgraph L%d [\"%s: %s\"]\n", i, name, what)
		slices.Sort(ps)
		for _, p := range ps {
			label := p
			if p == "" {
				label = "pilotage (root)"
			}
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", id(p), label)
		}
		b.WriteString("  end\n")
	}
	for _, from := range slices.Sorted(maps.Keys(imports)) {
		to := slices.Clone(imports[from])
		slices.Sort(to)
		for _, m := range to {
			fmt.Fprintf(&b, "  %s --> %s\n", id(from), id(m))
		}
	}
	b.WriteString("```\n")
	return b.String()
}

// TestPackageSizes: no package holds more than a quarter of the module's
// non-test Go lines, and workbench/ no more than 40% (issue 14).
func TestPackageSizes(t *testing.T) {
	sizes := map[string]int{}
	total, workbench := 0, 0
	for _, p := range listPackages(t) {
		for _, f := range p.GoFiles {
			src, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(src, []byte("\n"))
			sizes[rel(p.ImportPath)] += n
			total += n
			if under(rel(p.ImportPath), "workbench") {
				workbench += n
			}
		}
	}
	for p, n := range sizes {
		if 4*n > total {
			t.Errorf("%s holds %d of %d non-test lines, more than a quarter", p, n, total)
		}
	}
	if 10*workbench > 4*total {
		t.Errorf("workbench/ holds %d of %d non-test lines (%.1f%%), more than 40%%", workbench, total, 100*float64(workbench)/float64(total))
	}
	t.Logf("workbench/ holds %d of %d non-test lines (%.1f%%)", workbench, total, 100*float64(workbench)/float64(total))
}

// TestPackageDocs: every package's doc comment says its purpose in one or
// two sentences; what a package does in detail belongs at the declarations
// that do it, and the spec's rules in docs/.
func TestPackageDocs(t *testing.T) {
	for _, p := range listPackages(t) {
		var docs []string
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if file.Doc != nil {
				docs = append(docs, file.Doc.Text())
			}
		}
		switch {
		case len(docs) != 1:
			t.Errorf("%s has %d package doc comments; it needs one", rel(p.ImportPath), len(docs))
		case sentences(docs[0]) > 2:
			t.Errorf("%s: the package doc comment has %d sentences; say the purpose in one or two:\n%s", p.ImportPath, sentences(docs[0]), docs[0])
		}
	}
}

// sentences counts the sentences of a comment: the full stops (or ? and
// !) that end a line or stand before a space, outside parentheses, and a
// last sentence without one.
func sentences(s string) int {
	n, depth := 0, 0
	s = strings.TrimSpace(s)
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case '.', '?', '!':
			if depth == 0 && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
				n++
			}
		}
	}
	if !strings.HasSuffix(s, ".") {
		n++
	}
	return n
}

// TestSentences: the counter the package docs are held to.
func TestSentences(t *testing.T) {
	for s, want := range map[string]int{
		"Package a does b.":                                1,
		"Package a does b (c. d.). It is small.":           2,
		"Package a reads §5.8.2 ids.\nIt is small.\nMore.": 3,
		"Package a, e.g. b":                                2,
	} {
		if got := sentences(s); got != want {
			t.Errorf("sentences(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestPackageTable: docs/design.md's package table names every package
// (in backquotes), so a new package gets its one line there.
func TestPackageTable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(src), "## Packages, one purpose each")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, p := range listPackages(t) {
		if r := rel(p.ImportPath); r != "" && !strings.Contains(table, "`"+r+"`") {
			t.Errorf("docs/design.md's package table does not name `%s`", r)
		}
	}
}
