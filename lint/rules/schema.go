package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/report"
)

// schemaRule validates the document against the embedded JSON Schema of
// its kind: required members and JSON types of every structure (§1.1,
// §5.1–§5.4, data-model.md). Closed-set values are other rules' business,
// because their severity depends on the manifest version (reading 11).
var schemaRule = &lint.Rule{
	ID:       "schema",
	Category: lint.CatSyntax,
	Section:  "1.1",
	Severity: report.Error,
	Summary:  "Every structure must have its required (M) members with the JSON types of data-model.md.",
	Check: func(p *lint.Pass) {
		name := ""
		switch p.Kind {
		case lint.KindManifest:
			name = pilotage.SchemaManifest
		case lint.KindSnapshot:
			name = pilotage.SchemaSnapshot
		default:
			return
		}
		s, err := pilotage.Schema(name)
		if err != nil {
			p.Report("", fmt.Sprintf("internal error: embedded schema %s: %v", name, err), "")
			return
		}
		for _, v := range pilotage.Violations(s.Validate(p.Doc.Root.Value())) {
			p.Report(v.Pointer, v.Message, schemaHint(v.Message))
		}
	},
}

func schemaHint(string) string {
	return "see the field tables in data-model.md for the required members and their types"
}

func init() { register(schemaRule) }
