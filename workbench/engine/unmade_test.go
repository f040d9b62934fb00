package engine

import (
	"encoding/json"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestUnmadeCallIsNotTraced: calls and step inputs are part of the trace
// envelope (§5.8), the evidence a Client verifies against (§9.4), so they
// record only calls that happened. A call step whose argument fails to
// evaluate or whose input fails the entry's input_schema made no call:
// its entry, at full and at summary, names no call and carries no input,
// and its outcome says why; the trace replays clean against the plan
// (docs/readings.md, reading 6). A target the caller may not use is never
// reached: the promotion baseline check refuses the body first
// (TestAuthorityAtExecution).
func TestUnmadeCallIsNotTraced(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	for name, c := range map[string]struct {
		principal string
		req       pilotage.ExecuteRequest
		entry     string // the trace entry of the call that was not made
		why       string // what its outcome's error says
	}{
		"argument out of range": {"alice", pilotage.ExecuteRequest{
			Program: raw(`{"steps": [{"id": "read", "call": "sensors.read", "with": {"room": "input.rooms[5]"}}]}`),
			Input:   raw(`{"rooms": ["hall", "attic"]}`)}, "read", `argument room of sensors.read: evaluating "input.rooms[5]"`},
		"input off its input_schema": {"alice", pilotage.ExecuteRequest{
			Program: raw(`{"steps": [{"id": "off", "call": "lights.set", "with": {"room": "input.room", "on": "false"}}]}`),
			Input:   raw(`{"room": 5}`)}, "off", `the input of lights.set does not match its input_schema at "/room"`},
	} {
		for _, level := range []string{pilotage.LevelFull, pilotage.LevelSummary} {
			t.Run(name+"/"+level, func(t *testing.T) {
				req := c.req
				req.TraceLevel = &level
				resp := exec(t, e, c.principal, "s1", "home/v1", req)
				if resp.Outcome.OK || resp.Trace == nil || resp.Trace.Level != level {
					t.Fatalf("want a failed Run with a %s trace: %s", level, mustJSON(resp))
				}
				entry := tracedEntry(t, resp.Trace, c.entry)
				for _, member := range []string{"calls", "input"} {
					if v, ok := entry[member]; ok {
						t.Errorf("entry %s carries %s %s, but no call was made", c.entry, member, v)
					}
				}
				var outcome pilotage.Outcome
				json.Unmarshal(entry["outcome"], &outcome)
				if outcome.OK || !strings.Contains(outcome.Error, c.why) {
					t.Errorf("entry %s outcome %+v, want a failure saying %q", c.entry, outcome, c.why)
				}
				if len(req.Program) > 0 {
					v, err := e.Validate(bg, callerOf(c.principal, "plan"), "home/v1", pilotage.ValidateRequest{Program: req.Program})
					if err != nil || !v.Valid {
						t.Fatalf("validate: %v %+v", err, v)
					}
					replayClean(t, v, resp, nil)
				}
			})
		}
	}
}

// tracedEntry returns the members of trace entry id as the wire has them,
// so an absent member is told apart from an empty one.
func tracedEntry(t *testing.T, tr *pilotage.Trace, id string) map[string]json.RawMessage {
	t.Helper()
	var wire struct {
		Steps []map[string]json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(mustJSON(tr), &wire); err != nil {
		t.Fatal(err)
	}
	for _, s := range wire.Steps {
		if string(s["id"]) == `"`+id+`"` {
			return s
		}
	}
	t.Fatalf("no trace entry %s in %s", id, mustJSON(tr))
	return nil
}
