package pdl

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsSnippetsParse keeps docs/pdl.md honest: every ```pdl block of
// the reference parses without a syntax error. A `{ … }` in a snippet
// stands for a block shown elsewhere and reads as an empty block.
func TestDocsSnippetsParse(t *testing.T) {
	src, err := os.ReadFile("../../docs/pdl.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```pdl\n(.*?)```").FindAllStringSubmatch(string(src), -1)
	if len(blocks) < 10 {
		t.Fatalf("found %d pdl blocks in docs/pdl.md; the reference has an example for every construct", len(blocks))
	}
	for i, m := range blocks {
		snippet := strings.ReplaceAll(m[1], "{ … }", "{ }")
		if _, fs := Parse("docs/pdl.md", []byte(snippet)); len(fs) > 0 {
			t.Errorf("pdl block %d of docs/pdl.md does not parse:\n%s\n%s", i+1, m[1], render(fs))
		}
	}
}
