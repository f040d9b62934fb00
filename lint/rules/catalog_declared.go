package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogDeclared checks that a snapshot's catalogs match the manifest
// (§4.3 rule 7, §5.4): a Language that declares catalog has its catalog
// in the snapshot, and a catalog belongs to a Language of the manifest.
// A catalog with entries for a Language that does not declare catalog is
// catalog-obligation's finding (those entries are environment-bound
// names); an empty one is reported here.
var catalogDeclared = &lint.Rule{
	ID:       "catalog-declared",
	Category: lint.CatCatalog,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "A snapshot must hold a catalog for exactly the Languages that declare `catalog`.",
	Check: func(p *lint.Pass) {
		if p.Kind != lint.KindSnapshot || !p.Manifest.Exists() {
			return
		}
		for _, l := range p.Languages {
			declared := l.Caps.Has(pilotage.CapCatalog)
			switch {
			case declared && l.Catalog == nil && l.ID != "":
				reportCap(p, l, pilotage.CapCatalog, fmt.Sprintf("%s declares catalog, but the snapshot has no catalog for it, so its entries cannot be checked", langLabel(l)),
					fmt.Sprintf("add %q: {\"catalog_version\": \"...\", \"items\": [ ... ]} under \"catalog\"", report.Clip(l.ID)))
			case !declared && l.Catalog != nil && len(l.Catalog.Entries) == 0:
				p.ReportKey(l.Catalog.Pointer, fmt.Sprintf("the snapshot has a catalog for %s, which does not declare catalog", langLabel(l)),
					"remove the empty catalog; a Language whose programs depend on the grammar alone has none (§3.2)")
			}
		}
		strayKeys(p, "catalog", "a catalog")
	},
}

func init() { register(catalogDeclared) }
