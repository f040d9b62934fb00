package replay

import (
	"strings"
	"testing"
)

// A program given as the trace is told as one (Result.Program), and only
// a file with none of a trace's run_id, level and outcome is: a trace
// missing its run_id whose entries carry a call stays a trace with its
// trace-shape findings.
func TestReplayProgramAsTrace(t *testing.T) {
	plan, err := LoadPlan("plan.json", []byte(benchPlan), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, src string
		program   bool
	}{
		{"program", `{"steps": [{"id": "init", "call": "scene.init"}, {"id": "rooms", "for_each": "input.rooms", "do": []}], "output": "1"}`, true},
		{"program without output", `{"steps": [{"id": "init", "call": "scene.init"}]}`, true},
		{"trace without run_id", `{"level": "full", "outcome": {"ok": true, "status": "success"}, "steps": [{"id": "init", "call": "scene.init", "outcome": {"ok": true, "status": "success"}}]}`, false},
		{"steps of nothing", `{"steps": [{"id": "init"}]}`, false},
		{"plan", benchPlan, false},
		{"malformed program", `{"steps": [{"id": "init", "call": "scene.init"}`, false},
	} {
		res := Replay(plan, "t.json", strings.NewReader(c.src), Options{})
		if res.Program != c.program {
			t.Errorf("%s: Program = %v, want %v (findings %v)", c.name, res.Program, c.program, res.Findings)
		}
	}
	// A program too large to keep whole is not read again to tell it.
	if testing.Short() {
		return // a program of 1 MiB; left to the full suite
	}
	big := `{"steps": [` + strings.Repeat(`{"id": "init", "call": "scene.init"}, `, sourceLimit/36) + `{"id": "end", "call": "scene.end"}]}`
	if res := Replay(plan, "big.json", strings.NewReader(big), Options{}); res.Program || len(res.Findings) == 0 {
		t.Errorf("a program over sourceLimit: Program = %v, %d findings; want false and its trace-shape findings", res.Program, len(res.Findings))
	}
}
