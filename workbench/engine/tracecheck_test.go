package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// assertTrace checks an inline Run's trace against the plan of the same
// program (§5.8.2 identity, §5.8.1 levels, §5.8.4 correspondence with the
// project's readings), the properties replay/ checks on files.
func assertTrace(t *testing.T, e *Engine, lang, principal string, req pilotage.ExecuteRequest, resp *pilotage.ExecuteResponse) {
	t.Helper()
	if len(req.Program) == 0 || resp.Trace.Mode == pilotage.ModeDeploy {
		return
	}
	v, err := e.Validate(context.Background(), callerOf(principal, "plan"), lang, pilotage.ValidateRequest{Program: req.Program, Context: req.Context})
	if err != nil || v.Plan == nil {
		t.Fatalf("no plan to check the trace against: %v", err)
	}
	for _, p := range traceProblems(v.Plan, resp.Trace) {
		t.Error(p)
	}
	snap, err := json.Marshal(emit.Snapshot(e.state().srv))
	if err != nil {
		t.Fatal(err)
	}
	rl, err := loadReplayLanguage(snap, lang)
	if err != nil {
		t.Fatal(err)
	}
	replayClean(t, v, resp, rl)
}

func traceProblems(plan *pilotage.Plan, tr *pilotage.Trace) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	byID := map[string]pilotage.PlanStep{}
	for _, s := range plan.Steps {
		byID[s.ID] = s
	}
	present := map[string]pilotage.TraceStep{}
	for _, s := range tr.Steps {
		id, err := pilotage.ParseTraceID(s.ID)
		if err != nil {
			bad("%v", err)
			continue
		}
		if _, dup := present[s.ID]; dup {
			bad("trace entry %s appears twice (§5.8.2)", s.ID)
		}
		present[s.ID] = s
		if tr.Level == pilotage.LevelSummary && len(s.Input) > 0 {
			bad("%s carries input at summary (§5.8.1)", s.ID)
		}
		// Every step of this engine is a call: one that succeeded was
		// made, and one that names no call was not, so it carries no
		// input (reading 5; reading 6 as docs/readings.md amends it).
		if s.Kind == pilotage.KindStep && s.Outcome.OK && len(s.Calls) == 0 {
			bad("%s succeeded but names no call (reading 5)", s.ID)
		}
		if tr.Level == pilotage.LevelFull && s.Kind == pilotage.KindStep && (len(s.Calls) > 0) != (len(s.Input) > 0) {
			bad("%s names calls %v but has input %s at full: input goes with a call made (reading 6)", s.ID, s.Calls, s.Input)
		}
		if id.Prefixed() {
			if _, ok := present[strings.Join(strings.Split(s.ID, "/")[:len(id.Prefixes)], "/")]; !ok {
				bad("%s appears before its calling entry (reading 7)", s.ID)
			}
			continue
		}
		ps, ok := byID[id.Base]
		if !ok {
			bad("%s has no plan step", s.ID)
			continue
		}
		if ps.Kind != s.Kind {
			bad("%s is a %s in the trace and a %s in the plan", s.ID, s.Kind, ps.Kind)
		}
		for _, c := range s.Calls {
			if !contains(ps.Calls, c) {
				bad("%s calls %s, which its plan step does not list (reading 5)", s.ID, c)
			}
		}
		for _, d := range s.Decisions {
			if d.At != s.ID {
				bad("%s: decision at %q; the engine writes the complete trace id (reading 2)", s.ID, d.At)
			}
			if s.Kind == pilotage.KindBranch && !contains(ps.Arms, d.Took) {
				bad("%s took %q, not an arm label", s.ID, d.Took)
			}
		}
	}
	// Expected-set presence and prohibited absence (§5.8.4).
	quals := func(id string) string {
		if i := strings.IndexByte(id, '#'); i >= 0 {
			return id[i:]
		}
		return ""
	}
	success := tr.Outcome.OK
	for _, ps := range plan.Steps {
		if ps.Arm == nil && ps.Loop == "" && success {
			if _, ok := present[ps.ID]; !ok {
				bad("plan step %s is missing from a successful trace", ps.ID)
			}
		}
	}
	for id, s := range present {
		if strings.Contains(id, "/") {
			continue
		}
		q := quals(id)
		switch s.Kind {
		case pilotage.KindBranch:
			if len(s.Decisions) != 1 && s.Outcome.OK {
				bad("branch %s has %d decisions", id, len(s.Decisions))
				continue
			}
			if len(s.Decisions) == 0 {
				continue
			}
			took := s.Decisions[0].Took
			for _, ps := range plan.Steps {
				if ps.Arm == nil || ps.Arm.Branch != pilotage.BaseID(id) {
					continue
				}
				_, there := present[ps.ID+q]
				if ps.Arm.Label != took && there {
					bad("%s ran although branch %s took %q", ps.ID+q, id, took)
				}
				if ps.Arm.Label == took && !there && success {
					bad("%s is missing although branch %s took %q", ps.ID+q, id, took)
				}
			}
		case pilotage.KindLoop:
			n := 0
			for _, d := range s.Decisions {
				if d.Took == pilotage.DecisionContinue {
					n++
				}
			}
			if s.Outcome.OK && (len(s.Decisions) == 0 || s.Decisions[len(s.Decisions)-1].Took != pilotage.DecisionExit) {
				bad("loop %s completed without a final exit decision", id)
			}
			for _, ps := range plan.Steps {
				if ps.Loop != pilotage.BaseID(id) || ps.Arm != nil || !success {
					continue
				}
				for i := 1; i <= n; i++ {
					if _, ok := present[fmt.Sprintf("%s%s#%d", ps.ID, q, i)]; !ok {
						bad("loop %s iteration %d lacks %s (reading 1)", id, i, ps.ID)
					}
				}
			}
		}
	}
	return out
}
