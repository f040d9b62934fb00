package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogObligation checks §4.3 rule 2 (and §3.2): a Language with
// environment-bound names declares catalog. Whether a grammar has such
// names is not visible in JSON, but two things in a snapshot show that it
// does: catalog entries published for the Language (each entry describes
// one environment-bound name, §5.4), and a closed-sets guide that
// enumerates catalog entry kinds.
var catalogObligation = &lint.Rule{
	ID:       "catalog-obligation",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "A Language with environment-bound names (visible as catalog entries or catalog entry kinds) must declare `catalog`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if l.Caps.Has(pilotage.CapCatalog) || capMalformed(p, l, pilotage.CapCatalog) {
				continue
			}
			if c := l.Catalog; c != nil && len(c.Entries) > 0 {
				reportCap(p, l, pilotage.CapCatalog,
					fmt.Sprintf("%s does not declare \"catalog\", yet the snapshot holds catalog entries for it (%s); each entry is an environment-bound name, so the catalog is required",
						langLabel(l), entryIDs(c.Entries)),
					"declare \"catalog\": true and give the Language a \"catalog\" address; or, if programs never refer to these entries, remove them from the snapshot")
			}
			cs := l.ClosedSets()
			if cs == nil || len(cs.Parsed.Sets.Kinds) == 0 {
				continue
			}
			line := cs.Parsed.Sections[closedsets.SecCatalogKinds].Line
			p.ReportLine(cs.Guide, line,
				fmt.Sprintf("%s does not declare \"catalog\", yet its closed-sets guide enumerates catalog entry kinds (%s); names of those kinds are environment-bound, so the catalog is required",
					langLabel(l), quoteAll(kindNames(cs.Parsed.Sets.Kinds))),
				"declare \"catalog\": true for the Language; or, if its programs depend on the grammar alone, remove the \"Catalog entry kinds\" section")
		}
	},
}

// entryIDs names the first entries, enough to recognise the catalog.
func entryIDs(es []*lint.Entry) string {
	var ids []string
	for _, e := range es[:min(len(es), 3)] {
		ids = append(ids, e.ID)
	}
	if len(es) > 3 {
		return fmt.Sprintf("%s and %d more", quoteAll(ids), len(es)-3)
	}
	return quoteAll(ids)
}

func kindNames(ks []closedsets.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Kind
	}
	return out
}

func init() { register(catalogObligation) }
