package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleResponseDiagnostics is the ID of the rule the checks cite as it.
const RuleResponseDiagnostics = "response-diagnostics"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleResponseDiagnostics, Category: CatOutcomes, Section: "6.5.2", Severity: report.Error,
	Summary: "A validation_error response attaches its diagnostics, at least one an error; each diagnostic has code, severity, message and path, with a code from the Language's closed set."}})

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
			c.add(finding{rule: RuleResponseDiagnostics, at: d.at("/severity"), msg: fmt.Sprintf("diagnostic severity %q is not error, warning or info", report.Clip(*w.Severity))})
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
		msg:  fmt.Sprintf("diagnostic code %q is not in the Language's closed diagnostic set (%s)", report.Clip(*w.Code), strings.Join(report.Clips(codes), ", ")),
		hint: "a diagnostic code never holds a value outside the closed set; constraint is the fallback (§5.5)"})
}
