package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// coverageRuleLink is how docs/coverage/lint.md names a rule: a link to
// its page, [id](../rules/id.md).
var coverageRuleLink = regexp.MustCompile(`\[([a-z0-9-]+)\]\(\.\./rules/([a-z0-9-]+)\.md\)`)

// TestCoverageTableNamesEveryRule keeps docs/coverage/lint.md, the audit
// of lint against the spec, in step with the registry: a rule added
// without a row in the table, or a row naming a rule that was renamed or
// removed, fails here, so the page's claim of what lint checks stays true.
func TestCoverageTableNamesEveryRule(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "coverage", "lint.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, line := range strings.Split(string(src), "\n") {
		for _, m := range coverageRuleLink.FindAllStringSubmatch(line, -1) {
			if m[1] != m[2] {
				t.Errorf("docs/coverage/lint.md links the text %q to the page of %q", m[1], m[2])
			}
			if !strings.HasPrefix(line, "|") {
				t.Errorf("docs/coverage/lint.md names rule %q outside the table; name rules in table rows only", m[1])
			}
			named[m[2]] = true
		}
	}
	for _, r := range All() {
		if !named[r.ID] {
			t.Errorf("rule %s is in no row of docs/coverage/lint.md; add it to the row of the requirement it checks", r.ID)
		}
		delete(named, r.ID)
	}
	for id := range named {
		t.Errorf("docs/coverage/lint.md names rule %q, which does not exist", id)
	}
}
