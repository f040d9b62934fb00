package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// coverageRuleLink is how docs/coverage/replay.md names a rule: a link to
// its section of docs/replay.md, [id](../replay.md#id).
var coverageRuleLink = regexp.MustCompile(`\[([a-z0-9-]+)\]\(\.\./replay\.md#([a-z0-9-]+)\)`)

// coverageProblems checks the coverage table against the rule registry:
// every rule is named in a table row, every rule named exists, and each
// link's text names the rule it points at.
func coverageProblems(page string) []string {
	var out []string
	named := map[string]bool{}
	for _, line := range strings.Split(page, "\n") {
		for _, m := range coverageRuleLink.FindAllStringSubmatch(line, -1) {
			if m[1] != m[2] {
				out = append(out, fmt.Sprintf("the link text %q points at rule %q", m[1], m[2]))
			}
			if !strings.HasPrefix(line, "|") {
				out = append(out, fmt.Sprintf("rule %q is named outside the table; name rules in table rows only", m[1]))
			}
			named[m[2]] = true
		}
	}
	for _, r := range Rules() {
		if !named[r.ID] {
			out = append(out, fmt.Sprintf("rule %s is in no row; add it to the row of the requirement it checks", r.ID))
		}
		delete(named, r.ID)
	}
	for id := range named {
		out = append(out, fmt.Sprintf("rule %q is named but does not exist", id))
	}
	return out
}

// TestCoverageTableNamesEveryRule keeps docs/coverage/replay.md, the audit
// of replay against Part II and data-model.md, in step with the registry,
// so the page's claim of what replay checks stays true when rules are
// added, renamed or removed.
func TestCoverageTableNamesEveryRule(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "docs", "coverage", "replay.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range coverageProblems(string(src)) {
		t.Error("docs/coverage/replay.md: " + p)
	}
}

// TestCoverageCheckCanFail: a table missing a rule, naming a rule that
// does not exist, or mislinking one is reported.
func TestCoverageCheckCanFail(t *testing.T) {
	var rows []string
	for _, r := range Rules()[1:] {
		rows = append(rows, fmt.Sprintf("| x | y | [%s](../replay.md#%s) |", r.ID, r.ID))
	}
	rows = append(rows, "| x | y | [ghost-rule](../replay.md#ghost-rule) [trace-json](../replay.md#trace-shape) |")
	got := strings.Join(coverageProblems(strings.Join(rows, "\n")), "\n")
	for _, want := range []string{"rule " + Rules()[0].ID + " is in no row", `rule "ghost-rule" is named but does not exist`, `the link text "trace-json" points at rule "trace-shape"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the check did not report %q; it reported:\n%s", want, got)
		}
	}
}
