package runstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	pilotage "github.com/pilotage-dev/pilotage"
)

// record is a session record whose trace carries its id, so a record
// read back can be told from another.
func record(session string, i int) *Record {
	id := fmt.Sprintf("run-%s-%04d", session, i)
	return &Record{RunID: id, Session: session, Outcome: pilotage.Outcome{OK: true, Status: pilotage.StatusSuccess},
		Trace: &pilotage.Trace{RunID: id, Level: pilotage.LevelFull, Steps: []pilotage.TraceStep{{ID: "s", Kind: pilotage.KindStep}}}}
}

func mustGet(t *testing.T, s *Store, session string, i int) {
	t.Helper()
	want := record(session, i)
	got, err := s.Get(want.RunID, session)
	if err != nil || got == nil || got.Trace.RunID != want.RunID || got.Session != session {
		t.Fatalf("%s of %s: got %+v, %v", want.RunID, session, got, err)
	}
}

// TestSpillPastMemory: past Limits.Memory, session records go to a
// temporary file, every one stays fetchable in its Session (§6.6),
// memory stays within the limit, EndSession drops a Session's records
// from both places, and Close removes the file's directory.
func TestSpillPastMemory(t *testing.T) {
	spillDir := t.TempDir()
	s, err := Open("", time.Now, Limits{Memory: 4 << 10, SpillDir: spillDir})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := range n {
		for _, sess := range []string{"a", "b"} {
			release, err := s.Admit()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PutSession(record(sess, i)); err != nil {
				t.Fatal(err)
			}
			release()
		}
	}
	if s.session.used > 4<<10 || s.session.spilled["a"]+s.session.spilled["b"] < n {
		t.Errorf("memory %d bytes, spilled %v: the limit did not hold", s.session.used, s.session.spilled)
	}
	if m, _ := filepath.Glob(filepath.Join(spillDir, "pilotage-runs-*", spillFile)); len(m) != 1 {
		t.Fatalf("spill files: %v", m)
	}
	for i := range n {
		mustGet(t, s, "a", i)
		mustGet(t, s, "b", i)
	}
	if r, _ := s.Get(record("a", 0).RunID, "b"); r != nil {
		t.Error("a spilled record leaked to another Session")
	}
	s.EndSession("a")
	for _, i := range []int{0, n - 1} {
		if r, _ := s.Get(record("a", i).RunID, "a"); r != nil {
			t.Errorf("record %d outlived its Session", i)
		}
		mustGet(t, s, "b", i)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(spillDir); len(left) != 0 {
		t.Errorf("the spill outlived Close: %v", left)
	}
}

// TestNoSpillRefuses: with NoSpill a full memory refuses further
// retention (Admit, asked before a Run) and writes no file; ending a
// Session frees its share.
func TestNoSpillRefuses(t *testing.T) {
	spillDir := t.TempDir()
	s, err := Open("", time.Now, Limits{Memory: 2 << 10, NoSpill: true, SpillDir: spillDir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	kept := 0
	for ; ; kept++ {
		release, err := s.Admit()
		if err != nil {
			if !errors.Is(err, ErrFull) || kept == 0 {
				t.Fatalf("kept %d, then %v", kept, err)
			}
			break
		}
		if kept > 100 {
			t.Fatal("Admit never refused")
		}
		if err := s.PutSession(record("a", kept)); err != nil {
			t.Fatal(err)
		}
		release()
	}
	for i := range kept {
		mustGet(t, s, "a", i)
	}
	if left, _ := os.ReadDir(spillDir); len(left) != 0 {
		t.Errorf("NoSpill wrote %v", left)
	}
	s.EndSession("a")
	if s.session.used != 0 {
		t.Fatalf("after EndSession %d bytes held", s.session.used)
	}
	// Runs admitted together count before their records are put, so
	// they cannot all pass a limit only some of them fit.
	var releases []func()
	for {
		release, err := s.Admit()
		if err != nil {
			break
		}
		releases = append(releases, release)
		if len(releases) > 2<<10 {
			t.Fatal("Runs in flight are not counted")
		}
	}
	if want := (2<<10 + recordOverhead - 1) / recordOverhead; len(releases) != want {
		t.Errorf("%d Runs admitted together, want %d", len(releases), want)
	}
	for _, r := range releases {
		r()
		r() // twice is once
	}
	if s.session.admitted != 0 {
		t.Errorf("%d Runs still counted after release", s.session.admitted)
	}
}

// keepUntilRefused admits and puts records of session from index from
// until Admit refuses, and returns how many it kept and the refusal.
func keepUntilRefused(t *testing.T, s *Store, session string, from int) (int, error) {
	t.Helper()
	for i := from; ; i++ {
		release, err := s.Admit()
		if err != nil {
			return i - from, err
		}
		if i-from > 1000 {
			t.Fatal("Admit never refused")
		}
		if err := s.PutSession(record(session, i)); err != nil {
			t.Fatal(err)
		}
		release()
	}
}

// failures collects what Limits.OnSpillFailure is told.
type failures []error

func (f *failures) note(err error) { *f = append(*f, err) }

// TestSpillUnwritable: a spill that cannot be made (its directory does
// not exist) is said once, keeps the record that met it in memory
// rather than lose a Run its client was told is stored, and from then on
// Admit refuses past the limit, naming the cause, as with NoSpill.
func TestSpillUnwritable(t *testing.T) {
	var told failures
	s, err := Open("", time.Now, Limits{Memory: 2 << 10, SpillDir: filepath.Join(t.TempDir(), "missing", "dir"), OnSpillFailure: told.note})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	kept, err := keepUntilRefused(t, s, "a", 0)
	var se *SpillError
	if !errors.Is(err, ErrFull) || !errors.As(err, &se) || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("kept %d, then %v; want a SpillError naming the missing directory", kept, err)
	}
	if len(told) != 1 || !errors.Is(told[0], os.ErrNotExist) {
		t.Errorf("OnSpillFailure was told %v, want the failure once", told)
	}
	for i := range kept {
		mustGet(t, s, "a", i)
	}
	// Over the limit by the one record that met the failure, no more.
	one, _ := json.Marshal(record("a", 0))
	if over := s.session.used - 2<<10; over > int64(len(one)+len(record("a", 0).RunID))+recordOverhead {
		t.Errorf("%d bytes over the limit", over)
	}
	// Ending the Session frees its memory for new Runs, which stay in
	// memory: the spill is not tried again.
	s.EndSession("a")
	if again, err := keepUntilRefused(t, s, "b", 0); again == 0 || !errors.As(err, &se) || len(told) != 1 {
		t.Errorf("after EndSession: kept %d, then %v; told %d times", again, err, len(told))
	}
}

// TestSpillFailsMidway: a spill whose writes fail after some records
// (a disk that fills) keeps every record it holds fetchable from it,
// keeps the records of Runs already admitted in memory, and then refuses
// further retention; an idempotency record put past the limit stays in
// memory too.
func TestSpillFailsMidway(t *testing.T) {
	var told failures
	s, err := Open("", time.Now, Limits{Memory: 2 << 10, SpillDir: t.TempDir(), OnSpillFailure: told.note})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const writes = 5
	full := &os.PathError{Op: "write", Path: "spill.db", Err: syscall.ENOSPC}
	n, write := 0, s.session.write
	s.session.write = func(bucket, key, data []byte) error {
		if n++; n > writes {
			return full
		}
		return write(bucket, key, data)
	}
	// Three Runs admitted together as the disk fills: all are kept.
	var releases []func()
	for range 3 {
		release, err := s.Admit()
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	kept, err := keepUntilRefused(t, s, "a", 0)
	if err == nil || !errors.Is(err, syscall.ENOSPC) || kept <= writes {
		t.Fatalf("kept %d, then %v; want more than %d, then the full disk", kept, err, writes)
	}
	// The three in flight finish after the failure.
	for i, release := range releases {
		if err := s.PutSession(record("b", i)); err != nil {
			t.Fatal(err)
		}
		release()
	}
	if s.session.spilled["a"] != writes {
		t.Errorf("%d records spilled, want %d", s.session.spilled["a"], writes)
	}
	for i := range kept {
		mustGet(t, s, "a", i)
	}
	for i := range releases {
		mustGet(t, s, "b", i)
	}
	if err := s.PutReplay(&Replay{Key: "k", Fingerprint: "f", Response: []byte(`{"run_id": "run-k"}`), Session: "a"}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Replay("k"); err != nil || r == nil || string(r.Response) != `{"run_id": "run-k"}` {
		t.Errorf("the idempotency record past the failure: %+v, %v", r, err)
	}
	if len(told) != 1 || told[0] != full {
		t.Errorf("OnSpillFailure was told %v, want the full disk once", told)
	}
	if _, err := s.Admit(); !errors.Is(err, ErrFull) {
		t.Errorf("Admit after the failure: %v", err)
	}
}

// TestReplaySpill: in-memory idempotency records share the limit: past
// it their responses go to the spill and come back whole from Replay; a
// key recorded again replaces its old response; the sweep after the
// Session's grace frees memory and file alike.
func TestReplaySpill(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open("", func() time.Time { return now }, Limits{Memory: 2 << 10, SpillDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp := func(i int) []byte {
		return fmt.Appendf(nil, `{"run_id": "run-%04d", "output": %q}`, i, strings.Repeat("x", 100))
	}
	const n = 60
	for i := range n {
		if err := s.PutReplay(&Replay{Key: fmt.Sprint("k", i), Fingerprint: "f", Response: resp(i), Session: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	// One key recorded again, by another Session, after the limit.
	if err := s.PutReplay(&Replay{Key: "k0", Fingerprint: "g", Response: resp(1000), Session: "b"}); err != nil {
		t.Fatal(err)
	}
	if s.session.used > 2<<10 {
		t.Errorf("%d bytes in memory past a 2 KiB limit", s.session.used)
	}
	for i := range n {
		want, fp := resp(i), "f"
		if i == 0 {
			want, fp = resp(1000), "g"
		}
		r, err := s.Replay(fmt.Sprint("k", i))
		if err != nil || r == nil || string(r.Response) != string(want) || r.Fingerprint != fp {
			t.Fatalf("k%d: %+v, %v", i, r, err)
		}
	}
	s.EndSession("a")
	s.EndSession("b")
	now = now.Add(ReplayGrace + replaySweepEvery)
	if r, _ := s.Replay("k5"); r != nil {
		t.Error("a record outlived its Session's grace")
	}
	if s.session.used != 0 || len(s.replay) != 0 {
		t.Errorf("after the sweep: %d bytes, %d records", s.session.used, len(s.replay))
	}
	var left int
	_ = s.session.spill.View(func(tx *bolt.Tx) error { left = tx.Bucket(bucketSpillReplay).Stats().KeyN; return nil })
	if left != 0 {
		t.Errorf("%d spilled responses outlived the sweep", left)
	}
}
