package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogPureLanguage checks the §3.2 recommendation that a pure Language,
// whose validity depends on its grammar alone, does not declare catalog.
// JSON cannot show the grammar, but it shows one sure sign: every
// environment-bound name is a catalog entry of some kind (§5.4), and the
// closed-sets guide enumerates every kind (§5.2). A guide whose "Catalog
// entry kinds" table lists none, for a catalog that holds no entry, says
// that no name can ever resolve against Server state. An empty catalog
// alone says nothing: a Server may simply have no entries yet.
var catalogPureLanguage = &lint.Rule{
	ID:       "catalog-pure-language",
	Category: lint.CatCapabilities,
	Section:  "3.2",
	Severity: report.Warning,
	Summary:  "A Language whose closed-sets guide lists no catalog entry kind (and whose catalog is empty) is pure and should not declare `catalog`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.Caps.Has(pilotage.CapCatalog) || !pureCatalog(l) {
				continue
			}
			reportCap(p, l, pilotage.CapCatalog,
				fmt.Sprintf("%s declares \"catalog\", but its closed-sets guide lists no catalog entry kind, so no program can name an entry: the Language is pure, and its catalog would always be empty",
					langLabel(l)),
				"drop \"catalog\" and the \"catalog\" address if programs depend on the grammar alone; otherwise list the entry kinds under \"## Catalog entry kinds\"")
		}
	},
}

// pureCatalog reports whether l's readable closed-sets guide lists no
// catalog entry kind while its catalog, if the input has one, is empty.
func pureCatalog(l *lint.Language) bool {
	cs, ok := section(l, closedsets.SecCatalogKinds)
	if !ok || len(cs.Parsed.Sets.Kinds) > 0 {
		return false
	}
	return l.Catalog == nil || len(l.Catalog.Entries) == 0
}

func init() { register(catalogPureLanguage) }
