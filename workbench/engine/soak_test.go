package engine

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
)

// soakRuns is how many Runs TestSessionRetentionSoak executes; the
// environment variable PILOTAGE_SOAK raises it (docs/performance.md
// records a run of 100000).
func soakRuns(t *testing.T) int {
	v := os.Getenv("PILOTAGE_SOAK")
	if v == "" {
		return 3000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 {
		t.Fatalf("PILOTAGE_SOAK=%q: give a number of Runs, at least 100", v)
	}
	return n
}

// rssAnon is the process's anonymous resident memory in KiB (Linux's
// RssAnon), -1 where /proc does not say: what the heap and the runtime
// hold, without the pages of the spill file the kernel maps in and may
// drop again.
func rssAnon() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestSessionRetentionSoak: one Session executes Run after Run, each kept
// for the Session (§6.6, the default store: true). With a 256 KiB memory
// limit (reached by Run 300) the heap stays flat from the first tenth of the Runs to the last,
// the records past the limit going to the spill, and every Run the
// engine acknowledged is fetchable at the end.
func TestSessionRetentionSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of thousands of Runs; run without -short")
	}
	n := soakRuns(t)
	e := newEngineWith(t, homeServer(), Options{Retain: runstore.Limits{Memory: 256 << 10, SpillDir: t.TempDir()}})
	req := pilotage.ExecuteRequest{
		Program: raw(`{"steps": [{"id": "r", "call": "sensors.read", "with": {"room": "input.room"}}, {"id": "f", "call": "fan.set", "with": {"on": "steps.r.output.temp > 25"}}], "output": "steps.r.output.temp"}`),
		Input:   raw(`{"room": "attic"}`)}
	// Run ids are kept as their 16 bytes in one array made up front, so
	// the test's own memory does not grow with the Runs.
	ids := make([][16]byte, n)
	var base, baseRSS int64
	for i := range n {
		resp, err := e.Execute(bg, alice, "home/v1", req)
		if err != nil || !resp.Outcome.OK {
			t.Fatalf("Run %d: %+v, %v", i, resp, err)
		}
		if _, err := hex.Decode(ids[i][:], []byte(strings.TrimPrefix(resp.RunID, "run-"))); err != nil {
			t.Fatalf("run id %q: %v", resp.RunID, err)
		}
		if i == n/10 {
			base, baseRSS = heapInUse(), rssAnon()
		}
	}
	grown := heapInUse() - base
	t.Logf("%d Runs: heap grew %d KiB from Run %d to the last; anonymous RSS %d KiB then, %d KiB now", n, grown>>10, n/10, baseRSS, rssAnon())
	// Kept in memory, the Runs after the first tenth take 880 bytes
	// each (2.3 MiB for 3,000 Runs). What remains is the collector's
	// timing and bbolt's list of free pages, which grows with the spill
	// file by about 10 bytes a Run.
	if grown > 1<<20+16*int64(n) {
		t.Errorf("the heap grew %d KiB over %d Runs kept for one Session; it must stay flat", grown>>10, n-n/10)
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

// TestSpillFailureRefusesBeforeTheRun: with no directory for the spill,
// Runs are kept in memory up to the limit and the one whose record met
// the failure too; the failure is told once, and from then on a Run to
// be kept is refused with resource_limit before it runs, naming the
// cause and the remedies, while every acknowledged Run stays fetchable.
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
			if !ok || re.Kind != pilotage.ErrResourceLimit || !strings.Contains(re.Message, missing) ||
				!strings.Contains(re.Message, "store: false") || !strings.Contains(re.Message, "writable temporary directory") {
				t.Fatalf("after %d Runs: %v, want a resource_limit request error naming the spill's failure and the remedies", len(kept), err)
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
