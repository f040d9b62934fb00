// Package runstore keeps run records for the trace fetch door and
// idempotency records for execute replay (§6.5, §6.6): retention "session"
// in memory, per Session; ISO-duration retention in a bbolt file under a
// data directory, so the commitment survives a restart.
package runstore

import (
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
	// Expires is zero for records kept in memory for the process lifetime.
	Expires time.Time `json:"expires,omitzero"`
}

var (
	bucketRuns     = []byte("runs")
	bucketReplay   = []byte("idempotency")
	bucketPromoted = []byte("promoted")
)

// FileName is the bbolt file inside the data directory.
const FileName = "runs.db"

// Store holds both kinds of record.
type Store struct {
	mu      sync.Mutex
	session map[string]map[string]*Record
	replay  map[string]*Replay
	db      *bolt.DB
	now     func() time.Time
}

// Open opens a store. With dir "" nothing is durable: durable writes are
// refused, and the engine must declare "session" instead (§6.6).
func Open(dir string, now func() time.Time) (*Store, error) {
	s := &Store{session: map[string]map[string]*Record{}, replay: map[string]*Replay{}, now: now}
	if dir == "" {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("run store %s: %w (is another server using this data directory?)", filepath.Join(dir, FileName), err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketRuns, bucketReplay, bucketPromoted} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("run store: %w", err)
	}
	s.db = db
	return s, s.Sweep()
}

// Durable reports whether the store can keep records across a restart.
func (s *Store) Durable() bool { return s.db != nil }

// Close releases the bbolt file.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// ErrNotDurable is returned for a durable write to a memory-only store.
var ErrNotDurable = errors.New("run store has no data directory")

// PutSession keeps rec until its Session ends.
func (s *Store) PutSession(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.session[rec.Session]
	if m == nil {
		m = map[string]*Record{}
		s.session[rec.Session] = m
	}
	m[rec.RunID] = rec
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
	rec := s.session[session][runID]
	s.mu.Unlock()
	if rec != nil {
		return rec, nil
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

// EndSession drops the Session's records.
func (s *Store) EndSession(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.session, session)
}

// Replay returns the idempotency record of key, if any and unexpired.
func (s *Store) Replay(key string) (*Replay, error) {
	s.mu.Lock()
	r := s.replay[key]
	s.mu.Unlock()
	if r != nil {
		return r, nil
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
// memory for the process lifetime.
func (s *Store) PutReplay(r *Replay) error {
	if !r.Expires.IsZero() && s.db != nil {
		return put(s.db, bucketReplay, r.Key, r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replay[r.Key] = r
	return nil
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
