package runstore

import (
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
)

func TestSessionAndDurable(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, err := Open(dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	tr := &pilotage.Trace{RunID: "r1", Level: pilotage.LevelFull, Steps: []pilotage.TraceStep{}}
	s.PutSession(&Record{RunID: "r1", Session: "a", Trace: tr})
	if err := s.PutDurable(&Record{RunID: "r2", Trace: tr, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutReplay(&Replay{Key: "k", Fingerprint: "f", Response: []byte(`{}`), Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Get("r1", "b"); r != nil {
		t.Error("a session record leaked to another session")
	}
	if r, _ := s.Get("r1", "a"); r == nil {
		t.Error("session record lost")
	}
	s.EndSession("a")
	if r, _ := s.Get("r1", "a"); r != nil {
		t.Error("session record outlived its session")
	}
	s.Close()

	s, err = Open(dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, _ := s.Get("r2", "any"); r == nil || r.Trace.RunID != "r1" {
		t.Errorf("durable record after reopening: %+v", r)
	}
	if r, _ := s.Replay("k"); r == nil || r.Fingerprint != "f" {
		t.Errorf("replay record after reopening: %+v", r)
	}
	now = now.Add(time.Hour)
	if r, _ := s.Get("r2", "any"); r != nil {
		t.Error("expired record returned")
	}
	if err := s.Sweep(); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Replay("k"); r != nil {
		t.Error("expired replay record returned")
	}
}

func TestMemoryOnly(t *testing.T) {
	s, err := Open("", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if s.Durable() || s.PutDurable(&Record{RunID: "x"}) != ErrNotDurable {
		t.Error("a store without a directory claims durability")
	}
	if err := s.PutReplay(&Replay{Key: "k", Fingerprint: "f"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Replay("k"); r == nil {
		t.Error("memory replay record lost")
	}
}

func TestLockedDirectory(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Open(dir, time.Now); err == nil {
		t.Error("two stores opened one data directory")
	}
}
