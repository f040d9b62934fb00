package rules

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/lint/golden"
	"github.com/pilotage-dev/pilotage/lint/report"
)

// TestRulesIndex keeps docs/rules/README.md, the index of every rule, equal
// to what rules.All() says; go test -update rewrites it.
func TestRulesIndex(t *testing.T) {
	golden.Check(t, filepath.Join("..", "..", "docs", "rules", "README.md"), []byte(rulesIndex()))
}

// rulesIndex renders the index: one table row per rule, sorted by ID.
func rulesIndex() string {
	var b strings.Builder
	b.WriteString(`# Lint rules

Every rule ` + "`pilotage lint`" + ` applies, generated from the rule registry
(` + "`go test ./lint/rules -run TestRulesIndex -update`" + ` rewrites this file). Each
rule enforces one requirement of Pilotage 1.1 Part II (the section column),
of the project's MCP binding (` + "`binding.md`" + ` in that column) or one reading of
` + "`data-model.md`" + `, and has a page with what it checks, why,
the text it enforces and a failing and a fixed example.

Severity: ` + "`error`" + ` for a MUST, ` + "`warning`" + ` for a SHOULD, ` + "`info`" + ` for what a
published document cannot settle. Rules that judge values of a closed set
report an ` + "`error`" + ` in a 1.0 or 1.1 manifest and a ` + "`warning`" + ` in a later minor
version (reading 11). Turn a rule off with ` + "`--disable ID`" + `; list them with
` + "`pilotage lint --list-rules`" + `.

| rule | category | section | severity | summary |
|---|---|---|---|---|
`)
	for _, r := range All() {
		fmt.Fprintf(&b, "| [%s](%s.md) | %s | %s | %s | %s |\n", r.ID, r.ID, r.Category, report.Cite(r.Section), r.Severity,
			strings.ReplaceAll(r.Summary, "|", `\|`))
	}
	return b.String()
}
