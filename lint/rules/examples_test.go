package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
)

// The bundled examples in docs/examples are what the README lints first:
// a conformant snapshot of homeflow/v1 and its manifest, clean under every
// rule, and a broken snapshot whose findings are kept in a golden file.

var examples = filepath.Join("..", "..", "docs", "examples")

func lintFile(t *testing.T, name string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(examples, name))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Run(All(), []*lint.Input{{File: name, Src: src}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range rep.Findings {
		out = append(out, fmt.Sprintf("%d:%d %s %s %s %s\n  %s", f.Line, f.Column, f.Severity, f.Rule, report.Cite(f.Section), f.Pointer, f.Message))
	}
	return out
}

func TestExamplesAreClean(t *testing.T) {
	for _, name := range []string{"snapshot.json", "manifest.json"} {
		if got := lintFile(t, name); len(got) > 0 {
			t.Errorf("docs/examples/%s must lint with zero findings, got:\n%s", name, strings.Join(got, "\n"))
		}
	}
}

// TestExampleManifestMatchesSnapshot keeps manifest.json the manifest of
// snapshot.json, so the two examples describe one Server.
func TestExampleManifestMatchesSnapshot(t *testing.T) {
	var snap struct{ Manifest any }
	var man any
	readJSON(t, "snapshot.json", &snap)
	readJSON(t, "manifest.json", &man)
	if !reflect.DeepEqual(snap.Manifest, man) {
		t.Error("docs/examples/manifest.json differs from the manifest inside docs/examples/snapshot.json")
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examples, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestBrokenExample keeps the findings on broken-snapshot.json in
// testdata/examples/broken-snapshot.golden (go test -update rewrites it),
// and checks that the example shows several rules, as the docs promise.
func TestBrokenExample(t *testing.T) {
	got := lintFile(t, "broken-snapshot.json")
	text := strings.Join(got, "\n") + "\n"
	golden.Check(t, filepath.Join("testdata", "examples", "broken-snapshot.golden"), []byte(text))
	rules := map[string]bool{}
	for _, line := range got {
		rules[strings.Fields(line)[2]] = true
	}
	if len(rules) < 5 {
		t.Errorf("the broken example should show at least 5 rules firing, shows %d", len(rules))
	}
}

// TestExampleClosedSetsIsRendered checks that the example's closed-sets
// guide is exactly what closedsets.Render writes for the sets it lists,
// so the example cannot drift from the format build emits. go test
// -update rewrites the body in Render's form, with its size_bytes and
// version (the first 12 hex digits of the body's SHA-256, as build sets).
func TestExampleClosedSetsIsRendered(t *testing.T) {
	path := filepath.Join(examples, "snapshot.json")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonpos.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var g jsonpos.Node
	for i := 0; doc.Root.At("/guides/homeflow~1v1/" + strconv.Itoa(i)).Exists(); i++ {
		n := doc.Root.At("/guides/homeflow~1v1/" + strconv.Itoa(i))
		for j := 0; n.At("/topics/" + strconv.Itoa(j)).Exists(); j++ {
			if n.At("/topics/"+strconv.Itoa(j)).String() == pilotage.TopicClosedSets {
				g = n
			}
		}
	}
	if !g.Exists() {
		t.Fatal("docs/examples/snapshot.json has no closed-sets guide for homeflow/v1")
	}
	body := g.Get("body").String()
	title, _, _ := strings.Cut(strings.TrimPrefix(body, "# "), "\n")
	parsed := closedsets.Parse([]byte(body))
	if len(parsed.Problems) > 0 {
		t.Fatalf("the example's closed-sets guide does not follow the format: %+v", parsed.Problems)
	}
	rendered := closedsets.Render(title, &parsed.Sets)
	if rendered == body {
		return
	}
	if !golden.Updating() {
		t.Fatalf("the example's closed-sets body is not closedsets.Render's output (go test -update rewrites it)\n got:\n%s\nwant:\n%s", body, rendered)
	}
	sum := sha256.Sum256([]byte(rendered))
	out := splice(src, map[jsonpos.Node]string{
		g.Get("body"):       jsonString(rendered),
		g.Get("size_bytes"): strconv.Itoa(len(rendered)),
		g.Get("version"):    jsonString(hex.EncodeToString(sum[:])[:12]),
	})
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// splice replaces the source of each node with new text, keeping the rest
// of the file (and its formatting) as it is.
func splice(src []byte, repl map[jsonpos.Node]string) []byte {
	nodes := make([]jsonpos.Node, 0, len(repl))
	for n := range repl {
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Start() > nodes[j].Start() })
	out := append([]byte(nil), src...)
	for _, n := range nodes {
		out = append(out[:n.Start()], append([]byte(repl[n]), out[n.End():]...)...)
	}
	return out
}

// jsonString encodes s as a JSON string the way the examples are written:
// without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// BenchmarkLintExampleSnapshot measures every rule over the bundled
// homeflow/v1 snapshot, a realistic single-Language capture.
func BenchmarkLintExampleSnapshot(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(examples, "snapshot.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	rules := All()
	for b.Loop() {
		if _, err := lint.Run(rules, []*lint.Input{{File: "snapshot.json", Src: src}}, lint.Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestExamplesAreTheHomeflowBuild keeps the bundled examples equal to what
// `pilotage build langs/homeflow/homeflow.pdl` writes, as kept in the
// emitter's golden files, so the docs never show a Language the project's
// own PDL no longer defines.
func TestExamplesAreTheHomeflowBuild(t *testing.T) {
	golden := filepath.Join("..", "..", "workbench", "emit", "testdata", "golden", "homeflow")
	for _, name := range []string{"snapshot.json", "manifest.json"} {
		built, err := os.ReadFile(filepath.Join(golden, name))
		if err != nil {
			t.Fatal(err)
		}
		example, err := os.ReadFile(filepath.Join(examples, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(built, example) {
			t.Errorf("docs/examples/%s differs from the build of langs/homeflow (%s); copy the build over it",
				name, filepath.Join("workbench/emit/testdata/golden/homeflow", name))
		}
	}
}
