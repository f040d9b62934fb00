package basetest_test

import (
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/yamlerr"

	"go.yaml.in/yaml/v3"
)

// TestYamlerrLineEnds: a file whose lines end in CR LF or a lone CR, which YAML
// reads as line ends too, places its error where the same file with LF
// places it: before, a lone CR's lines were one line to the placer while
// go-yaml counted them.
func TestYamlerrLineEnds(t *testing.T) {
	lines := []string{"cases:", "  - name: a", "    program: p.json", "  - name: b", "    expect:", "      valid: true", "     status: success"}
	var want yamlerr.Error
	for _, end := range []string{"\n", "\r\n", "\r"} {
		src := []byte(strings.Join(lines, end) + end)
		err := yaml.Unmarshal(src, &yaml.Node{})
		if err == nil {
			t.Fatalf("%q: parsed", end)
		}
		got := yamlerr.Place(src, err, "docs/test.md")
		if end == "\n" {
			want = got
			if got.Line != 7 || got.Column != 6 {
				t.Fatalf("LF: placed at %d:%d, want 7:6: %+v", got.Line, got.Column, got)
			}
		}
		if got != want {
			t.Errorf("%q: placed %+v, want %+v as with LF", end, got, want)
		}
	}
}
