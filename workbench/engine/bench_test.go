package engine

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

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

// BenchmarkTraceCheck times BenchmarkExecute50's Run on two engines, one
// without and one with the replay of its own traces (Options.CheckTraces,
// selfcheck.go), alternately in each iteration so that both meet the same
// machine load, and reports each one's time per Run and their ratio, the
// number docs/performance.md records.
func BenchmarkTraceCheck(b *testing.B) {
	var engines [2]*Engine
	var spent [2]time.Duration
	for i, on := range []bool{false, true} {
		e, err := New(homeServer(), Options{CheckTraces: on})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		engines[i] = e
	}
	req := pilotage.ExecuteRequest{Program: program50(), Input: raw(`{"rooms": ["attic", "hall"]}`), Store: boolp(false)}
	for b.Loop() {
		for i, e := range engines {
			start := time.Now()
			resp, err := e.Execute(bg, alice, "home/v1", req)
			spent[i] += time.Since(start)
			if err != nil || !resp.Outcome.OK || len(resp.Trace.Steps) != 50 {
				b.Fatal(resp, err)
			}
		}
	}
	b.ReportMetric(float64(spent[0].Microseconds())/float64(b.N), "off-µs/run")
	b.ReportMetric(float64(spent[1].Microseconds())/float64(b.N), "on-µs/run")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "on/off")
}

// BenchmarkExecute50 runs on an engine without CheckTraces, as pilotage
// serve and run do.
func BenchmarkExecute50(b *testing.B) {
	e, err := New(homeServer(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	req := pilotage.ExecuteRequest{Program: program50(), Input: raw(`{"rooms": ["attic", "hall"]}`), Store: boolp(false)}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := e.Execute(bg, alice, "home/v1", req)
		if err != nil || !resp.Outcome.OK || len(resp.Trace.Steps) != 50 {
			b.Fatal(resp, err)
		}
	}
}
