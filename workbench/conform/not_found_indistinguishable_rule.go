package conform

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleNotFoundIndistinguishable is the ID of the rule the checks cite as it.
const RuleNotFoundIndistinguishable = "not-found-indistinguishable"

var _ = registry.Register(&report.RuleInfo{ID: RuleNotFoundIndistinguishable, Category: "channels", Section: "6.6", Severity: report.Error,
	Summary: "With --execute, when the Language declares trace_fetch: a fetch of a refused (never retained) Run and a fetch of an unknown run_id give the same request error: the same kind and the same message once the run_id is taken out."})

// sameNotFound fetches a refused Run, never retained (§6.6), and an
// unknown run_id: "the following conditions MUST produce the same request
// error", so both are not_found with the same message once each run_id is
// taken out of it.
func (c *checker) sameNotFound(l pilotage.LanguageEntry, runID string) {
	refused := c.call(l.Loop.Trace, map[string]any{"run_id": runID})
	what := fmt.Sprintf("a fetch of run %q, refused for catalog drift and so never retained", report.Clip(runID))
	kind, msg, ok := c.requestErrorOf(RuleRequestErrorChannel, refused, what, pilotage.ErrNotFound, "§6.6")
	if !ok {
		return
	}
	unknown := c.call(l.Loop.Trace, map[string]any{"run_id": absent})
	uKind, uMsg, uok := c.requestErrorOf(RuleRequestErrorChannel, unknown, "a fetch of an unknown run_id", pilotage.ErrNotFound, "§6.6")
	if !uok {
		return
	}
	shape := func(m, id string) string { return strings.ReplaceAll(m, id, "RUN_ID") }
	if kind != uKind || shape(msg, runID) != shape(uMsg, absent) {
		c.find(RuleNotFoundIndistinguishable, refused.op, "/structuredContent/error", "%s answers {kind %q, message %q}, an unknown run_id {kind %q, message %q}; a non-retained Run and an unknown run_id must produce the same request error (§6.6)",
			what, report.Clip(kind), report.Clip(msg), report.Clip(uKind), report.Clip(uMsg))
	}
}
