package pdl

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any input gives a tree or findings, never a panic, and
// Stream reads it as Parse does (streamDiffers); a file that parses
// cleanly formats to text that parses cleanly, means the same and formats
// to itself.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.pdl")
	more, _ := filepath.Glob("../../langs/*/*.pdl")
	for _, name := range append(seeds, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a b=c \"\"\"\n x\n\"\"\" `y` 1.5s { d; e {} } # c\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if problem := streamDiffers("f.pdl", src); problem != "" {
			t.Fatal(problem)
		}
		file, fs := Parse("f.pdl", src)
		for _, x := range fs {
			if x.Line < 1 || x.Column < 1 {
				t.Fatalf("unpositioned finding %+v", x)
			}
		}
		if len(fs) > 0 || file == nil {
			return
		}
		out := Format(file)
		again, fs2 := FormatSource("f.pdl", out)
		if len(fs2) > 0 {
			t.Fatalf("formatted text does not parse: %s\n%s", render(fs2), out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("format is not idempotent:\n%s\n---\n%s", out, again)
		}
		if a, b := meaning(t, src), meaning(t, out); a != b {
			t.Fatalf("format changed meaning:\n%s\n---\n%s", a, b)
		}
	})
}
