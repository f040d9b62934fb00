package rules

import (
	"fmt"
	"slices"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// languageFieldValue checks the closed-set fields of a Language entry
// (§5.1). A value outside its set is an error in a 1.0 or 1.1 manifest
// and a warning in a later minor version (reading 11), and the message
// says what a client does with it (§1.3, data-model.md).
var languageFieldValue = &lint.Rule{
	ID:       "language-field-value",
	Category: lint.CatManifest,
	Section:  "5.1",
	Severity: report.Error,
	Summary:  "`locator`, `execution_mode`, `trace_level`, `trace_subprogram` and `promotion_authority` must hold values of their closed sets.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			for _, f := range closedFields {
				v, ok := stringField(l, f.name)
				if !ok || slices.Contains(f.set, v) || slices.Contains(f.others, v) {
					continue
				}
				msg := fmt.Sprintf("%s has %s %q, which is not one of %s", langLabel(l), f.name, report.Clip(v), quoteList(f.set))
				if f.fallback != "" {
					msg += "; a client " + f.fallback
				}
				p.ReportAs(p.ClosedSetSeverity(), l.Pointer+"/"+f.name, false, msg, didYouMean(v, f.set))
			}
		}
	},
}

// closedField is one closed-set member of the Language entry.
type closedField struct {
	name string
	set  []string
	// others are values another rule reports with a better message.
	others []string
	// fallback is what a client does with an unknown value (data-model.md,
	// §1.3 table); empty when the spec gives none.
	fallback string
}

var closedFields = []closedField{
	{name: "locator", set: pilotage.Locators},
	{name: "execution_mode", set: pilotage.ExecutionModes, fallback: "that does not know it does not execute"},
	{name: "trace_level", set: pilotage.TraceLevels, others: []string{pilotage.LevelNone}, // trace-obligation
		fallback: "that does not know it treats it as \"summary\""},
	{name: "trace_subprogram", set: pilotage.TraceSubprograms, fallback: "that does not know it treats it as \"opaque\""},
	{name: "promotion_authority", set: pilotage.PromotionAuthorities, fallback: "that does not know it treats it as \"promoter\", the riskier reading"},
}

func init() { register(languageFieldValue) }
