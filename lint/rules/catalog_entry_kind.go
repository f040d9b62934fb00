package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogEntryKind checks §5.4 with §1.5 and §5.2: an entry's kind is an
// engine-defined closed set, enumerated in the closed-sets guide's
// "Catalog entry kinds". An unknown value is an error in a 1.0 or 1.1
// manifest and a warning in a later minor one (reading 11).
var catalogEntryKind = &lint.Rule{
	ID:       "catalog-entry-kind",
	Category: lint.CatCatalog,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "Every catalog entry's `kind` must be listed in the closed-sets guide's catalog entry kinds.",
	Check: func(p *lint.Pass) {
		checkEntryValues(p, "kind", closedsets.SecCatalogKinds, func(s *closedsets.Sets) []string { return kindNames(s.Kinds) },
			"a client treats it as not callable")
	},
}

func init() { register(catalogEntryKind) }
