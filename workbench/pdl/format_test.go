package pdl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// TestFormatGolden formats every testdata/fmt/x.pdl and compares it with
// x.pdl.formatted; formatting the result again must change nothing, and
// the statements must mean what they meant before.
func TestFormatGolden(t *testing.T) {
	golden.Files(t, "testdata/fmt/*.pdl", func(t *testing.T, name string, src []byte) {
		out, fs := FormatSource(name, src)
		if len(fs) > 0 {
			t.Fatal(string(render(fs)))
		}
		golden.Check(t, name+".formatted", out)
		again, _ := FormatSource(name, out)
		if !bytes.Equal(again, out) {
			t.Errorf("not idempotent:\n%s", again)
		}
		if a, b := meaning(t, src), meaning(t, out); a != b {
			t.Errorf("meaning changed:\n--- before\n%s\n--- after\n%s", a, b)
		}
	})
}

// TestExamplesAreFormatted keeps the example Languages in canonical form.
func TestExamplesAreFormatted(t *testing.T) {
	files, _ := filepath.Glob("../../langs/*/*.pdl")
	if len(files) < 3 {
		t.Fatalf("found %d example files, want at least 3", len(files))
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out, fs := FormatSource(name, src)
		if len(fs) > 0 || !bytes.Equal(out, src) {
			t.Errorf("%s is not formatted; run pilotage fmt -w %s", name, name)
		}
	}
}

// TestFormatRefusesBrokenFiles: recovery rewrites lines, so a file with
// syntax errors must never be printed.
func TestFormatRefusesBrokenFiles(t *testing.T) {
	out, fs := FormatSource("b.pdl", []byte("a {\n  b = c\n}\n"))
	if out != nil || len(fs) != 1 || fs[0].Line != 2 {
		t.Fatalf("out=%q findings=%s", out, render(fs))
	}
}

// meaning flattens a file to its statements with decoded values and
// nesting, without layout or comments.
func meaning(t *testing.T, src []byte) string {
	t.Helper()
	f, fs := Parse("m.pdl", src)
	if len(fs) > 0 {
		t.Fatal(string(render(fs)))
	}
	var b strings.Builder
	var walk func([]Node, int)
	walk = func(ns []Node, depth int) {
		for _, s := range Stmts(ns) {
			fmt.Fprintf(&b, "%d %s", depth, s.Keyword)
			for _, a := range s.Args {
				fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.Str())
			}
			b.WriteByte('\n')
			if s.Block != nil {
				walk(s.Block.Body, depth+1)
			}
		}
	}
	walk(f.Body, 0)
	return b.String()
}
