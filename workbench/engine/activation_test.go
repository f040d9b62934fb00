package engine

import (
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestFailedConditionIsTraced: a branch or loop that execution reaches is
// activated and MUST be traced (§5.8.2), even when its condition or list
// cannot be evaluated. Its entry is failed and carries no decision, since
// none was taken; the Run ends partial, and the trace replays clean
// against the plan.
func TestFailedConditionIsTraced(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	for name, c := range map[string]struct{ program, kind string }{
		"branch": {`{"steps": [{"id": "h", "if": "input.missing > 1", "then": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}], "else": []}]}`, pilotage.KindBranch},
		"loop":   {`{"steps": [{"id": "each", "for_each": "input.missing", "as": "r", "do": [{"id": "off", "call": "lights.set", "with": {"room": "r", "on": "false"}}]}]}`, pilotage.KindLoop},
	} {
		t.Run(name, func(t *testing.T) {
			prog := raw(c.program)
			v, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: prog})
			if err != nil || !v.Valid {
				t.Fatalf("validate: %v %+v", err, v)
			}
			resp := exec(t, e, "alice", "s", "home/v1", pilotage.ExecuteRequest{Program: prog, Input: raw(`{"room": "x"}`)})
			if resp.Outcome.OK || resp.Outcome.Status != pilotage.StatusPartial {
				t.Fatalf("outcome %+v, want partial", resp.Outcome)
			}
			if len(resp.Trace.Steps) != 1 {
				t.Fatalf("trace has %d entries, want the reached %s's: %+v", len(resp.Trace.Steps), c.kind, resp.Trace.Steps)
			}
			s := resp.Trace.Steps[0]
			if s.Kind != c.kind || s.Outcome.OK || len(s.Decisions) != 0 || !strings.Contains(s.Outcome.Error, "input.missing") {
				t.Errorf("entry %+v: want a failed %s entry without decisions naming input.missing", s, c.kind)
			}
			replayClean(t, v, resp, nil)
		})
	}
}

// TestRunMessagesClipTheSource: an outcome error or a decision's because
// quotes the program's expression and the value it gave clipped. A
// condition of 4 KB (expr.MaxSize) inside a loop of 100 iterations
// repeated its source in every decision, 400 KB of trace for a program
// of 4 KB.
func TestRunMessagesClipTheSource(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	pad := strings.Repeat(" ", 4000)
	rooms := strings.Repeat(`"a",`, 99) + `"a"`
	for name, c := range map[string]struct{ program, input string }{
		"not a bool": {`{"steps": [{"id": "h", "if": "input.v` + pad + `", "then": [], "else": []}]}`, `{"v": "` + strings.Repeat("v", 30<<10) + `"}`},
		"evaluating": {`{"steps": [{"id": "h", "if": "input.missing` + pad + ` > 1", "then": [], "else": []}]}`, `{}`},
		"because": {`{"steps": [{"id": "each", "for_each": "input.rooms", "as": "r", "do": [
			{"id": "h", "if": "r == 'a'` + pad + `", "then": [], "else": []}]}]}`, `{"rooms": [` + rooms + `]}`},
	} {
		t.Run(name, func(t *testing.T) {
			resp := exec(t, e, "alice", "s", "home/v1", pilotage.ExecuteRequest{Program: raw(c.program), Input: raw(c.input)})
			total := 0
			for _, s := range resp.Trace.Steps {
				total += len(s.Outcome.Error)
				for _, d := range s.Decisions {
					total += len(d.Because)
				}
			}
			if total == 0 || total > 400*len(resp.Trace.Steps) {
				t.Errorf("%d trace entries quote %d bytes of the program and its values, want each at most a clipped quote: %.300v", len(resp.Trace.Steps), total, resp.Trace.Steps)
			}
		})
	}
}
