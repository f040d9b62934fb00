package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogEntryIDUnique checks reading 13 of data-model.md: catalog entry
// ids are unique, since programs and lookup `get` name entries by id
// (§5.4, §6.3).
var catalogEntryIDUnique = &lint.Rule{
	ID:       "catalog-entry-id-unique",
	Category: lint.CatCatalog,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "Catalog entry ids must be unique within a catalog.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if l.Catalog == nil {
				continue
			}
			first := map[string]*lint.Entry{}
			for _, e := range l.Catalog.Entries {
				if e.ID == "" {
					continue
				}
				if f, dup := first[e.ID]; dup {
					p.Report(e.Pointer+"/id", fmt.Sprintf("the catalog of %s has two entries with the id %q (%s and %s); a program naming it is ambiguous",
						langLabel(l), report.Clip(e.ID), indexLabel(f.Pointer), indexLabel(e.Pointer)),
						"give every entry its own id, or merge the two entries")
					continue
				}
				first[e.ID] = e
			}
		}
	},
}

func init() { register(catalogEntryIDUnique) }
