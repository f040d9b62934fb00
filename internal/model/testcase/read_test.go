package testcase

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// readDiffers says how Read's answer on src, with All's, differs from
// Parse's, its tree dropped, or "" when it does not: the same cases, or
// the same first error.
func readDiffers(name string, src []byte) string {
	want, werr := Parse(name, src)
	got, gerr := Read(name, src)
	var cases []*Case
	if gerr == nil {
		var e *Error
		if cases, e = all(got); e != nil {
			gerr = e
		}
	}
	switch {
	case (werr == nil) != (gerr == nil):
		return fmt.Sprintf("Parse: %v; Read: %v", werr, gerr)
	case werr != nil:
		if fmt.Sprintf("%+v", werr) != fmt.Sprintf("%+v", gerr) {
			return fmt.Sprintf("Parse: %+v; Read: %+v", werr, gerr)
		}
		return ""
	}
	want.dropTree()
	switch {
	case want.Name != got.Name || want.PDL != got.PDL || want.Language != got.Language || !bytes.Equal(want.Src, got.Src):
		return fmt.Sprintf("Parse reads %s %s %q, Read %s %s %q", want.Name, want.PDL, want.Language, got.Name, got.PDL, got.Language)
	case !reflect.DeepEqual(want.Cases, cases):
		return "the cases differ"
	}
	return ""
}

// all is every case of f, as All yields them, or the error it ends with.
func all(f *File) ([]*Case, *Error) {
	var cases []*Case
	for c, err := range f.All() {
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// TestReadLikeParse: every case file of the repository, and every
// fixture of Parse's, reads to what Parse reads, and the corpora of
// langs/, all in block style, are read a case at a time.
func TestReadLikeParse(t *testing.T) {
	corpora, _ := filepath.Glob("../../../langs/*/tests/*.yaml")
	more, _ := filepath.Glob("../../../workbench/langtest/testdata/*/tests/*.yaml")
	if len(corpora) < 5 {
		t.Fatalf("found %d corpora", len(corpora))
	}
	for _, name := range append(corpora, more...) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := readDiffers(name, src); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if strings.Contains(name, "/langs/") && readHead(name, src, nil) == nil {
			t.Errorf("%s is read whole, not a case at a time", name)
		}
	}
	golden.Archives(t, "testdata/parse/*.txtar", func(t *testing.T, a *golden.Archive) {
		name := filepath.Join(extract(t, a), "tests", "case.yaml")
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := readDiffers(name, src); d != "" {
			t.Error(d)
		}
	})
}

// TestReadManyCases: 3,000 cases of the shape init writes first, 870 KB,
// are over the tree budget of a file read whole (about 650 fit), and
// read a case at a time within each case's.
func TestReadManyCases(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 3,000 cases; run without -short")
	}
	var b strings.Builder
	b.WriteString("pdl: lang.pdl\n# generated\ncases:\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "  - name: case %d\n    principal: owner\n    program: {steps: [{id: add, call: todo.add, with: {item: input.item}}], output: steps.add.output}\n    input: {item: milk%d}\n\n    expect:\n      valid: true\n      status: success\n      trace:\n        - {id: add, status: success, calls: [todo.add]}\n", i, i)
	}
	b.WriteString("language: todo/v1\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, src := filepath.Join(dir, "case.yaml"), []byte(b.String())
	if _, err := Parse(name, src); err == nil || !strings.Contains(err.Error(), "too dense") {
		t.Fatalf("Parse: %v; want the file refused as too dense", err)
	}
	f, err := Read(name, src)
	if err != nil {
		t.Fatal(err)
	}
	cases, e := all(f)
	if e != nil {
		t.Fatal(e)
	}
	if len(cases) != 3000 || f.Language != "todo/v1" || cases[2999].Name != "case 2999" || cases[2999].Line != 3+2999*10+1 {
		t.Fatalf("%d cases, language %q, last %+v", len(cases), f.Language, cases[len(cases)-1])
	}
	if l := cases[1].Expect.Lines["status"]; l != 3+10+8 {
		t.Errorf("case 1's status expected at line %d, want %d", l, 3+10+8)
	}
}

// FuzzRead: Read answers what Parse answers on any input.
func FuzzRead(f *testing.F) {
	for _, s := range golden.Sections(f, "testdata/parse/*.txtar", func(n string) bool { return n == "tests/case.yaml" }) {
		f.Add(s)
	}
	f.Add([]byte("cases:\n- name: a\n  program: {steps: [], output: '1'}\n- name: b\n  program: {steps: [], output: '2'}\npdl: x.pdl\n"))
	f.Add([]byte("cases:\n  - &a {name: a, program: {steps: [], output: '1'}}\n  - *a\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if d := readDiffers("tests/case.yaml", src); d != "" {
			t.Fatal(d)
		}
	})
}

// TestReadHoldsNoCase: a file read a case at a time holds no case, and
// All reads each as it is asked: a case that does not read, further on,
// ends the cases yielded with the file's first error, as Parse gives it.
func TestReadHoldsNoCase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "case.yaml")
	for second, want := range map[string]string{
		"  - name: b\n    programm: {steps: [], output: '1'}\n": `6:5: unknown key "programm"`,
		"  - name: a\n    program: {steps: [], output: '2'}\n":  `5:5: a second case named "a" (the first is at line 3)`,
	} {
		src := []byte("pdl: lang.pdl\ncases:\n  - name: a\n    program: {steps: [], output: '1'}\n" + second)
		f, err := Read(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if f.Cases != nil {
			t.Fatalf("Read holds %d cases", len(f.Cases))
		}
		var got []string
		for c, e := range f.All() {
			if e != nil {
				got = append(got, fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg))
			} else {
				got = append(got, c.Name)
			}
		}
		_, perr := Parse(name, src)
		if len(got) != 2 || got[0] != "a" || got[1] != want || !strings.Contains(perr.Error(), want) {
			t.Errorf("All yields %q, Parse %v; want case a, then Parse's error %s", got, perr, want)
		}
	}
}

// TestReadLateError: a case file in block style too dense to read whole,
// 2,000 cases of init's shape (210 KB, about 28,000 values; 1,500 in
// -short, over the budget from about 1,100), whose last case is wrong,
// is refused with that case's error at its place, as the file of its
// first two cases and that one is, not as too dense at the value where
// the budget of the whole file runs out; so is one of 9,400 cases,
// 1 MiB, without -short, and either with the wrong case third. -short
// reads the dense file for a second case named as an earlier one only.
func TestReadLateError(t *testing.T) {
	sizes := []int{2, 2000, 9400}
	if testing.Short() {
		sizes = []int{2, 1500}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "case.yaml")
	const program = "    program: {steps: [{id: a, call: echo, with: {v: '1'}}]}\n"
	// file is n cases, the wrong one, then after cases more.
	file := func(n int, wrong string, after int) []byte {
		var b strings.Builder
		b.WriteString("pdl: lang.pdl\ncases:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - name: c%d\n%s    expect:\n      valid: true\n", i, program)
		}
		b.WriteString(wrong)
		for i := range after {
			fmt.Fprintf(&b, "  - name: d%d\n%s    expect:\n      valid: true\n", i, program)
		}
		return []byte(b.String())
	}
	// want is the error at the wrong case, which starts at line l.
	for kind, tc := range map[string]struct {
		last string
		want func(l int) string
	}{
		"unclosed quote": {`  - name: "unclosed` + "\n", func(l int) string { return fmt.Sprintf("%d:11: not YAML: found unexpected end of stream", l) }},
		"duplicate key": {"  - name: last\n" + program + "    program: p.json\n", func(l int) string {
			return fmt.Sprintf("%d:5: key \"program\" given twice (first at %d:5)", l+2, l+1)
		}},
		"bad indent":          {"  - name: last\n" + program + "   expect: {}\n", func(l int) string { return fmt.Sprintf("%d:4: not YAML: did not find expected '-' indicator", l+2) }},
		"a second case named": {"  - name: c1\n" + program, func(l int) string { return fmt.Sprintf("%d:5: a second case named \"c1\" (the first is at line 7)", l) }},
	} {
		t.Run(kind, func(t *testing.T) {
			// The wrong case last, after n-2 more cases, and third,
			// before them: the file read from it on is too dense too.
			// An unclosed quote is not tried third: what follows it is
			// text to its end, and the file within the budget.
			// -short tries it last only, and in the dense file only a
			// second case of one name, the error that needs every case
			// before it read; the others there are the full suite's.
			both := append(sizes, sizes[1:]...)
			if kind == "unclosed quote" || testing.Short() {
				both = sizes
			}
			if testing.Short() && kind != "a second case named" {
				both = sizes[:1]
			}
			for k, n := range both {
				src, l := file(n, tc.last, 0), 2+4*n+1
				if k >= len(sizes) {
					src, l = file(2, tc.last, n-2), 2+4*2+1
				}
				if n > 2 {
					if _, err := Parse(name, src); err == nil || !strings.Contains(err.Error(), "too dense") {
						t.Fatalf("Parse: %v; want the file too dense to read whole", err)
					}
				}
				f, err := Read(name, src)
				if err != nil {
					t.Fatal(err)
				}
				_, e := all(f)
				got := "no error"
				if e != nil {
					got = fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
				}
				if want := tc.want(l); got != want {
					t.Errorf("%d cases, the wrong one at line %d: got %s, want %s", n, l, got, want)
				}
			}
		})
	}
}
