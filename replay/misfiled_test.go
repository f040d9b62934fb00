package replay

import (
	"strings"
	"testing"
)

// A program given as the trace is told as one (Result.Program), and only
// a file with none of a trace's run_id, level and outcome, and no kind
// in its steps (even "" or null), is: a trace missing its run_id whose
// entries carry a call stays a trace with its trace-shape findings.
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
		{"an empty kind", `{"steps": [{"id": "init", "call": "scene.init", "kind": ""}]}`, false},
		{"a null kind", `{"steps": [{"id": "init", "call": "scene.init", "kind": null}]}`, false},
		{"plan", benchPlan, false},
		{"malformed program", `{"steps": [{"id": "init", "call": "scene.init"}`, false},
	} {
		res := Replay(plan, "t.json", strings.NewReader(c.src), Options{})
		if res.Program != c.program {
			t.Errorf("%s: Program = %v, want %v (findings %v)", c.name, res.Program, c.program, res.Findings)
		}
	}
	// A program too large to keep whole is told by what the walk saw of
	// its steps, not read again; a file as large whose steps do not all
	// read as a program's stays a trace.
	if testing.Short() {
		return // files of 1 MiB; left to the full suite
	}
	step := `{"id": "init", "call": "scene.init"}, `
	for _, c := range []struct {
		name, src string
		program   bool
	}{
		{"program", `{"steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `{"id": "end", "for_each": "input.x", "do": []}]}`, true},
		{"steps of nothing", `{"steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `{"id": "end"}]}`, false},
		{"a step with a kind", `{"steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `{"id": "end", "kind": "call", "call": "x"}]}`, false},
		// A kind is there whatever its value, as inputs.Recognize tells
		// a file small enough to keep.
		{"a step with an empty kind", `{"steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `{"id": "end", "kind": "", "call": "x"}]}`, false},
		{"a step with a null kind", `{"steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `{"id": "end", "kind": null, "call": "x"}]}`, false},
		{"a step that is no object", `{"steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `1]}`, false},
		{"with a level", `{"level": "full", "steps": [` + strings.Repeat(step, sourceLimit/len(step)) + `{"id": "end", "call": "x"}]}`, false},
	} {
		res := Replay(plan, "big.json", strings.NewReader(c.src), Options{})
		if res.Source != nil {
			t.Fatalf("%s: kept whole; the case is not over sourceLimit", c.name)
		}
		if res.Program != c.program || !c.program && len(res.Findings) == 0 {
			t.Errorf("%s over sourceLimit: Program = %v, %d findings; want %v", c.name, res.Program, len(res.Findings), c.program)
		}
	}
}
