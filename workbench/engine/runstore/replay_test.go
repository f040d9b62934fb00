package runstore

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// clock is a test clock safe to read from the store's goroutines.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func memoryStore(t *testing.T, c *clock) *Store {
	t.Helper()
	s, err := Open("", c.now, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func putReplay(t *testing.T, s *Store, session, key string) {
	t.Helper()
	if err := s.PutReplay(&Replay{Key: key, Fingerprint: "f-" + key, Response: []byte(`{}`), Session: session}); err != nil {
		t.Fatal(err)
	}
}

func replays(t *testing.T, s *Store, key string) bool {
	t.Helper()
	r, err := s.Replay(key)
	if err != nil {
		t.Fatal(err)
	}
	if r != nil && r.Fingerprint != "f-"+key {
		t.Fatalf("key %s replayed the record of %s", key, r.Fingerprint)
	}
	return r != nil
}

// sweptEmpty advances the clock by d, lets a Replay sweep, and checks that
// nothing in memory is left: every Session of s has ended by then.
func sweptEmpty(t *testing.T, s *Store, c *clock, d time.Duration) {
	t.Helper()
	c.advance(d)
	replays(t, s, "none")
	if len(s.replay) != 0 || len(s.sessions) != 0 || len(s.ended) != 0 {
		t.Errorf("after every grace: %d records, %d sessions, %d ended entries", len(s.replay), len(s.sessions), len(s.ended))
	}
}

// outliveGrace records key in session, ends the Session, and checks that
// the key replays a second before ReplayGrace runs out and not when it
// has; the sweep that Replay made a second earlier leaves the expired
// record in memory until the next one.
func outliveGrace(t *testing.T, s *Store, c *clock, session, key string) {
	t.Helper()
	putReplay(t, s, session, key)
	s.EndSession(session)
	c.advance(ReplayGrace - time.Second)
	if !replays(t, s, key) {
		t.Fatal("record dropped within the grace period after its Session ended")
	}
	c.advance(time.Second)
	if replays(t, s, key) {
		t.Fatal("record replayed once the grace period had passed")
	}
}

// TestReplayOutlivesSessionByGrace: an in-memory idempotency record
// survives its Session's end for ReplayGrace, so a client retrying from a
// new Session is still one execution (§6.5.6), and is gone after it.
func TestReplayOutlivesSessionByGrace(t *testing.T) {
	c := newClock()
	s := memoryStore(t, c)
	outliveGrace(t, s, c, "s1", "k")
	// The sweep runs at most once a minute; the next one drops it.
	sweptEmpty(t, s, c, replaySweepEvery)
}

// TestReplayLiveSessionKept: however old, a live Session's records stay
// (§6.5.6: the window covers retention "session"), while sweeps drop the
// records of Sessions that ended around them.
func TestReplayLiveSessionKept(t *testing.T) {
	c := newClock()
	s := memoryStore(t, c)
	putReplay(t, s, "live", "old")
	for i := range 100 {
		id := fmt.Sprint("short-", i)
		putReplay(t, s, id, id)
		s.EndSession(id)
		c.advance(10 * time.Hour)
	}
	if !replays(t, s, "old") {
		t.Fatal("a live Session's record was dropped after 1000 hours")
	}
	if replays(t, s, "short-0") {
		t.Error("an ended Session's record outlived its grace")
	}
	putReplay(t, s, "live", "new")
	s.EndSession("live")
	c.advance(ReplayGrace)
	if replays(t, s, "old") || replays(t, s, "new") {
		t.Error("records kept past the grace after their Session ended")
	}
}

// TestReplayRecordedAgainAfterGrace: a key whose record expired and was
// recorded again from a later Session keeps the new record when the old
// Session is swept.
func TestReplayRecordedAgainAfterGrace(t *testing.T) {
	c := newClock()
	s := memoryStore(t, c)
	// The old record is still in the map for another minute, expired:
	// the key is free and s2 uses it.
	outliveGrace(t, s, c, "s1", "k")
	putReplay(t, s, "s2", "k")
	c.advance(replaySweepEvery)
	if !replays(t, s, "k") {
		t.Fatal("the sweep of the ended Session dropped the record a live Session made")
	}
}

// TestReplayMemoryBounded: a server that sees many Sessions, each with
// many keys, keeps only the records of Sessions that are live or ended
// less than ReplayGrace ago.
func TestReplayMemoryBounded(t *testing.T) {
	c := newClock()
	s := memoryStore(t, c)
	const (
		sessions = 500
		keys     = 40
		every    = 5 * time.Minute // a Session ends every five minutes
	)
	// Sessions ending within the grace, the one live now, and one more
	// whose grace runs out between two sweeps.
	maxRecords := (int(ReplayGrace/every) + 2) * keys
	peak := 0
	for i := range sessions {
		id := fmt.Sprint("s", i)
		for k := range keys {
			putReplay(t, s, id, fmt.Sprint(id, "/", k))
		}
		peak = max(peak, len(s.replay))
		s.EndSession(id)
		c.advance(every)
	}
	if peak > maxRecords {
		t.Errorf("peak of %d records; at most %d Sessions' worth (%d) should be kept", peak, maxRecords/keys, maxRecords)
	}
	if len(s.sessions) > maxRecords/keys || len(s.ended) > maxRecords/keys {
		t.Errorf("index holds %d sessions and %d ended entries", len(s.sessions), len(s.ended))
	}
	sweptEmpty(t, s, c, ReplayGrace)
}

// TestReplayConcurrent runs PutReplay, Replay and EndSession from many
// goroutines while the clock moves (run under -race), then checks that
// every record of an ended Session is gone after the grace.
func TestReplayConcurrent(t *testing.T) {
	c := newClock()
	s := memoryStore(t, c)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				id := fmt.Sprint("g", g, "-", i)
				for k := range 10 {
					key := fmt.Sprint(id, "/", k)
					putReplay(t, s, id, key)
					if !replays(t, s, key) {
						t.Errorf("%s lost while its Session lives", key)
					}
				}
				s.EndSession(id)
				c.advance(time.Minute)
			}
		}()
	}
	wg.Wait()
	sweptEmpty(t, s, c, ReplayGrace)
}

// TestDurableSweptPeriodically: a store with a data directory deletes
// expired durable records from the file on its own, and Close stops it.
func TestDurableSweptPeriodically(t *testing.T) {
	c := newClock()
	s, err := open(t.TempDir(), c.now, timing{sweepEvery: 10 * time.Millisecond, lockWait: defaultTiming.lockWait}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutReplay(&Replay{Key: "k", Fingerprint: "f", Response: []byte(`{}`), Expires: c.now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDurable(&Record{RunID: "r", Expires: c.now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	stored := func() int {
		n := 0
		err := s.db.View(func(tx *bolt.Tx) error {
			n = tx.Bucket(bucketReplay).Stats().KeyN + tx.Bucket(bucketRuns).Stats().KeyN
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	time.Sleep(50 * time.Millisecond)
	if n := stored(); n != 2 {
		t.Fatalf("%d records in the file before they expired, want 2", n)
	}
	c.advance(time.Hour)
	deadline := time.Now().Add(30 * time.Second)
	for stored() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("expired durable records still in the file after 30s of 10ms sweeps")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	default:
		t.Error("the sweeper still runs after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
