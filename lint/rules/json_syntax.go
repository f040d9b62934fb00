package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// jsonSyntax, json-syntax, documents the runner's finding for unparsable
// input: the runner raises it (no other rule can run on such a file), and registering
// it here gives it a docs page, a --list-rules line and a --disable switch.
var jsonSyntax = &lint.Rule{
	ID:       lint.RuleJSONSyntax,
	Category: lint.CatSyntax,
	Section:  "5",
	Severity: report.Error,
	Summary:  "The file must be well-formed JSON (RFC 8259): Part II structures are JSON values.",
	Check:    func(*lint.Pass) {},
}

func init() { register(jsonSyntax) }
