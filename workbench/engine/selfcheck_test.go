package engine

import (
	"context"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// TestCheckTracesRefusesABrokenTrace: the engine's own replay (issue 14
// item 6) passes the trace it made and turns one pilotage replay would
// fail into an error naming the rule, so such a trace never leaves the
// engine; an engine without CheckTraces does not look.
func TestCheckTracesRefusesABrokenTrace(t *testing.T) {
	e := newEngine(t, homeServer(), "")
	prog := raw(`{"steps": [{"id": "h", "if": "true", "then": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}], "else": []}]}`)
	full := pilotage.LevelFull
	req := pilotage.ExecuteRequest{Program: prog, TraceLevel: &full}
	resp := exec(t, e, "alice", "s1", "home/v1", req)
	if len(resp.Trace.Steps) != 2 {
		t.Fatalf("want the branch and its arm's step in the trace, got %+v", resp.Trace.Steps)
	}
	r, err := e.accept(alice, "home/v1", req)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := e.check(context.Background(), r.view, prog, nil, inline, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.checkTraces(r, ck.prog, resp.Trace); err != nil {
		t.Fatalf("the engine's own trace: %v", err)
	}
	// The taken arm's step lost: a successful Run must show it (§5.8.4).
	broken := *resp.Trace
	broken.Steps = broken.Steps[:1]
	err = e.checkTraces(r, ck.prog, &broken)
	if err == nil || !strings.Contains(err.Error(), "fails pilotage replay: expected-present at /steps/0/id: ") || !strings.Contains(err.Error(), `"f"`) {
		t.Errorf("a trace without the taken arm's step: %v, want the expected-present finding about f", err)
	}
	unchecked, err := New(homeServer(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer unchecked.Close()
	if err := unchecked.checkTraces(r, ck.prog, &broken); err != nil && !checkAlways {
		t.Errorf("an engine without CheckTraces checked: %v", err)
	}
}

// TestCheckTracesWithoutPlan: calc declares no plan and no risk level for
// a plan of no calls, so a Run of it has no plan to replay its trace
// against; the check leaves it alone instead of failing the Run.
func TestCheckTracesWithoutPlan(t *testing.T) {
	res, _, err := compile.Load("../../langs/calc/calc.pdl", report.DefaultMaxPerRule)
	if err != nil || !res.OK() {
		t.Fatalf("calc does not compile: %v %+v", err, res.Findings)
	}
	e := newEngine(t, res.Server, t.TempDir())
	resp := exec(t, e, "", "s", "calc/v1", pilotage.ExecuteRequest{Program: raw(`{"steps": [], "output": "1 + 2"}`)})
	if !resp.Outcome.OK || string(resp.Output) != "3" {
		t.Errorf("calc's Run under CheckTraces: %+v", resp)
	}
}
