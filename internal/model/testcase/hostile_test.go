package testcase

import (
	"errors"
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
