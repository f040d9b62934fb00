package engine

import (
	"encoding/json"
	"fmt"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// program50 is a 50-step program with data flow between steps: reads,
// branches over their results, and calls that use them.
func program50() json.RawMessage {
	var steps []string
	for i := 0; i < 50; i++ {
		switch i % 3 {
		case 0:
			steps = append(steps, fmt.Sprintf(`{"id": "s%d", "call": "sensors.read", "with": {"room": "input.rooms[%d %% size(input.rooms)]"}}`, i, i))
		case 1:
			steps = append(steps, fmt.Sprintf(`{"id": "s%d", "call": "fan.set", "with": {"on": "steps.s%d.output.temp > 25"}}`, i, i-1))
		case 2:
			steps = append(steps, fmt.Sprintf(`{"id": "s%d", "call": "lights.set", "with": {"room": "input.rooms[0]", "on": "steps.s%d.output.ok"}}`, i, i-1))
		}
	}
	return json.RawMessage(`{"steps": [` + join(steps) + `], "output": "steps.s48.output.temp"}`)
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ",\n"
		}
		out += s
	}
	return out
}

func BenchmarkValidate50(b *testing.B) {
	e := newEngine(b, homeServer(), "")
	req := pilotage.ValidateRequest{Program: program50()}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := e.Validate(bg, alice, "home/v1", req)
		if err != nil || !resp.Valid {
			b.Fatal(resp, err)
		}
	}
}

func BenchmarkExecute50(b *testing.B) {
	e := newEngine(b, homeServer(), "")
	req := pilotage.ExecuteRequest{Program: program50(), Input: raw(`{"rooms": ["attic", "hall"]}`), Store: boolp(false)}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := e.Execute(bg, alice, "home/v1", req)
		if err != nil || !resp.Outcome.OK || len(resp.Trace.Steps) != 50 {
			b.Fatal(resp, err)
		}
	}
}
