package runstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	pilotage "github.com/pilotage-dev/pilotage"
)

func TestSessionAndDurable(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, err := Open(dir, clock, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tr := &pilotage.Trace{RunID: "r1", Level: pilotage.LevelFull, Steps: []pilotage.TraceStep{}}
	if err := s.PutSession(&Record{RunID: "r1", Session: "a", Trace: tr}); err != nil {
		t.Fatal(err)
	}
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

	s, err = Open(dir, clock, Limits{})
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
	s, err := Open("", time.Now, Limits{})
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

// TestLockedDirectory: a data directory in use by another store is
// refused within the lock timeout, with a message that says so and what
// to do, not that the file is invalid.
func TestLockedDirectory(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, time.Now, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = open(dir, time.Now, timing{sweepEvery: DurableSweepEvery, lockWait: 50 * time.Millisecond}, Limits{})
	if !errors.Is(err, errLocked) || !strings.Contains(err.Error(), "is locked by another process") || !strings.Contains(err.Error(), "data directory of its own") {
		t.Errorf("a second store on one data directory: %v", err)
	}
}

// TestNotARunStore: a runs.db that is some other file is named as such,
// with the way out; moving it away, as the message says, lets the store
// start empty.
func TestNotARunStore(t *testing.T) {
	for name, content := range map[string][]byte{
		"text":  []byte("hello\n"),
		"json":  []byte(`{"runs": []}`),
		"zeros": make([]byte, 64<<10),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir, time.Now, Limits{})
			if !errors.Is(err, errNotRunStore) || errors.Is(err, errLocked) ||
				!strings.Contains(err.Error(), path+" is not a run store (not a bbolt database): move the file away") {
				t.Fatalf("got %v", err)
			}
			if err := os.Rename(path, path+".old"); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, time.Now, Limits{})
			if err != nil {
				t.Fatalf("after moving the file away: %v", err)
			}
			s.Close()
		})
	}
}

// TestDamagedRunStore: a run store cut short or with both meta pages
// broken is refused as damaged, without crashing (a truncated file made
// bbolt read past the end of its memory map: SIGBUS, the process gone);
// one broken meta page is what bbolt recovers from, so it still opens.
func TestDamagedRunStore(t *testing.T) {
	src := t.TempDir()
	s, err := Open(src, time.Now, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutDurable(&Record{RunID: "r1", Trace: &pilotage.Trace{RunID: "r1"}, Expires: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	good, err := os.ReadFile(filepath.Join(src, FileName))
	if err != nil {
		t.Fatal(err)
	}
	pageSize := os.Getpagesize()
	brokenMeta := func(pages ...int) []byte {
		b := bytes.Clone(good)
		for _, p := range pages {
			b[p*pageSize+boltPageHeader+boltMetaSummed-1] ^= 0xff // inside the checksummed part
		}
		return b
	}
	for _, c := range []struct {
		name    string
		content []byte
		want    string // "" when the store opens
	}{
		{"cut to one page", good[:pageSize], "is damaged"},
		{"cut to two pages", good[:2*pageSize], "is damaged (it is"},
		// A new store has four pages (two meta, freelist, root), so three
		// is short of any meta page's count.
		{"cut to three pages", good[:3*pageSize], "is damaged (it is"},
		{"both meta pages broken", brokenMeta(0, 1), "is damaged (neither meta page is valid)"},
		{"one meta page broken", brokenMeta(0), ""},
		{"the other meta page broken", brokenMeta(1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, time.Now, Limits{})
			if c.want == "" {
				if err != nil {
					t.Fatalf("a store bbolt can recover was refused: %v", err)
				}
				defer s.Close()
				// The record is there or not, as the meta page bbolt
				// fell back to is the newer or the older one; reading
				// works either way.
				if _, err := s.Get("r1", "any"); err != nil {
					t.Errorf("reading a recovered store: %v", err)
				}
				return
			}
			if !errors.Is(err, errDamaged) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "move the file away") {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestIDKey: a durable store creates the key deployed program ids are
// keyed with once and reads it back on every open, so ids and idempotent
// re-promotion survive a restart (§5.4); another data directory, or a
// memory-only store, has a key of its own, so nobody computes an id
// without the server (§10.3). A kept key of the wrong size is damage,
// refused with the way out rather than used.
func TestIDKey(t *testing.T) {
	dir := t.TempDir()
	keyOf := func(dir string) []byte {
		t.Helper()
		s, err := Open(dir, time.Now, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.IDKey()
	}
	first := keyOf(dir)
	if len(first) != IDKeySize || bytes.Equal(first, make([]byte, IDKeySize)) {
		t.Fatalf("id key %x, want %d random bytes", first, IDKeySize)
	}
	if again := keyOf(dir); !bytes.Equal(again, first) {
		t.Errorf("reopening the data directory changed the id key: %x, then %x", first, again)
	}
	if other, mem1, mem2 := keyOf(t.TempDir()), keyOf(""), keyOf(""); bytes.Equal(other, first) || bytes.Equal(mem1, first) || bytes.Equal(mem1, mem2) {
		t.Errorf("stores share an id key: %x %x %x %x", first, other, mem1, mem2)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketServer).Put(idKeyName, []byte("short")) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, time.Now, Limits{})
	if !errors.Is(err, errDamaged) || !strings.Contains(err.Error(), "its id key has 5 bytes, not 32") {
		t.Errorf("a damaged id key: %v", err)
	}
}
