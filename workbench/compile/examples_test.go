package compile

import (
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// A guide body built to make Markdown inline parsing quadratic (half a
// megabyte of unclosed links) compiles quickly, and the example program
// after it is still checked: the plain goldmark parse took 22 s on
// 200 KB of it. The bound is generous for a loaded CI machine.
func TestHostileGuideBodyIsCheap(t *testing.T) {
	src := []byte("language \"a/v1\" {\n  capabilities {\n    guides\n    validate\n  }\n  guide core \"G\" level=core file=\"g.md\"\n}\n")
	body := "# G\n\n" + strings.Repeat("[a](", 125_000) + "\n\n```json\n{\"steps\": [{\"id\": \"x\", \"call\": \"nowhere\"}]}\n```\n"
	read := func(name string) ([]byte, error) {
		if name == "g.md" {
			return []byte(body), nil
		}
		return nil, fs.ErrNotExist
	}
	start := time.Now()
	res := Source("lang.pdl", src, Options{ReadFile: read})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("compiling took %v", d)
	}
	var examples []string
	for _, f := range res.Findings {
		if f.Rule == pdl.RuleExample {
			examples = append(examples, f.Message)
		}
	}
	if len(examples) != 1 || !strings.Contains(examples[0], `no catalog entry named "nowhere"`) {
		t.Errorf("want the example's unknown name reported, got %q", examples)
	}
}
