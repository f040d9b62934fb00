package rules

import (
	"fmt"
	"slices"
	"strings"

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
			if l.Catalog == nil || len(l.Catalog.Entries) == 0 {
				continue
			}
			// The entries in order of id, then of place: each id's first
			// leads its run. A map of ids took 60 bytes an entry at lint's
			// peak on a large catalog; these indexes take 4.
			entries := l.Catalog.Entries
			byID := make([]int32, len(entries))
			for i := range byID {
				byID[i] = int32(i)
			}
			slices.SortStableFunc(byID, func(a, b int32) int { return strings.Compare(entries[a].ID, entries[b].ID) })
			// Each later entry of an id, with the id's first.
			var dups [][2]int32
			for i, first := 1, byID[0]; i < len(byID); i++ {
				if entries[byID[i]].ID != entries[first].ID {
					first = byID[i]
				} else if entries[first].ID != "" {
					dups = append(dups, [2]int32{byID[i], first})
				}
			}
			slices.SortFunc(dups, func(a, b [2]int32) int { return int(a[0] - b[0]) })
			for _, d := range dups {
				e, f := entries[d[0]], entries[d[1]]
				p.Report(e.Pointer()+"/id", fmt.Sprintf("the catalog of %s has two entries with the id %q (%s and %s); a program naming it is ambiguous",
					langLabel(l), report.Clip(e.ID), indexLabel(f.Pointer()), indexLabel(e.Pointer())),
					"give every entry its own id, or merge the two entries")
			}
		}
	},
}

func init() { register(catalogEntryIDUnique) }
