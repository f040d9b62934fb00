package conform

import (
	"encoding/json"
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleTraceFetchRun is the ID of the rule the checks cite as it.
const RuleTraceFetchRun = "trace-fetch-run"

var _ = registry.Register(&report.RuleInfo{ID: RuleTraceFetchRun, Category: "operations", Section: "6.6", Severity: report.Error,
	Summary: "The fetch door returns the Run execute returned: the same run_id and outcome, a trace at no higher level than recorded, and at the same level the same trace envelope."})

// fetch asks the fetch door for the Run execute returned and checks it is
// the same Run (§6.6): the same run_id and outcome, and a trace at no
// higher level than recorded. Conform sends execute no trace_level, so
// the effective level is the Language's ceiling and the inline trace is
// the recorded one. A refused Run is never retained, so its fetch is
// not_found. replay then checks the fetched trace against the plan. It
// returns the saved file, "" when there is none.
func (c *checker) fetch(l pilotage.LanguageEntry, e answer) (string, []byte) {
	var run runFacts
	if json.Unmarshal(e.raw, &run) != nil || run.RunID == "" {
		return "", nil
	}
	if pilotage.IsRefusal(run.status()) {
		c.notFound(c.call(l.Loop.Trace, map[string]any{"run_id": run.RunID}), fmt.Sprintf("a fetch of run %q, refused (%s) and so never retained (§6.6)", report.Clip(run.RunID), run.status()))
		return "", nil
	}
	f := c.call(l.Loop.Trace, map[string]any{"run_id": run.RunID})
	if !c.expect(f, "trace fetch of run "+report.Clip(run.RunID)) {
		return "", nil
	}
	var got runFacts
	_ = json.Unmarshal(f.raw, &got)
	if got.RunID != run.RunID {
		c.find(RuleTraceFetchRun, f.op, "/structuredContent/run_id", "the fetch door returned run_id %q for run %q", report.Clip(got.RunID), report.Clip(run.RunID))
	} else if !sameJSON(got.Outcome, run.Outcome) {
		c.find(RuleTraceFetchRun, f.op, "/structuredContent/outcome", "the fetched outcome %s differs from the one execute returned, %s", compact(got.Outcome), compact(run.Outcome))
	}
	if recorded, fetched := levelRank[run.level()], levelRank[got.level()]; recorded > 0 && fetched > recorded {
		c.find(RuleTraceFetchRun, f.op, "/structuredContent/trace/level", "the fetch door returned the trace at level %s, but execute recorded it at %s: the fetch door must not return more than was recorded", got.level(), run.level())
	} else if got.RunID == run.RunID && recorded == fetched && recorded > 0 {
		// Fetched at the level it was recorded at, the trace is "the same
		// trace envelope that rode the execute response" (§6.6).
		var x, y any
		_ = json.Unmarshal(run.Trace, &x)
		_ = json.Unmarshal(got.Trace, &y)
		if at, ok := firstDifference(x, y, ""); !ok {
			c.find(RuleTraceFetchRun, f.op, "/structuredContent/trace"+at, "the fetched trace differs at %s from the one that rode the execute response; at the same level the fetch door returns the same trace envelope (§6.6)", orRoot(at))
		}
	}
	path, src, err := c.saveAnswer("trace.json", f.raw)
	if err != nil {
		c.status("%v", err)
		return "", nil
	}
	return path, src
}
