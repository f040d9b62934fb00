package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// promotedInputSchema checks §5.4: a promoted program's catalog entry
// declares an input_schema, which a client reads before invoking it by
// reference (§7.4). The closed-sets guide's "promoted" column says which
// kinds hold promoted programs.
var promotedInputSchema = &lint.Rule{
	ID:       "promoted-input-schema",
	Category: lint.CatCatalog,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "Entries of a promoted-program kind must declare an `input_schema`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs, ok := section(l, closedsets.SecCatalogKinds)
			if !ok || l.Catalog == nil {
				continue
			}
			promoted := map[string]bool{}
			for _, k := range cs.Parsed.Sets.Kinds {
				promoted[k.Kind] = k.Promoted
			}
			for _, e := range l.Catalog.Entries {
				if promoted[e.Kind] && !e.Node.Has("input_schema") {
					p.Report(e.Pointer(), fmt.Sprintf("%s is a promoted program (kind %q) without input_schema; a client cannot know what input it takes", entryLabel(e), report.Clip(e.Kind)),
						"add \"input_schema\", such as {\"type\": \"object\", \"properties\": {}, \"additionalProperties\": false} for a program without input")
				}
			}
		}
	},
}

func init() { register(promotedInputSchema) }
