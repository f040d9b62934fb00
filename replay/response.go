package replay

import (
	"fmt"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Severities of a diagnostic (§5.5, data-model.md), a closed set.
var severities = []string{"error", "warning", "info"}

// diagnostic checks one diagnostic of a response as it streams past
// (§5.5): its required members, its severity and, with the Language, its
// code. Error-severity diagnostics are counted for the validation_error
// check at the end of the file.
func (c *checker) diagnostic(d *diagnostic) {
	if d.bad != nil {
		c.add(finding{rule: RuleResponseDiagnostics, at: d.site,
			msg:  "diagnostic does not have the shape of a diagnostic: " + strings.TrimPrefix(d.bad.Error(), "json: "),
			hint: "a diagnostic is {code, severity, message, path, range?, hint?} (§5.5)"})
		return
	}
	w := &d.w
	var missing []string
	for _, m := range []struct {
		there bool
		name  string
	}{{w.Code != nil, "code"}, {w.Severity != nil, "severity"}, {w.Message != nil, "message"}, {len(w.Path) > 0, "path"}} {
		if !m.there {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		c.add(finding{rule: RuleResponseDiagnostics, at: d.site, msg: "diagnostic has no " + strings.Join(missing, ", "),
			hint: "code, severity, message and path are required members of a diagnostic (§5.5)"})
	}
	if w.Severity != nil {
		if !slices.Contains(severities, *w.Severity) {
			c.add(finding{rule: RuleResponseDiagnostics, at: d.at("/severity"), msg: fmt.Sprintf("diagnostic severity %q is not error, warning or info", *w.Severity)})
		}
		if *w.Severity == "error" {
			c.errorDiagnostics++
		}
	}
	if w.Code == nil || c.lang == nil || len(c.lang.Sets.DiagnosticCodes) == 0 {
		return
	}
	var codes []string
	for _, k := range c.lang.Sets.DiagnosticCodes {
		if k.Code == *w.Code {
			return
		}
		codes = append(codes, k.Code)
	}
	c.add(finding{rule: RuleResponseDiagnostics, at: d.at("/code"),
		msg:  fmt.Sprintf("diagnostic code %q is not in the Language's closed diagnostic set (%s)", *w.Code, strings.Join(codes, ", ")),
		hint: "a diagnostic code never holds a value outside the closed set; constraint is the fallback (§5.5)"})
}

// narration checks a response that carries narration, which only the
// fetch door returns (§6.6): for a Language declaring trace_fetch.narrate,
// and never for a refused Run, which is not retrievable there.
func (c *checker) narration(at site, status string) {
	if pilotage.IsRefusal(status) {
		c.add(finding{rule: RuleFetchNarration, at: at,
			msg:  fmt.Sprintf("a response with narration, which only the fetch door returns, for a Run refused with %s", status),
			hint: "refused Runs are never retained and are not retrievable through the fetch door (§6.5, §6.6)"})
	}
	if c.lang != nil && !c.lang.Narrate {
		c.add(finding{rule: RuleFetchNarration, at: at,
			msg:  fmt.Sprintf("the response carries narration, but Language %q does not declare trace_fetch.narrate", c.lang.ID),
			hint: "by default the fetch door returns the recorded facts and no interpretation; narration needs narrate: true (§6.6)"})
	}
}

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
