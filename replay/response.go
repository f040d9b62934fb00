package replay

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Severities of a diagnostic (§5.5, data-model.md), a closed set.
var severities = []string{"error", "warning", "info"}

// response checks what an execute or trace-fetch response says beside
// its trace: output only with ok (§6.5), and the diagnostics a
// validation_error attaches (§6.5.2).
func (c *checker) response(top *traceMembers) {
	o, ok := outcomeOf(top.outcome)
	if !ok {
		return
	}
	if top.output != nil && !*o.OK {
		c.add(finding{rule: RuleRunOutput, at: *top.output,
			msg:  fmt.Sprintf("the response carries output, but its outcome is %s with ok false", *o.Status),
			hint: "output appears only when outcome.ok is true and the Language produces a result (§6.5)"})
	}
	if top.narration != nil {
		c.narration(*top.narration, *o.Status)
	}
	if *o.Status == pilotage.StatusValidationError && c.errorDiagnostics == 0 {
		c.add(finding{rule: RuleResponseDiagnostics, at: top.outcome.site,
			msg:  "the Run was refused with validation_error, but the response attaches no error diagnostic",
			hint: "an execute-time validation_error returns the diagnostics that made the program, input or context invalid (§6.5.2)"})
	}
}
