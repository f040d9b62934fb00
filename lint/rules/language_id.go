package rules

import (
	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// languageID checks that every Language identifier has the form
// family/version (§3.3), since clients key guide caches by it and the MCP
// binding derives tool prefixes from it.
var languageID = &lint.Rule{
	ID:       "language-id",
	Category: lint.CatManifest,
	Section:  "3.3",
	Severity: report.Error,
	Summary:  "Every Language id must have the form `family/version` with a non-empty family and version and exactly one `/`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			id, ok := stringField(l, "id")
			if !ok {
				continue // missing or not a string: the schema rule reports it
			}
			if _, err := pilotage.ParseLanguageID(id); err != nil {
				p.Report(l.Pointer+"/id", err.Error(),
					"write the id as family/version, such as \"workflow/v1\" or \"sql/postgres-15\"; change the version part whenever the grammar changes incompatibly (§11.2)")
			}
		}
	},
}

func init() { register(languageID) }
