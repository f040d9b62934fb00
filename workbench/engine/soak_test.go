package engine

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
)

// soakRuns is how many Runs TestSessionRetentionSoak executes: enough
// that Runs kept in memory would grow the process well past the bounds
// it checks, in a few seconds. The environment variable PILOTAGE_SOAK
// sets it (docs/performance.md records a run of 100000).
func soakRuns(t *testing.T) int {
	v := os.Getenv("PILOTAGE_SOAK")
	if v == "" {
		return 6000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 {
		t.Fatalf("PILOTAGE_SOAK=%q: give a number of Runs, at least 100", v)
	}
	return n
}

// footprint is what the process holds, after a collection that gives
// the heap's free pages back to the system, so resident memory follows
// the live heap rather than the collector's timing.
type footprint struct {
	heap int64 // live heap, bytes
	// anon and rss are Linux's RssAnon and VmRSS in KiB, -1 where /proc
	// does not say. anon is what the heap and the runtime hold; rss adds
	// the pages of files mapped in, the spill's among them, which the
	// kernel may drop again.
	anon, rss int64
}

func measure() footprint {
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	f := footprint{heap: int64(m.HeapAlloc), anon: -1, rss: -1}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return f
	}
	for line := range strings.Lines(string(b)) {
		name, v, _ := strings.Cut(line, ":")
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch {
		case err != nil:
		case name == "RssAnon":
			f.anon = n
		case name == "VmRSS":
			f.rss = n
		}
	}
	return f
}

// settled is the least of three footprints a tenth of a second apart:
// on a loaded machine a reading can catch what another goroutine of the
// test binary (an earlier test's server winding down) holds for a moment,
// which growth the Runs kept cause does not shrink by.
func settled() footprint {
	f := measure()
	for range 2 {
		time.Sleep(100 * time.Millisecond)
		g := measure()
		f.heap, f.anon, f.rss = min(f.heap, g.heap), min(f.anon, g.anon), min(f.rss, g.rss)
	}
	return f
}

// TestSessionRetentionSoak: one Session executes Run after Run, each kept
// for the Session (§6.6, the default store: true). With a 256 KiB memory
// limit (reached by Run 300) the heap and the anonymous resident memory
// stay flat from the first tenth of the Runs to the last, the records
// past the limit going to the spill, and every Run the engine
// acknowledged is fetchable at the end.
func TestSessionRetentionSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of thousands of Runs; run without -short")
	}
	n := soakRuns(t)
	e := newEngineWith(t, homeServer(), Options{Retain: runstore.Limits{Memory: 256 << 10, SpillDir: t.TempDir()}})
	req := pilotage.ExecuteRequest{
		Program: raw(`{"steps": [{"id": "r", "call": "sensors.read", "with": {"room": "input.room"}}, {"id": "f", "call": "fan.set", "with": {"on": "steps.r.output.temp > 25"}}], "output": "steps.r.output.temp"}`),
		Input:   raw(`{"room": "attic"}`)}
	// Run ids are kept as their 16 bytes in one array made and touched
	// up front, so the test's own memory does not grow with the Runs.
	ids := make([][16]byte, n)
	for i := range ids {
		ids[i][0] = 1
	}
	start, from := time.Now(), n/10
	var base footprint
	for i := range n {
		resp, err := e.Execute(bg, alice, "home/v1", req)
		if err != nil || !resp.Outcome.OK {
			t.Fatalf("Run %d: %+v, %v", i, resp, err)
		}
		if _, err := hex.Decode(ids[i][:], []byte(strings.TrimPrefix(resp.RunID, "run-"))); err != nil {
			t.Fatalf("run id %q: %v", resp.RunID, err)
		}
		if i == from {
			base = measure()
		}
	}
	took, end := time.Since(start), settled()
	runs := int64(n - from)
	t.Logf("%d Runs in %v; from Run %d to the last the heap grew %d KiB, RssAnon %d → %d KiB, VmRSS %d → %d KiB",
		n, took.Round(time.Millisecond), from, (end.heap-base.heap)>>10, base.anon, end.anon, base.rss, end.rss)
	// Kept in memory, each Run after the first tenth would take 880
	// bytes of heap and 1.1 KiB of anonymous resident memory (5.6 MiB
	// over 5,400 Runs, when the spill is turned off). What remains is
	// bbolt's list of free pages, which grows with the spill file by
	// about 10 bytes a Run, and the runtime's own rounding, about 1 MiB
	// early on: a constant and a per-Run allowance far below a kept
	// Run's cost.
	if grown := end.heap - base.heap; grown > 1<<20+16*runs {
		t.Errorf("the heap grew %d KiB over %d Runs kept for one Session; it must stay flat", grown>>10, runs)
	}
	if grown := end.anon - base.anon; base.anon >= 0 && grown > 2<<10+(runs*64)>>10 {
		t.Errorf("the anonymous resident memory grew %d KiB over %d Runs kept for one Session; it must stay flat", grown, runs)
	}
	for i, id := range ids {
		runID := "run-" + hex.EncodeToString(id[:])
		got, err := e.Trace(bg, alice, "home/v1", pilotage.TraceFetchRequest{RunID: runID})
		if err != nil || got.RunID != runID {
			t.Fatalf("Run %d (%s) is not fetchable in its Session: %+v, %v", i, runID, got, err)
		}
	}
}

// TestNoSpillRefusesBeforeTheRun: with the spill forbidden, a Run to be
// kept once the memory limit is used is refused with resource_limit
// before it runs; store: false still runs, and ending the Session frees
// the memory.
func TestNoSpillRefusesBeforeTheRun(t *testing.T) {
	e := newEngineWith(t, homeServer(), Options{Retain: runstore.Limits{Memory: 1, NoSpill: true, SpillDir: t.TempDir()}})
	req := pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)}
	first, err := e.Execute(bg, alice, "home/v1", req)
	if err != nil || !first.Outcome.OK {
		t.Fatalf("first Run: %+v, %v", first, err)
	}
	_, err = e.Execute(bg, alice, "home/v1", req)
	re, ok := err.(*pilotage.RequestError)
	if !ok || re.Kind != pilotage.ErrResourceLimit || !strings.Contains(re.Message, "store: false") {
		t.Fatalf("second kept Run: %v, want a resource_limit request error", err)
	}
	if got, err := e.Trace(bg, alice, "home/v1", pilotage.TraceFetchRequest{RunID: first.RunID}); err != nil || got.RunID != first.RunID {
		t.Errorf("the kept Run is no longer fetchable: %v", err)
	}
	if resp, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: req.Program, Store: boolp(false)}); err != nil || !resp.Outcome.OK {
		t.Errorf("store: false was refused: %v", err)
	}
	e.EndSession(alice.Session)
	if _, err := e.Execute(bg, alice, "home/v1", req); err != nil {
		t.Errorf("after the Session ended: %v", err)
	}
}

// TestNoSpillRefusesKeyedRuns: an idempotency key's response is kept in
// memory for its Session like a Run (§6.5.6), store: false or not, so
// once the memory is used a new key is refused before its Run as a kept
// Run is, and says to drop the key; a key already answered is answered
// again, and a Run neither kept nor keyed still runs.
func TestNoSpillRefusesKeyedRuns(t *testing.T) {
	e := newEngineWith(t, homeServer(), Options{Retain: runstore.Limits{Memory: 1, NoSpill: true, SpillDir: t.TempDir()}})
	prog := raw(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)
	keyed := func(key string) (*pilotage.ExecuteResponse, error) {
		return e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: prog, Store: boolp(false), IdempotencyKey: new(key)})
	}
	first, err := keyed("k1")
	if err != nil || !first.Outcome.OK {
		t.Fatalf("first keyed Run: %+v, %v", first, err)
	}
	_, err = keyed("k2")
	re, ok := err.(*pilotage.RequestError)
	if !ok || re.Kind != pilotage.ErrResourceLimit || !strings.Contains(re.Message, "without an idempotency_key") {
		t.Fatalf("a second key once the memory is used: %v, want a resource_limit request error saying to drop the key", err)
	}
	if again, err := keyed("k1"); err != nil || again.RunID != first.RunID {
		t.Errorf("the answered key was not answered again: %+v, %v", again, err)
	}
	if resp, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: prog, Store: boolp(false)}); err != nil || !resp.Outcome.OK {
		t.Errorf("store: false without a key was refused: %v", err)
	}
}

// TestSpillFailureRefusesBeforeTheRun: with no directory for the spill,
// Runs are kept in memory up to the limit and the one whose record met
// the failure too; the failure is told once, and from then on a Run to
// be kept is refused with resource_limit before it runs, saying the
// spill failed and the remedies but not the server's path, which only
// OnSpillFailure (the operator's log) hears, while every acknowledged Run
// stays fetchable.
func TestSpillFailureRefusesBeforeTheRun(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	var told []error
	e := newEngineWith(t, homeServer(), Options{Retain: runstore.Limits{Memory: 4 << 10, SpillDir: missing,
		OnSpillFailure: func(err error) { told = append(told, err) }}})
	req := pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)}
	var kept []string
	for len(kept) < 1000 {
		resp, err := e.Execute(bg, alice, "home/v1", req)
		if err != nil {
			re, ok := err.(*pilotage.RequestError)
			if !ok || re.Kind != pilotage.ErrResourceLimit || strings.Contains(re.Message, missing) || !strings.Contains(re.Message, "cannot go to a temporary file;") ||
				!strings.Contains(re.Message, "store: false") || !strings.Contains(re.Message, "writable temporary directory") {
				t.Fatalf("after %d Runs: %v, want a resource_limit request error saying the spill failed and the remedies, not where", len(kept), err)
			}
			break
		}
		kept = append(kept, resp.RunID)
	}
	if len(kept) == 0 || len(kept) == 1000 {
		t.Fatalf("%d Runs kept before the refusal", len(kept))
	}
	if len(told) != 1 || !errors.Is(told[0], os.ErrNotExist) {
		t.Errorf("OnSpillFailure was told %v, want the missing directory once", told)
	}
	for _, id := range kept {
		if got, err := e.Trace(bg, alice, "home/v1", pilotage.TraceFetchRequest{RunID: id}); err != nil || got.RunID != id {
			t.Fatalf("%s is not fetchable in its Session: %v", id, err)
		}
	}
	if resp, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: req.Program, Store: boolp(false)}); err != nil || !resp.Outcome.OK {
		t.Errorf("store: false was refused: %v", err)
	}
}
