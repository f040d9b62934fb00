package testcase

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// extract writes an archive's sections into a directory, so the files a
// case names exist.
func extract(t testing.TB, a *golden.Archive) string {
	dir := t.TempDir()
	for _, f := range a.Files {
		if f.Name == "want" {
			continue
		}
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestParse: each fixture's tests/case.yaml parses to the cases, or
// fails at the line and with the message its want section holds.
func TestParse(t *testing.T) {
	golden.Archives(t, "testdata/parse/*.txtar", func(t *testing.T, a *golden.Archive) {
		dir := extract(t, a)
		name := filepath.Join(dir, "tests", "case.yaml")
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(name, src)
		var got strings.Builder
		var pe *Error
		switch {
		case errors.As(err, &pe):
			fmt.Fprintf(&got, "case.yaml:%d:%d: %s\nhint: %s\n", pe.Line, pe.Col, pe.Msg, pe.Hint)
		case err != nil:
			t.Fatalf("not an *Error: %v", err)
		default:
			fmt.Fprintf(&got, "pdl %s language %q\n", filepath.Base(f.PDL), f.Language)
			for _, c := range f.Cases {
				fmt.Fprintf(&got, "%d %q principal=%q text=%t program=%s input=%s stubs=%d drift=%v expect=%v\n",
					c.Line, c.Name, c.Principal, c.Text, c.Program, c.Input, len(c.Stubs), c.Drift != nil, c.Expect.Lines)
			}
		}
		a.Check(t, "want", []byte(got.String()))
	})
}

// FuzzParse: any bytes parse or fail with a placed error, never a
// panic, in bounded time.
func FuzzParse(f *testing.F) {
	for _, s := range golden.Sections(f, "testdata/parse/*.txtar", func(n string) bool { return n == "tests/case.yaml" }) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := Parse("tests/case.yaml", src)
		var pe *Error
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error is no *Error: %v", err)
		}
		if pe != nil && pe.Line < 0 {
			t.Fatalf("error at line %d", pe.Line)
		}
	})
}
