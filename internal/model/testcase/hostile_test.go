package testcase

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{"binary", "\x00\x01\x02", "not YAML"},
		{"a list at the top", "- 1\n- 2\n", "expected a mapping"},
		{"tab indent", "cases:\n\t- name: a\n", "not YAML"},
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

// TestReferenceBounded: an input file a case names is read up to MaxRef
// and no further, so one that never ends (here /dev/zero) is an error at
// the case's line, not a hang; a case file over MaxFile, a megabyte, is
// refused before go-yaml's tree (30 to 60 bytes a byte) is built.
func TestReferenceBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB from an endless file; run without -short")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "endless.json")); err != nil {
		t.Skip(err)
	}
	src := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: endless.json\n"
	_, err := Parse(filepath.Join(dir, "case.yaml"), []byte(src))
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 4 || !strings.Contains(pe.Msg, "larger than 64 MiB") {
		t.Errorf("got %v, want an error at line 4 naming the 64 MiB limit", err)
	}
	big := "cases:\n" + strings.Repeat("  - name: a\n    program: {steps: [], output: '1'}\n", MaxFile/50+1)
	if _, err := Parse("case.yaml", []byte(big)); !errors.As(err, &pe) || !strings.Contains(pe.Msg, "more than the 1048576") {
		t.Errorf("a %d-byte case file: got %v, want the size limit", len(big), err)
	}
}
