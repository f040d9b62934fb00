package pdl

import (
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// TestDocsSnippetsParse keeps docs/pdl.md honest: every ```pdl block of
// the reference parses without a syntax error. A `{ … }` in a snippet
// stands for a block shown elsewhere and reads as an empty block.
func TestDocsSnippetsParse(t *testing.T) {
	// The reference has an example for every construct: ten at least.
	for i, b := range golden.Blocks(t, "../../docs/pdl.md", "pdl", 10) {
		snippet := strings.ReplaceAll(b, "{ … }", "{ }")
		if _, fs := Parse("docs/pdl.md", []byte(snippet)); len(fs) > 0 {
			t.Errorf("pdl block %d of docs/pdl.md does not parse:\n%s\n%s", i+1, b, render(fs))
		}
	}
}
