package testcase

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// TestHostile: malformed, huge and deep case files fail with a placed
// error, quickly, never a panic.
func TestHostile(t *testing.T) {
	deep := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
	laughs := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: *c\n"
	for _, tc := range []struct{ name, src, want string }{
		{"deep input", deep, "nested more than"},
		{"alias bomb", laughs, `unknown key "a"`},
		{"alias in a value", "cases:\n  - name: a\n    program: &p {steps: [], output: '1'}\n  - name: b\n    program: *p\n", "aliases are not supported"},
		{"huge", "cases:\n" + strings.Repeat("#", MaxFile), "more than the"},
		{"binary", "\x00\x01\x02", "a case file is UTF-8 text"},
		{"latin-1", "cases:\n  - name: caf\xe9\n", "not UTF-8"},
		{"a list at the top", "- 1\n- 2\n", "expected a mapping"},
		{"tab indent", "cases:\n\t- name: a\n", "not YAML"},
		{"dense", denseCases(MaxFile), "too dense to read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse("tests/case.yaml", []byte(tc.src))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if !strings.Contains(pe.Msg, tc.want) || pe.Line < 1 {
				t.Errorf("got %d: %s, want a line and %q", pe.Line, pe.Msg, tc.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestReferenceBounded: an input file a case names must be a regular
// file, so one that never ends (here /dev/zero, or a named pipe) is an
// error at the case's line, never opened, not a hang or 64 MiB read; a
// case file over MaxFile, a megabyte, is refused before go-yaml's tree
// (30 to 60 bytes a byte) is built.
func TestReferenceBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a case file of a megabyte; run without -short")
	}
	dir, err := filepath.Abs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "endless.json")); err != nil {
		t.Skip(err)
	}
	var pe *Error
	// An absolute path is used as given, not taken as relative (it was
	// read as DIR/DIR/endless.json).
	for _, name := range []string{"endless.json", filepath.Join(dir, "endless.json")} {
		src := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: " + name + "\n"
		_, err = Parse(filepath.Join(dir, "case.yaml"), []byte(src))
		if !errors.As(err, &pe) || pe.Line != 4 || !strings.Contains(pe.Msg, "endless.json is a device, not a file") {
			t.Errorf("input: %s: got %v, want an error at line 4 saying it is a device", name, err)
		}
	}
	big := "cases:\n" + strings.Repeat("  - name: a\n    program: {steps: [], output: '1'}\n", MaxFile/50+1)
	if _, err := Parse("case.yaml", []byte(big)); !errors.As(err, &pe) || !strings.Contains(pe.Msg, "more than the 1048576") {
		t.Errorf("a %d-byte case file: got %v, want the size limit", len(big), err)
	}
}

// denseCases is a case file of about n bytes whose one input is a list
// of one-digit numbers, a node every two bytes.
func denseCases(n int) string {
	return "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: [" + strings.Repeat("1,", n/2-40) + "1]\n"
}

// TestDenseRefused: a case file of the most bytes and nodes allowed,
// whose go-yaml tree would take 120 bytes a byte, is refused at the line
// of the nodes past the budget, naming it and the fix, allocating within
// 10 bytes a byte of the file plus 6 MiB (go-yaml alone allocates 118 a
// byte building it); a generated corpus of 1,000 cases (the
// benchmark's, 150 KB) still reads.
func TestDenseRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("measures what refusing a case file of a megabyte allocates; run without -short")
	}
	src := []byte(denseCases(MaxFile))
	var err error
	allocated := memtest.Allocated(func() { _, err = Parse("tests/dense.yaml", src) })
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 4 || !strings.Contains(pe.Msg, "budget of 4 bytes a byte of the file plus 6 MiB") || !strings.Contains(pe.Hint, "split the cases") {
		t.Fatalf("got %v, want an error at line 4 naming the budget", err)
	}
	if limit := 10*uint64(len(src)) + 6<<20; allocated > limit {
		t.Errorf("refusing %d bytes allocated %d, over 10 a byte plus 6 MiB (%d)", len(src), allocated, limit)
	}
	var corpus strings.Builder
	corpus.WriteString("pdl: calc.pdl\ncases:\n")
	for i := range 1000 {
		fmt.Fprintf(&corpus, "  - name: case %d\n    principal: owner\n    program: {steps: [], output: '1'}\n    input: {item: item%d}\n    expect: {status: success, output: [bread, eggs, item%d]}\n", i, i, i)
	}
	if _, err := Parse("tests/corpus.yaml", []byte(corpus.String())); err != nil {
		t.Errorf("a corpus of 1,000 cases: %v", err)
	}
}

// TestYAMLErrorLate: a syntax error on the last line of a case file as
// large as MaxFile allows is placed at its line and column, not at the
// list go-yaml names (line 2) nor at column 1, in a few parses
// (internal/base/yamlerr): at most 6 times what one parse of the file
// allocates, measured in the same run. Halving the whole file, as
// pilotage.yaml's placer did, took a dozen.
func TestYAMLErrorLate(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a case file of a megabyte a few times; run without -short")
	}
	var b strings.Builder
	b.WriteString("cases:\n")
	for i := 0; b.Len() < MaxFile-200; i++ {
		// Long names, so the tree stays within its budget (yamlcost).
		fmt.Fprintf(&b, "  - {name: case-%05d-%s, program: ../p.json}\n", i, strings.Repeat("x", 100))
	}
	lines := strings.Count(b.String(), "\n")
	b.WriteString("  bad: - value\n")
	src := []byte(b.String())
	one := memtest.Allocated(func() { _ = yaml.Unmarshal(src, &yaml.Node{}) })
	var err error
	n := memtest.Allocated(func() { _, err = Parse("tests/case.yaml", src) })
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != lines+1 || pe.Col != 3 || !strings.Contains(pe.Msg, "did not find expected '-' indicator") {
		t.Fatalf("got %v, want line %d, column 3: did not find expected '-' indicator", err, lines+1)
	}
	t.Logf("placing the error allocated %.1f parses of the file", float64(n)/float64(one))
	if n > 6*one {
		t.Errorf("placing the error allocated %d bytes, %.1f parses of the file (%d bytes each); want at most 6", n, float64(n)/float64(one), one)
	}
}
