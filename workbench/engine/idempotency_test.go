package engine

import (
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
)

// TestIdempotencySessionGrace: without a data directory home/v1 is served
// with retention "session" and its idempotency records live in memory.
// §6.5.6 asks for a deduplication window at least as long as the
// retention: a live Session's key replays however long it lives, and a
// client that reconnects in a new Session after its old one ended still
// gets the recorded Run for runstore.ReplayGrace, after which the memory
// is given back and the key runs anew. Keys stay partitioned by principal.
func TestIdempotencySessionGrace(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, err := New(homeServer(), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if m, _ := e.Discover(bg); m.Languages[0].Retention != pilotage.RetentionSession {
		t.Fatalf("home/v1 without a data directory declares retention %q, want session", m.Languages[0].Retention)
	}
	req := func(key string) pilotage.ExecuteRequest {
		return pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new(key)}
	}

	first := exec(t, e, "alice", "s1", "home/v1", req("k"))
	e.EndSession("s1")
	now = now.Add(runstore.ReplayGrace - time.Minute)
	if retry := exec(t, e, "alice", "s2", "home/v1", req("k")); retry.RunID != first.RunID {
		t.Fatalf("a retry from a new Session within the grace ran again: %s, first %s", retry.RunID, first.RunID)
	}
	if bobs := exec(t, e, "bob", "s2", "home/v1", req("k")); bobs.RunID == first.RunID {
		t.Error("bob was handed alice's recorded Run")
	}
	now = now.Add(time.Minute)
	if late := exec(t, e, "alice", "s3", "home/v1", req("k")); late.RunID == first.RunID {
		t.Error("the key replayed after its Session ended and the grace passed")
	}

	live := exec(t, e, "alice", "s4", "home/v1", req("long"))
	now = now.Add(1000 * time.Hour)
	if again := exec(t, e, "alice", "s5", "home/v1", req("long")); again.RunID != live.RunID {
		t.Errorf("a live Session's key stopped replaying after 1000h: %s, first %s", again.RunID, live.RunID)
	}
}
