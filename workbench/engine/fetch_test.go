package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
)

func fetch(e *Engine, principal, session, lang, runID string, level *string) (*pilotage.TraceFetchResponse, error) {
	return e.Trace(bg, callerOf(principal, session), lang, pilotage.TraceFetchRequest{RunID: runID, TraceLevel: level})
}

// TestRetentionDurationSurvivesRestart: a P7D Run is fetchable after the
// engine reopens its bbolt store, and not after the duration.
func TestRetentionDurationSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	e, err := New(homeServer(), Options{DataDir: dir, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), TraceLevel: new(pilotage.LevelNone)})
	if resp.Trace != nil {
		t.Fatal("level none returned a trace")
	}
	e.Close()
	e2, err := New(homeServer(), Options{DataDir: dir, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	got, err := fetch(e2, "alice", "another-session", "home/v1", resp.RunID, nil)
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	// Recorded at the declared level although the Run asked for none.
	if got.Trace.Level != pilotage.LevelFull || got.Outcome != resp.Outcome || string(got.Output) != string(resp.Output) || len(got.Trace.Steps[0].Input) == 0 {
		t.Fatalf("fetched %+v", got)
	}
	if !strings.Contains(got.Narration, "ended with status success") || !strings.Contains(got.Narration, "fan.set ×1") {
		t.Errorf("narration: %s", got.Narration)
	}
	sum, _ := fetch(e2, "alice", "s", "home/v1", resp.RunID, new(pilotage.LevelSummary))
	if sum.Trace.Level != pilotage.LevelSummary || len(sum.Trace.Steps[0].Input) > 0 {
		t.Errorf("summary fetch: %+v", sum.Trace)
	}
	_, err = fetch(e2, "alice", "s", "home/v1", resp.RunID, new(pilotage.LevelNone))
	reqErr(t, err, pilotage.ErrInvalidRequest)
	// Expired looks exactly like never existed (§6.6 indistinguishability).
	now = now.Add(7*24*time.Hour + time.Second)
	_, err = fetch(e2, "alice", "s", "home/v1", resp.RunID, nil)
	expired := reqErr(t, err, pilotage.ErrNotFound)
	_, err = fetch(e2, "alice", "s", "home/v1", "run-00000000000000000000000000000000", nil)
	if unknown := reqErr(t, err, pilotage.ErrNotFound); *unknown != *expired {
		t.Errorf("expired %+v differs from unknown %+v", expired, unknown)
	}
	// bare/v1 declares no trace_fetch: the operation does not exist there.
	_, err = fetch(e2, "alice", "s", "bare/v1", resp.RunID, nil)
	reqErr(t, err, pilotage.ErrUnsupported)
}

// TestRetentionSession: ctx/v1 keeps Runs for their Session only, in
// memory; a summary-level Language never returns more than summary.
func TestRetentionSession(t *testing.T) {
	dir := t.TempDir()
	e := newEngine(t, homeServer(), dir)
	req := pilotage.ExecuteRequest{Program: raw(`"{\"steps\": [{\"id\": \"f\", \"call\": \"fan.set\", \"with\": {\"on\": \"true\"}}]}"`), Context: raw(`{"site": "hq"}`)}
	resp := exec(t, e, "alice", "s1", "ctx/v1", req)
	if !resp.Outcome.OK {
		t.Fatal(resp.Outcome)
	}
	got, err := fetch(e, "alice", "s1", "ctx/v1", resp.RunID, new(pilotage.LevelFull))
	if err != nil || got.Trace.Level != pilotage.LevelSummary {
		t.Fatalf("same session: %+v %v", got, err)
	}
	if _, err := fetch(e, "alice", "s2", "ctx/v1", resp.RunID, nil); err == nil {
		t.Error("another session fetched a session-retained Run")
	}
	e.EndSession("s1")
	if _, err := fetch(e, "alice", "s1", "ctx/v1", resp.RunID, nil); err == nil {
		t.Error("fetched after the session ended")
	}
	resp = exec(t, e, "alice", "s1", "ctx/v1", req)
	e.Close()
	e2 := newEngine(t, homeServer(), dir)
	if _, err := fetch(e2, "alice", "s1", "ctx/v1", resp.RunID, nil); err == nil {
		t.Error("a session Run survived a restart")
	}
}

// TestNotFoundIsUniform: unknown, expired (home/v1 keeps Runs P7D),
// unstored (store: false), unauthorized, other-Language and refused Runs
// all give byte-identical not_found (§6.6).
func TestNotFoundIsUniform(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := newEngineWith(t, homeServer(), Options{DataDir: t.TempDir(), Now: func() time.Time { return now }})
	expired := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), Store: boolp(true)})
	if _, err := fetch(e, "alice", "s1", "home/v1", expired.RunID, nil); err != nil {
		t.Fatalf("the Run to expire, before its retention ends: %v", err)
	}
	now = now.Add(7*24*time.Hour + time.Second)
	unstored := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), Store: boolp(false)})
	stored := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), Store: boolp(true)})
	refused := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), ExpectedCatalogVersion: new("x"), Store: boolp(true)})
	if unstored.Trace == nil {
		t.Fatal("store: false must still return the inline trace")
	}
	if _, err := fetch(e, "alice", "s1", "home/v1", stored.RunID, nil); err != nil {
		t.Fatalf("stored Run: %v", err)
	}
	var want []byte
	for i, c := range []struct{ who, lang, id string }{
		{"alice", "home/v1", "run-00000000000000000000000000000000"},
		{"alice", "home/v1", expired.RunID},
		{"alice", "home/v1", unstored.RunID},
		{"bob", "home/v1", stored.RunID},
		{"alice", "ctx/v1", stored.RunID},
		{"alice", "home/v1", refused.RunID},
	} {
		_, err := fetch(e, c.who, "s1", c.lang, c.id, nil)
		re := reqErr(t, err, pilotage.ErrNotFound)
		b, _ := json.Marshal(pilotage.RequestErrorEnvelope{Error: *re})
		if i == 0 {
			want = b
		} else if string(b) != string(want) {
			t.Errorf("case %d: %s differs from %s", i, b, want)
		}
	}
}

// TestNotFoundClipsTheName: a not_found quotes the name it could not
// find clipped (report.Clip), so a megabyte id, program_ref or Language
// answers a short error rather than echoing the megabyte back; a hidden
// name and a missing one go through the same message, so §10.3's uniform
// answer (TestNotFoundIsUniform) holds for long names too.
func TestNotFoundClipsTheName(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	long := strings.Repeat("x", 1<<20)
	for name, call := range map[string]func() error{
		"lookup get": func() error {
			_, err := e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: &long})
			return err
		},
		"execute program_ref": func() error {
			_, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{ProgramRef: &long})
			return err
		},
		"learn id": func() error {
			_, err := e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{ID: &long})
			return err
		},
		"learn topic": func() error {
			_, err := e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{ID: new("core"), Topic: &long})
			return err
		},
		"language": func() error {
			_, err := e.Learn(bg, alice, long, pilotage.LearnRequest{})
			return err
		},
	} {
		re := reqErr(t, call(), pilotage.ErrNotFound)
		if b, _ := json.Marshal(pilotage.RequestErrorEnvelope{Error: *re}); len(b) > 1024 || !strings.Contains(re.Message, "xxx…") {
			t.Errorf("%s: a %d-byte not_found for a 1 MB name, want it clipped: %.200s", name, len(b), b)
		}
	}
}

// TestInvalidRequestClipsWhatItQuotes: an invalid_request quotes the
// caller's value clipped, as not_found does: a megabyte mode, trace_level
// or lookup verb was echoed whole, twice over MCP (text and structured
// content), and a narration question was echoed into every answer.
func TestInvalidRequestClipsWhatItQuotes(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	long := strings.Repeat("x", 1<<20)
	prog := raw(`{"steps": []}`)
	run := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: prog})
	for name, call := range map[string]func() error{
		"execute mode, two declared": func() error {
			_, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: prog, Mode: &long})
			return err
		},
		"execute mode, one declared": func() error {
			_, err := e.Execute(bg, alice, "bare/v1", pilotage.ExecuteRequest{Program: prog, Mode: &long})
			return err
		},
		"execute trace_level": func() error {
			_, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: prog, TraceLevel: &long})
			return err
		},
		"fetch trace_level": func() error {
			_, err := fetch(e, "alice", "s1", "home/v1", run.RunID, &long)
			return err
		},
		"lookup verb": func() error {
			_, err := e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: long})
			return err
		},
	} {
		re := reqErr(t, call(), pilotage.ErrInvalidRequest)
		if len(re.Message) > 1024 || !strings.Contains(re.Message, "xxx…") {
			t.Errorf("%s: a %d-byte invalid_request for a 1 MB value, want it clipped: %.200s", name, len(re.Message), re.Message)
		}
	}
	got, err := e.Trace(bg, alice, "home/v1", pilotage.TraceFetchRequest{RunID: run.RunID, Question: long})
	if err != nil || len(got.Narration) > 1024 || !strings.Contains(got.Narration, "xxx…") {
		t.Errorf("narration of a 1 MB question: %d bytes, want the question clipped (%v): %.200s", len(got.Narration), err, got.Narration)
	}
}

// TestNarrationEchoesOnlyFacts: narration restates the record and answers
// a question only by pointing back at the facts.
func TestNarrationEchoesOnlyFacts(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{
		Program: raw(`{"steps": [{"id": "h", "if": "input.hot", "then": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}], "else": []},
		  {"id": "l", "for_each": "input.rooms", "as": "r", "do": [{"id": "o", "call": "lights.set", "with": {"room": "r", "on": "false"}}]}]}`),
		Input: raw(`{"hot": true, "rooms": ["a", "cellar"]}`)})
	got, err := e.Trace(bg, alice, "home/v1", pilotage.TraceFetchRequest{RunID: resp.RunID, Question: "Did the fan turn on?"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Run " + resp.RunID + " (immediate) ended with status device_error: the cellar lights do not answer. " +
		"The full trace records 5 step entries. Branch h took \"then\". Loop l ran 2 iterations. Calls: fan.set ×1, lights.set ×2. " +
		"Entries that did not succeed: l (partial), o#2 (device_error). " +
		"You asked \"Did the fan turn on?\": this narration only restates the recorded facts above; check the trace entries themselves to answer it."
	if got.Narration != want {
		t.Errorf("narration:\n%s\nwant:\n%s", got.Narration, want)
	}
	// ctx/v1 does not declare narrate: no narration.
	r2 := exec(t, e, "alice", "s1", "ctx/v1", pilotage.ExecuteRequest{Program: raw(`"{\"steps\": []}"`), Context: raw(`{"site": "x"}`)})
	if got, err := e.Trace(bg, alice, "ctx/v1", pilotage.TraceFetchRequest{RunID: r2.RunID, Question: "why?"}); err != nil || got.Narration != "" {
		t.Errorf("narration without narrate: %+v %v", got, err)
	}
}

// TestFetchEmptyRunID: run_id is required (§6.6) and the Server never
// mints an empty one, so run_id "" is a malformed request like a missing
// one, not a lookup that finds nothing; the message says which.
func TestFetchEmptyRunID(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	_, err := fetch(e, "alice", "s1", "home/v1", "", nil)
	if re := reqErr(t, err, pilotage.ErrInvalidRequest); !strings.Contains(re.Message, "run_id is missing or empty") {
		t.Errorf("run_id \"\": %q, want it to say the run_id is missing or empty", re.Message)
	}
}
