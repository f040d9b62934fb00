package conform

import (
	"encoding/json"
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleExecuteRefusals is the ID of the rule the checks cite as it.
const RuleExecuteRefusals = "execute-refusals"

var _ = registry.Register(&report.RuleInfo{ID: RuleExecuteRefusals, Category: "operations", Section: "6.5.2", Severity: report.Error,
	Summary: "With --execute: execute refuses before running anything: a drifted expected_catalog_version is a catalog_drift outcome, an invalid inline program a validation_error outcome with diagnostics (neither with trace steps or output), an unknown program_ref, an unknown trace_level and store: true under retention none are request errors, and a request both malformed and drifted gets the request error (the first failing check wins)."})

// executeRefusals sends the execute requests a conformant server refuses
// before running anything, in the processing order of §6.5.2. base holds
// the arguments of the user's (valid) program; u, when ok, is the program
// made invalid.
func (c *checker) executeRefusals(man *pilotage.Manifest, l pilotage.LanguageEntry, base map[string]any, u unknownName, haveU bool) {
	with := func(extra map[string]any) map[string]any {
		args := map[string]any{}
		for k, v := range base {
			args[k] = v
		}
		for k, v := range extra {
			if v == nil {
				delete(args, k)
			} else {
				args[k] = v
			}
		}
		return args
	}
	step1 := "§6.5.2 step 1: a failure of request well-formedness is a request error"
	eff := man.EffectiveCapabilities(&l)
	catalog := eff.Has(pilotage.CapCatalog)
	file := c.opt.Program.File
	if catalog {
		what := fmt.Sprintf("execute of %s with an expected_catalog_version that cannot be current", file)
		a := c.call(l.Loop.Execute, with(map[string]any{"expected_catalog_version": absent}))
		runID, o := c.refusedRun(a, what, pilotage.StatusCatalogDrift, "§6.5.2 step 2")
		if o.Status == pilotage.StatusCatalogDrift && o.Error != driftText {
			c.find(RuleCatalogDriftText, a.op, "/structuredContent/outcome/error", "%s: the error is %q; §6.5.2 step 2 shows %q", what, report.Clip(o.Error), driftText)
		}
		if runID != "" && l.Loop.Trace != "" && eff.Has(pilotage.CapTraceFetch) {
			c.sameNotFound(l, runID)
		}
		order := c.call(l.Loop.Execute, with(map[string]any{"expected_catalog_version": absent, "trace_level": unknownLevel}))
		c.requestErrorOf(RuleExecuteRefusals, order, fmt.Sprintf("execute of %s with an unknown trace_level and a drifted expected_catalog_version", file), "",
			"§6.5.2: the first failing check determines the response, and step 1 comes before catalog drift")
	}
	if haveU {
		what := fmt.Sprintf("execute of %s calling %q, a name that cannot exist", file, u.name)
		c.refusedRun(c.call(l.Loop.Execute, with(map[string]any{"program": u.prog})), what, pilotage.StatusValidationError,
			"§6.5.2 step 3: an invalid inline program is not executed")
	}
	refKind := ""
	if catalog {
		// Promoted programs live in the catalog, and an unknown reference
		// is not_found like any unknown name (data-model.md §8).
		refKind = pilotage.ErrNotFound
	}
	c.requestErrorOf(RuleExecuteRefusals, c.call(l.Loop.Execute, with(map[string]any{"program": nil, "program_ref": absent})),
		"execute of a program_ref that cannot exist", refKind, step1+"; an unresolvable reference is not_found")
	c.requestErrorOf(RuleExecuteRefusals, c.call(l.Loop.Execute, with(map[string]any{"trace_level": unknownLevel})),
		fmt.Sprintf("execute of %s with trace_level %q", file, unknownLevel), "", step1)
	if l.Retention == pilotage.RetentionNone {
		c.requestErrorOf(RuleExecuteRefusals, c.call(l.Loop.Execute, with(map[string]any{"store": true})),
			fmt.Sprintf("execute of %s with store: true under retention none", file), pilotage.ErrUnsupported, "§6.5: store: true cannot be honoured under retention none")
	}
}

// refusedRun checks an execute answer that must be a refused Run of
// status want (§6.5.2 steps 2 and 3): ok false, that status, no trace
// steps and no output, since nothing ran. It returns the Run's run_id.
func (c *checker) refusedRun(a answer, what, want, why string) (string, outcome) {
	if !c.processed(RuleExecuteRefusals, a, what) {
		return "", outcome{}
	}
	var run struct {
		RunID   string          `json:"run_id"`
		Outcome outcome         `json:"outcome"`
		Output  json.RawMessage `json:"output"`
		Trace   *struct {
			Steps []json.RawMessage `json:"steps"`
		} `json:"trace"`
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	_ = json.Unmarshal(a.raw, &run)
	o := run.Outcome
	if o.OK == nil || *o.OK || o.Status != want {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/outcome", "%s: the outcome is %s; it must be {\"ok\": false, \"status\": %q} (%s)", what, compact(a.rawOutcome()), want, why)
	}
	if run.Trace != nil && len(run.Trace.Steps) > 0 {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/trace/steps", "%s: the trace has %s; a refused Run executes nothing (%s)", what, count(len(run.Trace.Steps), "step"), why)
	}
	if len(run.Output) > 0 && string(run.Output) != "null" {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/output", "%s: the response has an output; output appears only when outcome.ok is true (§6.5)", what)
	}
	if o.Status == pilotage.StatusValidationError && len(run.Diagnostics) == 0 {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/diagnostics", "%s: a validation_error outcome without diagnostics; the Server must attach them (%s)", what, why)
	}
	return run.RunID, o
}
