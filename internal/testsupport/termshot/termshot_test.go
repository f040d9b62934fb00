package termshot

import (
	"os"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// A screen with every attribute the renderer reads (bold, italic,
// underline, reverse, 16/256/true colours, resets), markup characters,
// escapes it drops, and a truncated escape at the end.
func TestSVG(t *testing.T) {
	in, err := os.ReadFile("testdata/screen.ansi")
	if err != nil {
		t.Fatal(err)
	}
	got := SVG(string(in), 30, 4)
	golden.Check(t, "testdata/screen.svg", got)
	for _, want := range []string{`fill="#cd0000" textLength="67.2" lengthAdjust="spacingAndGlyphs" xml:space="preserve" font-weight="bold">bold red<`,
		`fill="#d70000"`, `fill="#010203"`, `fill="#1c1c1c" textLength="58.8"`, `fill="#0000ee"/>`, "&lt;&amp;&gt;", ">italic é wide<"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(string(got), "ten columns") {
		t.Errorf("text past the columns drawn")
	}
}

// Any bytes render without panicking, and the picture stays within a
// bounded multiple of the input.
func FuzzSVG(f *testing.F) {
	f.Add("\x1b[38;2;1;2m\x1b[48;5m\x1b[;;m x\n\x1b[")
	f.Fuzz(func(t *testing.T, in string) {
		if out := SVG(in, 80, 24); len(out) > 400*len(in)+1000 {
			t.Fatalf("%d bytes from %d", len(out), len(in))
		}
	})
}
