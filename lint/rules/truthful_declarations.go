package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// truthfulDeclarations checks what §4.3 rule 6 lets JSON show: settings
// that claim execution features on a Language that cannot execute.
// `execution_mode`, `trace_level` and `retention` without execute are
// errors (reading 12), but for `retention: "none"` (see executeSetting).
// `trace_subprogram` (how traces show sub-programs) without execute, and
// `promotion_authority` (how promoted programs run) without both catalog
// and execute, describe features that cannot exist either; the readings
// do not list them, so they are warnings.
//
// A sub-feature under an undeclared parent cannot be written in JSON: an
// object value declares its parent and `false` carries no sub-features. A
// sub-feature written as a capability (`"search": true`) is reported by
// capability-unknown.
var truthfulDeclarations = &lint.Rule{
	ID:       "truthful-declarations",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "A Language must not declare execution settings (execution mode, trace level, retention) for an `execute` it does not declare.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			exec := l.Caps.Has(pilotage.CapExecute)
			if !exec {
				for _, f := range []string{"execution_mode", "trace_level", "retention"} {
					if l.Node.Has(f) {
						executeSetting(p, l, f)
					}
				}
				if l.Node.Has("trace_subprogram") {
					p.ReportAs(report.Warning, l.Pointer+"/trace_subprogram", true,
						fmt.Sprintf("%s declares \"trace_subprogram\" but not \"execute\"; without execution there are no traces to expand sub-programs in", langLabel(l)),
						"remove \"trace_subprogram\", or declare \"execute\"")
				}
			}
			if l.Node.Has("promotion_authority") && !(exec && l.Caps.Has(pilotage.CapCatalog)) {
				p.ReportAs(report.Warning, l.Pointer+"/promotion_authority", true,
					fmt.Sprintf("%s declares \"promotion_authority\" without both \"catalog\" and \"execute\"; promoted programs are catalog entries run through execute, so it can have none", langLabel(l)),
					"remove \"promotion_authority\", or declare \"catalog\" and \"execute\" if the Language really promotes programs")
			}
		}
	},
}

// executeSetting reports execute setting f on a Language that does not
// declare execute. `retention: "none"` says that no Run is kept, which is
// true of a Language that runs none: it claims nothing, so it is only a
// warning that the field is redundant (reading 12 as docs/readings.md
// amends it). Every other setting claims a feature: an error.
func executeSetting(p *lint.Pass, l *lint.Language, f string) {
	if r, isString := stringField(l, f); f == "retention" && isString && r == pilotage.RetentionNone {
		p.ReportAs(report.Warning, l.Pointer+"/"+f, true,
			fmt.Sprintf("%s declares \"retention\": \"none\" but not \"execute\"; true, as it runs no programs, but redundant: retention says how Runs are kept", langLabel(l)),
			"remove \"retention\"; it belongs to Languages that declare \"execute\" (§5.1)")
		return
	}
	p.ReportKey(l.Pointer+"/"+f,
		fmt.Sprintf("%s declares %q but not \"execute\"; it claims an execution feature it does not provide", langLabel(l), report.Clip(f)),
		fmt.Sprintf("remove %q, or declare \"execute\" (with its \"loop.execute\" address) if the Language really runs programs", report.Clip(f)))
}

func init() { register(truthfulDeclarations) }
