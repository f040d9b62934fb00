package runstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

// Limits bound the memory session records take (§6.6 retention
// "session"), with the responses of in-memory idempotency records. A
// record its Session may still fetch is never dropped: past Memory it
// goes to a temporary bbolt file (the spill) that is removed at Close,
// or, with NoSpill, Admit refuses further retention. A spill that cannot
// be made or written (no temporary directory, a full disk) turns the
// store into one with NoSpill for the rest of its life, so the limit is
// never exceeded silently.
type Limits struct {
	// Memory is how many bytes of session records (as JSON, with their
	// keys) are held in memory; zero means DefaultMemory.
	Memory int64
	// NoSpill forbids the temporary file: past Memory, Admit refuses.
	NoSpill bool
	// SpillDir is where the spill's temporary directory is made; "" means
	// the system's (os.TempDir).
	SpillDir string
	// OnSpillFailure, when set, is told once why the spill failed, when
	// it does; from then on Admit refuses past Memory with a SpillError.
	// It is called without the store's lock, from the Run whose record
	// met the failure.
	OnSpillFailure func(error)
}

// DefaultMemory is the default Limits.Memory: about 2,500 Runs of 50
// steps traced in full, and far below what a small server has.
const DefaultMemory = 128 << 20

// ErrFull is Admit's answer when memory is used up and NoSpill forbids
// the spill.
var ErrFull = errors.New("the memory for Runs kept for their Session is used up")

// SpillError is Admit's answer when memory is used up and the spill has
// failed: it is ErrFull (errors.Is) with the spill's failure as its
// cause, which the server's operator can mend.
type SpillError struct {
	// Err is why the spill could not be made or written.
	Err error
}

func (e *SpillError) Error() string {
	return ErrFull.Error() + ", and they cannot go to a temporary file: " + e.Err.Error()
}

func (e *SpillError) Is(target error) bool { return target == ErrFull }

func (e *SpillError) Unwrap() error { return e.Err }

// recordOverhead approximates what a kept record costs beyond its JSON:
// the map entries and its key strings.
const recordOverhead = 128

// spillFile is the spill's file name inside its temporary directory.
const spillFile = "spill.db"

var (
	bucketSpill       = []byte("session-runs")
	bucketSpillReplay = []byte("session-idempotency")
)

// sessionRecords is what the store keeps for retention "session": records
// as JSON in memory up to the limit, the rest in the spill. spilled
// counts each Session's records in the spill, so EndSession touches the
// file only for Sessions that have some there.
type sessionRecords struct {
	lim  Limits
	mem  map[string]map[string][]byte
	used int64
	// admitted counts the Runs admitted and not yet released: each is
	// reckoned at recordOverhead until its record is put, so Runs that
	// start together cannot all pass a limit only one of them fits.
	admitted int64
	spill    *bolt.DB
	dir      string // the spill's temporary directory
	spilled  map[string]int
	// write puts one record in the spill, opening it first (spillPut);
	// tests put a failing one in its place.
	write func(bucket, key, data []byte) error
	// failed is why the spill could not be made or written. From then on
	// nothing more is written to it, as with NoSpill; records it already
	// holds are still read from it and deleted.
	failed error
}

func newSessionRecords(lim Limits) *sessionRecords {
	if lim.Memory <= 0 {
		lim.Memory = DefaultMemory
	}
	r := &sessionRecords{lim: lim, mem: map[string]map[string][]byte{}, spilled: map[string]int{}}
	r.write = r.spillPut
	return r
}

// spillable reports whether records past the limit may go to the spill.
func (r *sessionRecords) spillable() bool { return !r.lim.NoSpill && r.failed == nil }

// fail records the spill's first failure and returns it, for the store
// to report once its lock is released.
func (r *sessionRecords) fail(err error) error {
	r.failed = err
	return err
}

// admit reports whether one more record may be kept, and counts it
// until release.
func (r *sessionRecords) admit() error {
	if !r.spillable() && r.used+r.admitted*recordOverhead >= r.lim.Memory {
		if r.failed != nil {
			return &SpillError{Err: r.failed}
		}
		return ErrFull
	}
	r.admitted++
	return nil
}

// put keeps data for (session, runID): in memory while it fits,
// otherwise in the spill. Without a spill (NoSpill, or one that failed)
// admit keeps records within the limit before their Runs start; a
// record past it even so, the one whose write failed and those of Runs
// admitted before, stays in memory over the limit: a Run the client is
// told is stored must stay fetchable (§6.6). put returns the spill's
// failure when this put is the one that meets it.
func (r *sessionRecords) put(session, runID string, data []byte) (failed error) {
	size := int64(len(data)+len(runID)) + recordOverhead
	if r.used+size > r.lim.Memory && r.spillable() {
		err := r.write(bucketSpill, spillKey(session, runID), data)
		if err == nil {
			r.spilled[session]++
			return nil
		}
		failed = r.fail(err)
	}
	m := r.mem[session]
	if m == nil {
		m = map[string][]byte{}
		r.mem[session] = m
	}
	r.used += size
	m[runID] = data
	return failed
}

func (r *sessionRecords) spillPut(bucket, key, data []byte) error {
	if r.spill == nil {
		if err := r.openSpill(); err != nil {
			return err
		}
	}
	return r.spill.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).Put(key, data)
	})
}

// putReplay accounts for an in-memory idempotency record's response
// (§6.5.6) under the same limit as session records, and reports whether
// it went to the spill instead, where the caller must read it back.
// Without a spill it stays in memory, and admit refuses the next Run to
// be kept; failed is as for put.
func (r *sessionRecords) putReplay(key string, resp []byte) (spilled bool, failed error) {
	size := int64(len(resp)+len(key)) + recordOverhead
	if r.used+size > r.lim.Memory && r.spillable() {
		err := r.write(bucketSpillReplay, []byte(key), resp)
		if err == nil {
			return true, nil
		}
		failed = r.fail(err)
	}
	r.used += size
	return false, failed
}

// getReplay reads a spilled idempotency record's response.
func (r *sessionRecords) getReplay(key string) ([]byte, error) {
	var data []byte
	err := r.spill.View(func(tx *bolt.Tx) error {
		data = bytes.Clone(tx.Bucket(bucketSpillReplay).Get([]byte(key)))
		return nil
	})
	return data, err
}

// dropReplay forgets an idempotency record putReplay accounted for; a
// spilled response the file fails to delete goes with the spill at
// Close.
func (r *sessionRecords) dropReplay(key string, inMemory int, spilled bool) {
	if !spilled {
		r.used -= int64(inMemory+len(key)) + recordOverhead
		return
	}
	_ = r.spill.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketSpillReplay).Delete([]byte(key)) })
}

// openSpill makes the temporary directory and its bbolt file. Nothing in
// it must survive a crash, so writes are not synced.
func (r *sessionRecords) openSpill() error {
	dir, err := os.MkdirTemp(r.lim.SpillDir, "pilotage-runs-")
	if err != nil {
		return err
	}
	db, err := bolt.Open(filepath.Join(dir, spillFile), 0o600, &bolt.Options{NoSync: true, NoFreelistSync: true})
	if err == nil {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, b := range [][]byte{bucketSpill, bucketSpillReplay} {
				if _, err := tx.CreateBucket(b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("spill file: %w", err)
	}
	r.spill, r.dir = db, dir
	return nil
}

// spillKey orders a Session's records together, so EndSession deletes
// them with one cursor walk. Session ids hold no NUL.
func spillKey(session, runID string) []byte {
	return []byte(session + "\x00" + runID)
}

// get returns the JSON of (session, runID), or nil.
func (r *sessionRecords) get(session, runID string) ([]byte, error) {
	if data := r.mem[session][runID]; data != nil {
		return data, nil
	}
	if r.spilled[session] == 0 {
		return nil, nil
	}
	var data []byte
	err := r.spill.View(func(tx *bolt.Tx) error {
		data = bytes.Clone(tx.Bucket(bucketSpill).Get(spillKey(session, runID)))
		return nil
	})
	return data, err
}

// end drops every record of session, in memory and in the spill.
func (r *sessionRecords) end(session string) error {
	for runID, data := range r.mem[session] {
		r.used -= int64(len(data)+len(runID)) + recordOverhead
	}
	delete(r.mem, session)
	if r.spilled[session] == 0 {
		return nil
	}
	delete(r.spilled, session)
	prefix := spillKey(session, "")
	return r.spill.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketSpill).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
}

// close removes the spill.
func (r *sessionRecords) close() error {
	if r.spill == nil {
		return nil
	}
	err := r.spill.Close()
	if rerr := os.RemoveAll(r.dir); err == nil {
		err = rerr
	}
	r.spill = nil
	return err
}

// decodeRecord reads a kept record.
func decodeRecord(data []byte) (*Record, error) {
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}
