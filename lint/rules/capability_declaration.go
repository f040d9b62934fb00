package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// capabilityDeclaration checks that every Language has a capability
// declaration to compute its effective map from (§4.2): without one,
// nothing at all is declared for it.
var capabilityDeclaration = &lint.Rule{
	ID:       "capability-declaration",
	Category: lint.CatCapabilities,
	Section:  "4.2",
	Severity: report.Error,
	Summary:  "Every Language must have a Language-level capability declaration or fall under a Server-level one.",
	Check: func(p *lint.Pass) {
		if p.Manifest.Has("capabilities") {
			return
		}
		for _, l := range p.Languages {
			if l.Node.Has("capabilities") {
				continue
			}
			p.Report(l.Pointer,
				fmt.Sprintf("%s has no capability declaration and the manifest has no Server-level one, so the manifest is invalid", langLabel(l)),
				"add \"capabilities\": {\"guides\": true, \"validate\": true, ...} to the Language entry, or to the manifest as the Server-level default")
		}
	},
}

func init() { register(capabilityDeclaration) }
