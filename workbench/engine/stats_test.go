package engine

import (
	"encoding/json"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestStepsExecutedAtTheStepBound: a Run stopped by the step bound
// (§10.1) executed exactly the bound's number of steps; stats must not
// count the step the bound refused, which has no trace entry (found by
// TestGeneratedPrograms, seed 58).
func TestStepsExecutedAtTheStepBound(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	loop := raw(`{"steps": [{"id": "o", "for_each": "input.xs", "as": "x", "do": [{"id": "f", "call": "fan.set", "with": {"on": "x > 2"}}]}]}`)
	// 20 × 20 inner iterations are far past home/v1's 200 steps.
	nested := raw(`{"steps": [{"id": "o", "for_each": "input.xs", "as": "x", "do": [{"id": "i", "for_each": "input.xs", "as": "y", "do": [{"id": "f", "call": "fan.set", "with": {"on": "x == y"}}]}]}]}`)
	xs := make([]int, 20)
	for _, c := range []struct {
		name  string
		prog  json.RawMessage
		input any
		steps int
	}{
		{"completed", loop, map[string]any{"xs": xs[:7]}, 8},
		{"stopped by the bound", nested, map[string]any{"xs": xs}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := exec(t, e, "alice", "s", "home/v1", pilotage.ExecuteRequest{Program: c.prog, Input: mustJSON(c.input), Store: boolp(false)})
			var stats struct {
				Steps int `json:"steps_executed"`
			}
			if err := json.Unmarshal(resp.Trace.Stats, &stats); err != nil {
				t.Fatal(err)
			}
			if stats.Steps != c.steps || len(resp.Trace.Steps) != c.steps {
				t.Errorf("%s: steps_executed %d with %d trace entries, want %d of each", resp.Outcome.Error, stats.Steps, len(resp.Trace.Steps), c.steps)
			}
		})
	}
}
