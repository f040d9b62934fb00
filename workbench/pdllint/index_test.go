package pdllint

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// TestRulesIndex keeps docs/rules/README.md, the index of every rule, equal
// to the lint registry and the PDL compiler's rules, which meet here;
// go test -update rewrites it.
func TestRulesIndex(t *testing.T) {
	golden.Check(t, filepath.Join("..", "..", "docs", "rules", "README.md"), []byte(rulesIndex()))
}

// rulesIndex renders the index: one table row per rule, sorted by ID.
func rulesIndex() string {
	var b strings.Builder
	b.WriteString(`# Lint rules

Every rule ` + "`pilotage lint`" + ` applies, generated from the rule registry
(` + "`go test ./workbench/pdllint -run TestRulesIndex -update`" + ` rewrites this file). Each
rule enforces one requirement of Pilotage 1.1 Part II (the section column),
of the project's MCP binding (` + "`binding.md`" + ` in that column) or one reading of
` + "`data-model.md`" + `, and has a page with what it checks, why,
the text it enforces and a failing and a fixed example.

Severity: ` + "`error`" + ` for a MUST, ` + "`warning`" + ` for a SHOULD, ` + "`info`" + ` for what a
published document cannot settle. Rules that judge values of a closed set
report an ` + "`error`" + ` in a 1.0 or 1.1 manifest and a ` + "`warning`" + ` in a later minor
version (reading 11). Turn a rule off with ` + "`--disable ID`" + `; list them with
` + "`pilotage lint --list-rules`" + `.

The text report ends with a summary line,
` + "`3 errors, 0 warnings in 3 files (checked 53 rules)`" + `: the files counted are the inputs and, besides
them, the files findings are in (the guides and schemas a PDL file names,
a trace's plan), so the count is of files to open. The
` + "`summary.files`" + ` of ` + "`--format json`" + ` counts the inputs alone: it is the
number of files checked, which a program compares across runs. With ` + "`-o FILE`" + ` the
report goes to FILE and standard output names it with what it counts,
` + "`wrote FILE: 3 errors, 0 warnings`" + `, as ` + "`lint`" + `, ` + "`replay`" + ` and ` + "`conform`" + ` do.

The report is written a file at a time, in every format: each input is
read when its turn comes and its findings written as soon as no input
still to check sorts before them (` + "`sarif`" + ` and ` + "`junit`" + ` open with the
rule table and the counts, so they hold their results up to 1,024 in
memory and the rest in a temporary file, unlinked once open so none is
left behind, or all in memory when ` + "`TMPDIR`" + ` cannot take one), so a run of 20,000 files holds
one file's findings, not every file's
([performance](../performance.md#many-small-files)). The order is that of
the whole report, by file, line and column, but for one case: a finding
in a file a PDL input reads (a guide) that sorts before an input already
written comes after it. An input that cannot be read ends the run with
exit 2 and the report cut short where it stopped (with ` + "`-o FILE`" + `, FILE is
not written).
`)
	b.WriteString(pdlRules())
	b.WriteString(suppressionRules())
	b.WriteString("\n" + ruleset.Table(rules.Registry.Infos(), func(id string) string { return id + ".md" }))
	b.WriteString(findingSections)
	return b.String()
}

// pdlRules names the PDL compiler's rules, which --list-rules lists with
// these and docs/pdl.md documents, so a reader of this index finds them.
func pdlRules() string {
	ids := make([]string, len(pdl.Rules))
	for i, r := range pdl.Rules {
		ids[i] = "`" + r.ID + "`"
	}
	return "\nLinting a PDL file also applies the PDL compiler's rules, category `pdl`, which\n" +
		"`--list-rules` lists with these and [pdl.md](../pdl.md#diagnostics) describes: " +
		strings.Join(ids, ", ") + ".\n"
}

// suppressionRules names the rules of # pilotage:ignore comments, which
// --list-rules lists with these and docs/config.md documents.
func suppressionRules() string {
	var links []string
	for _, r := range suppress.Rules() {
		links = append(links, fmt.Sprintf("[`%s`](../config.md#%s)", r.ID, r.ID))
	}
	return "\nIt also checks the PDL file's `# pilotage:ignore` comments, category `suppression`,\n" +
		"conventions of pilotage rather than requirements of the spec: " + strings.Join(links, ", ") + ".\n"
}

// findingSections says, under the table, how findings cite sections.
const findingSections = `
## Findings and their sections

A finding cites its rule's section, except where the rule knows a more
specific one: a [schema](schema.md) finding cites first the section whose
field table defines the failing member (a missing ` + "`pilotage`" + ` is §5.1,
a capability value §4.2, a catalog entry's ` + "`risk`" + ` §5.3), then the
other sections that bear on it (§11.1 for ` + "`pilotage`" + `, §5.4 for the
catalog entry table, §1.1 for a missing required member).

- ` + "`text`, `junit`" + `: every section, most specific first, after the
  rule: ` + "`[schema §5.1, §11.1, §1.1]`" + `; ` + "`github`" + `: the same in the
  annotation's title, ` + "`schema (§5.1, §11.1, §1.1)`" + `.
- ` + "`json`" + `: each finding has ` + "`section`" + `, the most specific, and
  ` + "`sections`" + `, every section it cites, ` + "`section`" + ` first (one
  element for most rules), so a consumer reads one list whatever the rule.
- ` + "`sarif`" + `: each result's ` + "`properties`" + ` carry ` + "`section`" + ` and
  ` + "`sections`" + `, as in json; a rule's own ` + "`properties.section`" + ` is its
  default section.

## Findings and their pointers

A finding's ` + "`pointer`" + ` (text and json) is the JSON Pointer of the value
it is about, and its line:col place it. A member name longer than 120
bytes is clipped in it, in every format, as a message quotes one: its
first 117 bytes and an ellipsis. A snapshot's ` + "`guides`" + ` and ` + "`catalog`" + `
are keyed by Language id, so such a key, in the pointer of every guide,
entry and finding under it, would make each as long (a 1 MB id made the
json report of 2,000 entries 50 MB, and lint held 2.2 GB); it is
written as one stand-in of at most 120 bytes in all of them, its first
bytes and an ellipsis, then a number (` + "`…2`" + `) when another key, or a
member named like the stand-in, begins alike, so the pointers of two
Languages never mix.
`
