// Package runstore keeps run records for the trace fetch door and
// idempotency records for execute replay (§6.5, §6.6): retention "session"
// in memory, per Session, spilling past a memory limit to a temporary
// file; ISO-duration retention in a bbolt file under a data directory, so
// the commitment survives a restart.
//
// Memory stays bounded for a long-lived server: session records past
// Limits.Memory go to the spill (or are refused before the Run, with
// NoSpill), an in-memory idempotency record is dropped ReplayGrace after
// its Session ends, and expired durable records are deleted from the file
// every DurableSweepEvery.
package runstore

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Record is one stored Run: the facts the fetch door returns.
type Record struct {
	RunID     string           `json:"run_id"`
	Language  string           `json:"language"`
	Principal string           `json:"principal"`
	Session   string           `json:"session,omitempty"`
	Outcome   pilotage.Outcome `json:"outcome"`
	Output    json.RawMessage  `json:"output,omitempty"`
	Trace     *pilotage.Trace  `json:"trace"`
	// Expires is when a durable record may be dropped; zero for session
	// records, which live as long as their Session.
	Expires time.Time `json:"expires,omitzero"`
}

// Replay is one idempotency record: the fingerprint of the runnable and
// input the key was first used with, and the response to return again.
type Replay struct {
	Key         string          `json:"key"`
	Fingerprint string          `json:"fingerprint"`
	Response    json.RawMessage `json:"response"`
	// Expires is zero for records kept in memory, which live while
	// Session does and ReplayGrace after it ends.
	Expires time.Time `json:"expires,omitzero"`
	// Session is the Session of the first Run; only in-memory records
	// use it, so it is not written to the file.
	Session string `json:"-"`
}

// ReplayGrace is how long an in-memory idempotency record outlives its
// Session. §6.5.6 asks for a window at least as long as the retention,
// here the Session; the retry that matters most comes from a client that
// lost its transport and repeats the request, with the same key, from a
// NEW Session, so the record must not vanish the moment the old one
// closes. An hour covers a reconnect and a retry loop with backoff while
// keeping a server that sees many short Sessions bounded.
const ReplayGrace = time.Hour

// replaySweepEvery spaces the sweeps of in-memory idempotency records, so
// PutReplay and Replay pay for them at most once a minute; between sweeps
// a record past its grace is already invisible to Replay.
const replaySweepEvery = time.Minute

// DurableSweepEvery is how often a store with a data directory deletes
// expired durable records: readers never see them (Get and Replay check
// Expires), but without the sweep the file would keep every record ever
// written until the next restart.
const DurableSweepEvery = time.Hour

// memReplay is an in-memory idempotency record and the Session it is
// kept for.
type memReplay struct {
	*Replay
	owner *replaySession
	// spilled: the Response is in the spill, not in Replay.
	spilled bool
}

// replaySession indexes the in-memory idempotency records of one Session,
// so a sweep visits only the records it drops.
type replaySession struct {
	keys  []string
	ended time.Time // zero while the Session lives
}

// live reports whether the Session's records are still to be replayed.
func (r *replaySession) live(now time.Time) bool {
	return r.ended.IsZero() || now.Before(r.ended.Add(ReplayGrace))
}

// endedSession is one EndSession, queued in the order Sessions ended.
type endedSession struct {
	id string
	at time.Time
}

var (
	bucketRuns     = []byte("runs")
	bucketReplay   = []byte("idempotency")
	bucketPromoted = []byte("promoted")
	// bucketServer holds the server's own secrets: idKeyName.
	bucketServer = []byte("server")
	idKeyName    = []byte("id-key")
)

// IDKeySize is the size of the key deployed program ids are keyed with.
const IDKeySize = 32

// FileName is the bbolt file inside the data directory.
const FileName = "runs.db"

// Store holds both kinds of record.
type Store struct {
	mu      sync.Mutex
	session *sessionRecords
	replay  map[string]*memReplay
	// sessions holds the Sessions with in-memory idempotency records;
	// ended lists those that ended, oldest first, for the sweep.
	sessions  map[string]*replaySession
	ended     []endedSession
	lastSweep time.Time
	db        *bolt.DB
	now       func() time.Time
	// idKey is the secret deployed program ids are keyed with: kept in
	// the file when there is one, so ids survive a restart.
	idKey []byte
	// stop ends the durable sweeper and done reports it has returned;
	// both nil without a data directory.
	stop, done chan struct{}
	closing    sync.Once
}

// Open opens a store whose session records keep to lim (the zero Limits
// are the defaults). With dir "" nothing is durable: durable writes are
// refused, and the engine must declare "session" instead (§6.6). With a
// directory, expired records are swept now and every DurableSweepEvery
// until Close.
func Open(dir string, now func() time.Time, lim Limits) (*Store, error) {
	return open(dir, now, defaultTiming, lim)
}

// timing is how often expired durable records are swept and how long
// Open waits for a data directory another process holds.
type timing struct {
	sweepEvery, lockWait time.Duration
}

var defaultTiming = timing{sweepEvery: DurableSweepEvery, lockWait: 2 * time.Second}

// open is Open with the timing as a parameter, so tests need not
// wait an hour for a sweep or two seconds for a lock.
func open(dir string, now func() time.Time, tm timing, lim Limits) (*Store, error) {
	s := &Store{session: newSessionRecords(lim), replay: map[string]*memReplay{}, sessions: map[string]*replaySession{}, now: now, idKey: newIDKey()}
	if dir == "" {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if err := checkFile(path); err != nil {
		return nil, openError(path, err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: tm.lockWait})
	if err != nil {
		return nil, openError(path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRuns, bucketReplay, bucketPromoted, bucketServer} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		var err error
		s.idKey, err = keptIDKey(tx.Bucket(bucketServer), s.idKey)
		return err
	})
	if err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	s.db = db
	if err := s.Sweep(); err != nil {
		db.Close()
		return nil, fmt.Errorf("run store: %w", err)
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go s.sweepDurable(tm.sweepEvery)
	return s, nil
}

// newIDKey returns a fresh random id key. crypto/rand.Read does not fail
// (it crashes the program if the system cannot give randomness).
func newIDKey() []byte {
	k := make([]byte, IDKeySize)
	_, _ = rand.Read(k)
	return k
}

// keptIDKey returns the id key kept in b, keeping fresh there on a
// store's first open.
func keptIDKey(b *bolt.Bucket, fresh []byte) ([]byte, error) {
	k := b.Get(idKeyName)
	switch {
	case k == nil:
		return fresh, b.Put(idKeyName, fresh)
	case len(k) != IDKeySize:
		return nil, &fileError{kind: errDamaged, reason: fmt.Sprintf("its id key has %d bytes, not %d", len(k), IDKeySize)}
	}
	return bytes.Clone(k), nil
}

// IDKey returns the secret deployed program ids are keyed with (§10.3):
// random per memory-only store, created once and kept in the file of a
// durable one.
func (s *Store) IDKey() []byte { return s.idKey }

// sweepDurable runs Sweep every interval until Close. A failed sweep is
// retried at the next tick: expired records are invisible to readers
// meanwhile, so only the file's size waits for it.
func (s *Store) sweepDurable(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			_ = s.Sweep()
		}
	}
}

// Durable reports whether the store can keep records across a restart.
func (s *Store) Durable() bool { return s.db != nil }

// Close stops the durable sweeper, releases the bbolt file and removes
// the spill. Closing twice is harmless.
func (s *Store) Close() error {
	var err error
	s.closing.Do(func() {
		s.mu.Lock()
		err = s.session.close()
		s.mu.Unlock()
		if s.db == nil {
			return
		}
		close(s.stop)
		<-s.done
		err = errors.Join(err, s.db.Close())
	})
	return err
}

// ErrNotDurable is returned for a durable write to a memory-only store.
var ErrNotDurable = errors.New("run store has no data directory")

// Admit is asked before a Run whose record is to be kept for its
// Session: ErrFull when the memory limit is reached and the spill is
// forbidden, a SpillError when it failed, so the Run is refused before
// it starts rather than run and then forgotten or kept past the limit.
// An admitted Run holds its place until release is called, after its
// record is put or once it turns out not to be kept.
func (s *Store) Admit() (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.session.admit(); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.session.admitted--
			s.mu.Unlock()
		})
	}, nil
}

// PutSession keeps rec until its Session ends: in memory within the
// limit, in the spill past it, in memory past it when the spill fails
// (Limits.OnSpillFailure).
func (s *Store) PutSession(rec *Record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	s.mu.Lock()
	failed := s.session.put(rec.Session, rec.RunID, data)
	s.mu.Unlock()
	s.spillFailed(failed)
	return nil
}

// spillFailed tells Limits.OnSpillFailure of the spill's failure, if
// this call met it.
func (s *Store) spillFailed(err error) {
	if err != nil && s.session.lim.OnSpillFailure != nil {
		s.session.lim.OnSpillFailure(err)
	}
}

// PutDurable keeps rec in the bbolt file until rec.Expires.
func (s *Store) PutDurable(rec *Record) error {
	if s.db == nil {
		return ErrNotDurable
	}
	return put(s.db, bucketRuns, rec.RunID, rec)
}

func put(db *bolt.DB, bucket []byte, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put([]byte(key), data) })
}

func get(db *bolt.DB, bucket []byte, key string, v any) (bool, error) {
	var data []byte
	err := db.View(func(tx *bolt.Tx) error {
		if d := tx.Bucket(bucket).Get([]byte(key)); d != nil {
			data = append([]byte(nil), d...)
		}
		return nil
	})
	if err != nil || data == nil {
		return false, err
	}
	return true, json.Unmarshal(data, v)
}

// Get returns the record of runID when it is still retained: a session
// record only to a caller in the same Session, a durable one until it
// expires. Whether the caller may see it is the engine's decision.
func (s *Store) Get(runID, session string) (*Record, error) {
	s.mu.Lock()
	data, err := s.session.get(session, runID)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if data != nil {
		return decodeRecord(data)
	}
	if s.db == nil {
		return nil, nil
	}
	var r Record
	ok, err := get(s.db, bucketRuns, runID, &r)
	if err != nil || !ok || !s.now().Before(r.Expires) {
		return nil, err
	}
	return &r, nil
}

// EndSession drops the Session's run records at once and starts the
// ReplayGrace of its in-memory idempotency records. Records the spill
// failed to delete are unreachable (their Session is over) and go with
// the spill at Close.
func (s *Store) EndSession(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.session.end(session)
	if rs := s.sessions[session]; rs != nil && rs.ended.IsZero() {
		rs.ended = s.now()
		s.ended = append(s.ended, endedSession{id: session, at: rs.ended})
	}
}

// Replay returns the idempotency record of key, if any and unexpired.
func (s *Store) Replay(key string) (*Replay, error) {
	s.mu.Lock()
	now := s.now()
	s.sweepReplays(now)
	r := s.replay[key]
	live := r != nil && r.owner.live(now)
	var resp []byte
	var err error
	if live && r.spilled {
		resp, err = s.session.getReplay(key)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if live && r.spilled {
		kept := *r.Replay
		kept.Response = resp
		return &kept, nil
	}
	if live {
		return r.Replay, nil
	}
	if s.db == nil {
		return nil, nil
	}
	var d Replay
	ok, err := get(s.db, bucketReplay, key, &d)
	if err != nil || !ok || !s.now().Before(d.Expires) {
		return nil, err
	}
	return &d, nil
}

// PutReplay records an idempotency key: durably when r.Expires is set
// (the window must outlast the retention period, §6.5.6), otherwise in
// memory while r.Session lives and ReplayGrace after it ends.
func (s *Store) PutReplay(r *Replay) error {
	if !r.Expires.IsZero() && s.db != nil {
		return put(s.db, bucketReplay, r.Key, r)
	}
	s.mu.Lock()
	failed := s.putMemReplay(r)
	s.mu.Unlock()
	s.spillFailed(failed)
	return nil
}

// putMemReplay keeps r in memory, or its response in the spill; the
// caller holds s.mu.
func (s *Store) putMemReplay(r *Replay) (failed error) {
	s.sweepReplays(s.now())
	rs := s.sessions[r.Session]
	if rs == nil {
		rs = &replaySession{}
		s.sessions[r.Session] = rs
	}
	// A Session that runs again after EndSession is live again; its
	// queued end no longer matches and the sweep skips it.
	rs.ended = time.Time{}
	rs.keys = append(rs.keys, r.Key)
	if old := s.replay[r.Key]; old != nil {
		s.session.dropReplay(old.Key, len(old.Response), old.spilled)
	}
	m := &memReplay{Replay: r, owner: rs}
	spilled, failed := s.session.putReplay(r.Key, r.Response)
	if spilled {
		kept := *r
		kept.Response = nil
		m.Replay, m.spilled = &kept, true
	}
	s.replay[r.Key] = m
	return failed
}

// sweepReplays drops the in-memory idempotency records of Sessions that
// ended ReplayGrace ago, at most once per replaySweepEvery. It visits the
// ended Sessions in the order they ended and stops at the first still in
// its grace, so it costs the records it drops, not all records. The
// caller holds s.mu.
func (s *Store) sweepReplays(now time.Time) {
	if now.Sub(s.lastSweep) < replaySweepEvery {
		return
	}
	s.lastSweep = now
	for len(s.ended) > 0 && !now.Before(s.ended[0].at.Add(ReplayGrace)) {
		e := s.ended[0]
		s.ended[0] = endedSession{}
		s.ended = s.ended[1:]
		rs := s.sessions[e.id]
		if rs == nil || !rs.ended.Equal(e.at) {
			continue
		}
		for _, k := range rs.keys {
			// A key whose record expired unswept may have been
			// recorded again by a later Session; that record stays.
			if m := s.replay[k]; m != nil && m.owner == rs {
				s.session.dropReplay(k, len(m.Response), m.spilled)
				delete(s.replay, k)
			}
		}
		delete(s.sessions, e.id)
	}
}

// Sweep deletes expired durable records.
func (s *Store) Sweep() error {
	if s.db == nil {
		return nil
	}
	now := s.now()
	return s.db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketRuns, bucketReplay} {
			b := tx.Bucket(name)
			var dead [][]byte
			err := b.ForEach(func(k, v []byte) error {
				var e struct {
					Expires time.Time `json:"expires"`
				}
				if json.Unmarshal(v, &e) != nil || !now.Before(e.Expires) {
					dead = append(dead, append([]byte(nil), k...))
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, k := range dead {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// PutPromoted keeps a promoted program for good: a reference a deploy Run
// returned must resolve after a restart (§5.4). Memory-only stores keep
// nothing; the engine holds its promotions itself.
func (s *Store) PutPromoted(id string, v any) error {
	if s.db == nil {
		return nil
	}
	return put(s.db, bucketPromoted, id, v)
}

// Promoted returns every kept promoted program by id.
func (s *Store) Promoted() (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if s.db == nil {
		return out, nil
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPromoted).ForEach(func(k, v []byte) error {
			out[string(k)] = append(json.RawMessage(nil), v...)
			return nil
		})
	})
	return out, err
}
