package yamlcost

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// realYAML is every YAML file of the repository: the Languages' case
// files, the templates', and the case files and pilotage.yaml of the
// fixtures and CLI scripts.
func realYAML(t testing.TB) [][]byte {
	root := filepath.Join("..", "..", "..")
	isYAML := func(name string) bool { return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") }
	var out [][]byte
	for _, pattern := range []string{"langs/*/tests/*.yaml", "workbench/scaffold/templates/*/tests/*.yaml", "workbench/langtest/testdata/*/tests/*.yaml", "cmd/testdata/lsp/*.yaml"} {
		paths, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	for _, pattern := range []string{"cmd/testdata/script/*.txtar", "cmd/testdata/config/*.txtar", "internal/model/testcase/testdata/*/*.txtar"} {
		out = append(out, golden.Sections(t, filepath.Join(root, pattern), isYAML)...)
	}
	return out
}

// dense are YAML documents of one shape repeated: the densest go-yaml
// reads (a node every byte or two) and a generated corpus.
func dense(n int) map[string]string {
	var corpus strings.Builder
	corpus.WriteString("cases:\n")
	for i := range n / 150 {
		fmt.Fprintf(&corpus, "  - name: case %d\n    principal: owner\n    program: ../programs/shopping.json\n    input: {item: item%d}\n    expect: {status: success, output: [bread, eggs, item%d]}\n", i, i, i)
	}
	return map[string]string{
		"corpus":                corpus.String(),
		"flow sequence of ones": "a: [" + strings.Repeat("1,", n/2) + "1]\n",
		"flow mapping of keys":  "a: {" + strings.Repeat("a,", n/2) + "a}\n",
		"empty flow sequences":  "a: [" + strings.Repeat("[],", n/3) + "[]]\n",
		"block sequence":        "a:\n" + strings.Repeat("- 1\n", n/4),
		"block nulls":           "a:\n" + strings.Repeat("-\n", n/2),
		"nested entries":        "a:\n" + strings.Repeat("- - - - - - - - - -\n", n/20),
		"keys without values":   strings.Repeat("a:\n b:\n", n/6),
		"anchors and aliases":   "a: &a [" + strings.Repeat("*a,", n/3) + "1]\n",
	}
}

func nodes(n *yaml.Node) int64 {
	if n.Kind == 0 {
		return 0
	}
	c := int64(1)
	for _, k := range n.Content {
		c += nodes(k)
	}
	return c
}

// TestCountBoundsTree: the count is at least the nodes of go-yaml's tree,
// and for real files and the dense shapes at most half as many again (a
// `key:` before a nested block counts a null, a line of a plain scalar a
// node), so the budget charges what go-yaml builds and not a multiple of
// it.
func TestCountBoundsTree(t *testing.T) {
	docs := realYAML(t)
	for _, src := range dense(20000) {
		docs = append(docs, []byte(src))
	}
	var real, counted int64
	for _, src := range docs {
		// A text of several documents (a fixture of the error both
		// readers give for one) is left out: go-yaml's tree is the first
		// document's, and the readers refuse the rest unheld.
		dec := yaml.NewDecoder(bytes.NewReader(src))
		var doc, next yaml.Node
		if dec.Decode(&doc) != nil || dec.Decode(&next) != io.EOF {
			continue
		}
		want := nodes(&doc)
		got := Count(src)
		if got < want {
			t.Errorf("Count = %d, under the %d nodes of the tree of\n%s", got, want, src)
		}
		if float64(got) > 1.5*float64(want)+10 {
			t.Errorf("Count = %d, more than half again the %d nodes of the tree of\n%.400s", got, want, src)
		}
		real, counted = real+want, counted+got
	}
	t.Logf("%d documents: %d nodes, counted %d", len(docs), real, counted)
}

// TestNodeBytesBoundsUnmarshal: go-yaml allocates at most NodeBytes a
// node to build the tree of the dense shapes, so a document Check
// accepts is one whose tree takes at most Budget.
func TestNodeBytesBoundsUnmarshal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds go-yaml's trees of megabytes to measure them; run without -short")
	}
	for name, src := range dense(1 << 20) {
		runtime.GC()
		var (
			doc yaml.Node
			err error
		)
		alloc := memtest.Allocated(func() { err = yaml.Unmarshal([]byte(src), &doc) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := nodes(&doc)
		per := float64(alloc) / float64(n)
		t.Logf("%s: %d bytes, %d nodes, %.0f bytes allocated a node", name, len(src), n, per)
		if per > NodeBytes {
			t.Errorf("%s: go-yaml allocated %.0f bytes a node, over NodeBytes (%d)", name, per, NodeBytes)
		}
	}
}

// TestCheck: a dense document is refused at the line where its nodes
// pass the budget, naming the budget; real files are far inside it; a
// document in UTF-16 is counted as the text it encodes; and the check
// of UTF-8 allocates only its stack of open flow collections.
func TestCheck(t *testing.T) {
	src := []byte("cases:\n  - a\n" + "  - [" + strings.Repeat("1,", 1<<19) + "1]\n")
	ce := Check(src)
	if ce == nil || ce.Line != 3 || ce.Col < 5 || ce.Tree <= ce.Budget ||
		!strings.Contains(ce.Error(), "over the budget of 4 bytes a byte of the file plus 6 MiB") {
		t.Fatalf("Check = %v, want an *Error at line 3 naming the budget", ce)
	}
	if want := Budget(len(src))/NodeBytes + 1; ce.Nodes != want {
		t.Errorf("Nodes = %d, want the first count over the budget, %d", ce.Nodes, want)
	}
	for _, doc := range realYAML(t) {
		if c := Count(doc) * NodeBytes; c > Budget(len(doc))/10 {
			t.Errorf("a real file takes %d of its budget of %d:\n%.400s", c, Budget(len(doc)), doc)
		}
	}
	text := "a: [\"]\", 1, 1]\n" // its quoted "]" would end the sequence for a scan of the bytes
	utf16 := []byte{0xFF, 0xFE}
	for _, c := range text {
		utf16 = append(utf16, byte(c), 0)
	}
	if got, want := Count(utf16), Count([]byte(text)); got != want || want != 7 {
		t.Errorf("Count of UTF-16 = %d, of UTF-8 %d, want 7", got, want)
	}
	if a := testing.AllocsPerRun(10, func() { _ = Check(src[:1000]) }); a > 1 {
		t.Errorf("Check allocated %v times", a)
	}
}

// FuzzCount holds Count to go-yaml's tree: never under its nodes.
func FuzzCount(f *testing.F) {
	for _, src := range realYAML(f) {
		f.Add(src)
	}
	for _, src := range dense(300) {
		f.Add([]byte(src))
	}
	for _, s := range []string{"a: |\n  x\nb: [1]\n", "a: text\n  \"\nb: [1,1]\nc: \"\n", "{a, b: , : c}", "[a: 1, : , ? x]", "- - -\n-\n", "--- a\n--- [b]\n", "&a !t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var doc yaml.Node
		if yaml.Unmarshal(src, &doc) != nil {
			return
		}
		if got, want := Count(src), nodes(&doc); got < want {
			t.Errorf("Count = %d, under the %d nodes of go-yaml's tree", got, want)
		}
	})
}
