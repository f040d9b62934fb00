package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// traceObligation checks §4.3 rule 4 (and §5.8.1): a Language that
// declares execute supports traces, and says so with a `trace_level`
// ceiling of summary or full. "none" is a request value, never a ceiling.
// Other values outside the set are language-field-value's business.
var traceObligation = &lint.Rule{
	ID:       "trace-obligation",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "A Language that declares `execute` must declare `trace_level` \"summary\" or \"full\".",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.Caps.Has(pilotage.CapExecute) {
				continue
			}
			n := l.Node.Get("trace_level")
			switch {
			case !n.Exists():
				p.Report(l.Pointer, fmt.Sprintf("%s declares \"execute\" but no \"trace_level\"; there is no conformant execute without trace support", langLabel(l)),
					"add \"trace_level\": \"summary\", or \"full\" if traces carry every step's input and output")
			case n.String() == pilotage.LevelNone:
				p.Report(l.Pointer+"/trace_level",
					fmt.Sprintf("%s declares \"execute\" with \"trace_level\": \"none\"; \"none\" is what a client may request for one Run, not a level a Language may support", langLabel(l)),
					"declare the highest level the Language supports: \"summary\" at least, or \"full\"")
			}
		}
	},
}

func init() { register(traceObligation) }
