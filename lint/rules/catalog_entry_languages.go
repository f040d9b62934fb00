package rules

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogEntryLanguages checks §5.4: an entry's `languages` names the
// Languages that may reference it, so every name is a Language of the
// manifest; and an entry in a Language's catalog that excludes that very
// Language could never be referenced by the programs it is listed for.
var catalogEntryLanguages = &lint.Rule{
	ID:       "catalog-entry-languages",
	Category: lint.CatCatalog,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "A catalog entry's `languages` must name Languages of the manifest, including the Language whose catalog lists it.",
	Check: func(p *lint.Pass) {
		ids, known := languageIDs(p)
		for _, l := range p.Languages {
			if l.Catalog == nil {
				continue
			}
			for _, e := range l.Catalog.Entries {
				langs := e.Node.Get("languages")
				if !langs.Is(jsonpos.Array) || langs.Len() == 0 {
					continue // absent or empty: every Language of the Server
				}
				var named []string
				for i, n := range langs.Elems() {
					if !n.Is(jsonpos.String) {
						continue
					}
					named = append(named, n.Str())
					if !known[n.Str()] {
						p.Report(e.Pointer()+"/languages/"+strconv.Itoa(i),
							fmt.Sprintf("%s names the Language %q, which the manifest does not have", entryLabel(e), report.Clip(n.Str())),
							nearMiss(n.Str(), ids, "Language ids of the manifest"))
					}
				}
				if l.ID != "" && !slices.Contains(named, l.ID) {
					p.Report(e.Pointer()+"/languages",
						fmt.Sprintf("%s is in the catalog of %s, but its languages do not include %q, so no program of that Language may reference it", entryLabel(e), langLabel(l), report.Clip(l.ID)),
						fmt.Sprintf("add %q to \"languages\", or remove the entry from this Language's catalog", report.Clip(l.ID)))
				}
			}
		}
	},
}

func init() { register(catalogEntryLanguages) }
