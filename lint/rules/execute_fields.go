package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// executeFields checks the §5.1 fields a Language needs once it declares
// execute: how programs run (`execution_mode`) and how long Runs are kept
// (`retention`). `trace_level`, also required, is checked by
// trace-obligation, which says why (§4.3 rule 4).
var executeFields = &lint.Rule{
	ID:       "execute-fields",
	Category: lint.CatManifest,
	Section:  "5.1",
	Severity: report.Error,
	Summary:  "A Language that declares `execute` must have `execution_mode` and `retention`.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.Caps.Has(pilotage.CapExecute) {
				continue
			}
			if !l.Node.Has("execution_mode") {
				p.Report(l.Pointer, fmt.Sprintf("%s declares \"execute\" but no \"execution_mode\", so a client cannot tell what executing a program does", langLabel(l)),
					"add \"execution_mode\": \"immediate\" (programs run when executed), \"deploy\" (they are installed to run later) or \"both\"")
			}
			if !l.Node.Has("retention") {
				p.Report(l.Pointer, fmt.Sprintf("%s declares \"execute\" but no \"retention\", so a client cannot tell whether Runs are kept", langLabel(l)),
					"add \"retention\": \"none\" if Runs are not kept, \"session\" if they last the MCP session, or a duration such as \"P7D\"")
			}
		}
	},
}

func init() { register(executeFields) }
