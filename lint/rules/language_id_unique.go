package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// languageIDUnique checks that no two Language entries share an id
// (reading 13 of data-model.md): the id is the only key a client has for
// a Language's guides, catalog and operations (§3.3).
var languageIDUnique = &lint.Rule{
	ID:       "language-id-unique",
	Category: lint.CatManifest,
	Section:  "3.3",
	Severity: report.Error,
	Summary:  "Language ids must be unique within a manifest.",
	Check: func(p *lint.Pass) {
		first := map[string]*lint.Language{}
		for _, l := range p.Languages {
			id, ok := stringField(l, "id")
			if !ok {
				continue
			}
			if f, dup := first[id]; dup {
				p.Report(l.Pointer+"/id",
					fmt.Sprintf("Language id %q is already used by %s; a client could not tell the two Languages apart", report.Clip(id), indexLabel(f.Pointer)),
					"give each Language its own id, or merge the two entries; a new incompatible revision of a grammar gets a new version part, such as \"workflow/v2\"")
				continue
			}
			first[id] = l
		}
	},
}

func init() { register(languageIDUnique) }
