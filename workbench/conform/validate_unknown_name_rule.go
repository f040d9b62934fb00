package conform

import (
	"encoding/json"
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// RuleValidateUnknownName is the ID of the rule the checks cite as it.
const RuleValidateUnknownName = "validate-unknown-name"

var _ = registry.Register(&report.RuleInfo{ID: RuleValidateUnknownName, Category: "operations", Section: "5.5", Severity: report.Error,
	Summary: "With --program: the program with one catalog name replaced by one that cannot exist validates as invalid, with an unknown_name diagnostic whose path locates the name."})

// validateUnknownName validates the program with a name that cannot
// exist: a validation result, not a request error (§8), invalid, with an
// unknown_name diagnostic (§5.5) whose path locates the name.
func (c *checker) validateUnknownName(l pilotage.LanguageEntry, u unknownName) {
	what := fmt.Sprintf("validate of %s calling %q, a name that cannot exist", c.opt.Program.File, u.name)
	a := c.call(l.Loop.Validate, map[string]any{"program": u.prog})
	if !c.processed(RuleValidateUnknownName, a, what) {
		return
	}
	var res struct {
		Valid       bool `json:"valid"`
		Diagnostics []struct {
			Code string          `json:"code"`
			Path json.RawMessage `json:"path"`
		} `json:"diagnostics"`
	}
	_ = json.Unmarshal(a.raw, &res)
	if res.Valid {
		c.find(RuleValidateUnknownName, a.op, "/structuredContent/valid", "%s is valid; an unresolvable name makes the program invalid (§5.5)", what)
	}
	for i, d := range res.Diagnostics {
		if d.Code != "unknown_name" {
			continue
		}
		var at string
		if u.pointer != "" || !syntax.Textual(l.Locator) {
			var p string
			if json.Unmarshal(d.Path, &p) == nil && p == u.pointer {
				return
			}
			at = fmt.Sprintf("%q, the pointer of the name", u.pointer)
		} else {
			var r struct {
				Start struct {
					Line int `json:"line"`
				} `json:"start"`
			}
			if json.Unmarshal(d.Path, &r) == nil && r.Start.Line == u.line {
				return
			}
			at = fmt.Sprintf("a range starting on line %d, where the name is", u.line)
		}
		c.find(RuleValidateUnknownName, a.op, fmt.Sprintf("/structuredContent/diagnostics/%d/path", i), "%s: the unknown_name diagnostic's path is %s; it must locate the name: %s (§5.5)", what, compact(d.Path), at)
		return
	}
	c.find(RuleValidateUnknownName, a.op, "/structuredContent/diagnostics", "%s has no unknown_name diagnostic; an environment-bound name that does not resolve is unknown_name (§5.5)", what)
}
