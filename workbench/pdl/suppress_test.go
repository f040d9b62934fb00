package pdl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// Each archive's in.pdl gives the directives in want: where the comment
// is, what it says and the span it covers.
func TestSuppressions(t *testing.T) {
	golden.Archives(t, "testdata/suppress/*.txtar", func(t *testing.T, a *golden.Archive) {
		src, _ := a.File("in.pdl")
		var b strings.Builder
		for _, d := range Suppressions("in.pdl", src) {
			fmt.Fprintf(&b, "%d:%d %s -- %q covers %d:%d to %d:%d", d.At.Line, d.At.Column, strings.Join(d.Rules, ","), d.Reason,
				d.Start.Line, d.Start.Column, d.End.Line, d.End.Column)
			if d.Problem != "" {
				fmt.Fprintf(&b, " (%s)", d.Problem)
			}
			b.WriteString("\n")
		}
		a.Check(t, "want", []byte(b.String()))
	})
}

// A file without the marker is not parsed again.
func TestSuppressionsNone(t *testing.T) {
	if ds := Suppressions("x.pdl", []byte("server \"s\" version=\"1\"\n# no marker\n")); ds != nil {
		t.Fatalf("got %v", ds)
	}
}

// FuzzSuppressions: any source with the marker gives directives whose
// spans are ordered and never end before they start.
func FuzzSuppressions(f *testing.F) {
	f.Add([]byte("# pilotage:ignore a -- r\nx {\n  y\n}\n"))
	f.Add([]byte("x { # pilotage:ignore a -- r\n}"))
	f.Add([]byte("x; y # pilotage:ignore a\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, d := range Suppressions("f.pdl", src) {
			if d.End.Line < d.Start.Line || d.End.Line == d.Start.Line && d.End.Column < d.Start.Column {
				t.Fatalf("span %+v to %+v ends before it starts", d.Start, d.End)
			}
		}
	})
}
