package testcase

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/tmpdir"
)

// TestMain keeps the fixtures extract writes in memory (tmpdir.InMemory):
// on the disk, making and removing the 1,400 files of a -short run was
// 0.2 – 0.3 s of system CPU, a third of the package's.
func TestMain(m *testing.M) {
	tmpdir.InMemory()
	os.Exit(m.Run())
}

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
			// Every error of the file, the first and More, each with
			// the end of the value it underlines when known.
			for _, pe := range append([]*Error{pe}, pe.More...) {
				fmt.Fprintf(&got, "%s:%d:%d: %s\nhint: %s\n", filepath.Base(pe.File), pe.Line, pe.Col, pe.Msg, pe.Hint)
				if pe.EndCol > 0 {
					fmt.Fprintf(&got, "to column %d\n", pe.EndCol)
				}
				if pe.Named.File != "" {
					fmt.Fprintf(&got, "named at %s:%d:%d\n", filepath.Base(pe.Named.File), pe.Named.Line, pe.Named.Col)
				}
				if (pe.Src != nil) != (pe.Named.File != "") {
					t.Errorf("an error in a file a case names carries its text and where it is named, one in the case file neither: Src %q, Named %+v", pe.Src, pe.Named)
				}
			}
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

// yamlBreak is a line break as YAML reads one.
var yamlBreak = regexp.MustCompile("\r\n|\r|\n")

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
		// An error in the case file itself is at a place in it, its
		// lines counted as YAML counts them, or just past its end (go-yaml
		// places an empty document's value on the line after "---"): a
		// YAML syntax error was at column 1 of go-yaml's line, not at its
		// cause.
		if lines := len(yamlBreak.FindAllIndex(src, -1)) + 1; pe != nil && pe.Src == nil && pe.File == "tests/case.yaml" && (pe.Col < 1 || pe.Line > lines+1) {
			t.Fatalf("error at %d:%d of a file of %d lines: %s", pe.Line, pe.Col, lines, pe.Msg)
		}
	})
}

// TestDropTree: a file whose tree is dropped holds its cases, not
// go-yaml's tree, which is most of what parsing kept (300 cases of the
// shape init writes first: 2.5 MB live with the tree, 0.4 without), and
// refuses to be rewritten rather than writing a stale file.
func TestDropTree(t *testing.T) {
	var b strings.Builder
	b.WriteString("pdl: lang.pdl\ncases:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  - name: case %d\n    principal: owner\n    program: {steps: [{id: add, call: todo.add, with: {item: input.item}}], output: steps.add.output}\n    input: {item: milk%d}\n    expect:\n      valid: true\n      status: success\n      trace:\n        - {id: add, status: success, calls: [todo.add]}\n", i, i)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := memtest.Live()
	f, err := Parse(filepath.Join(dir, "case.yaml"), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	kept := memtest.Live() - base
	f.dropTree()
	dropped := memtest.Live() - base
	t.Logf("%d bytes with the tree, %d without", kept, dropped)
	if dropped*2 > kept {
		t.Errorf("the file holds %d bytes with its tree, %d without: want under half", kept, dropped)
	}
	if _, err := f.Marshal(); !errors.Is(err, errDropped) {
		t.Errorf("Marshal after dropTree: %v", err)
	}
	if _, err := Update(f.Cases[0], &Got{}, nil); !errors.Is(err, errDropped) {
		t.Errorf("Update after dropTree: %v", err)
	}
	runtime.KeepAlive(f)
}

// TestAbsolutePath: a path a case file names absolute is used as given,
// not joined to the case file's directory.
func TestAbsolutePath(t *testing.T) {
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pdl, input := filepath.Join(dir, "lang.pdl"), filepath.Join(dir, "in.json")
	for name, data := range map[string]string{pdl: "\n", input: `{"a": 1}`} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := "pdl: " + pdl + "\ncases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: " + input + "\n"
	f, err := Parse(filepath.Join(dir, "elsewhere", "tests", "case.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f.PDL != pdl || string(f.Cases[0].Input) != `{"a": 1}` {
		t.Errorf("pdl %s, input %s: want %s and the file's JSON", f.PDL, f.Cases[0].Input, pdl)
	}
}
