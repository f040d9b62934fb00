package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/cmd/progress"
)

// benchPlan has nested loops and a branch in the outer body:
//
//	init; rooms { check; hot ? fan : idle; lamps { dim; log }; done }; end
//
// benchRooms and benchLamps give 1000×(5+2×497)+3 = 999,003 steps.
var benchRooms, benchLamps = 1000, 497

const benchPlan = `{"steps": [
 {"id": "init", "kind": "step", "calls": ["scene.init"], "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "rooms", "kind": "loop"},
 {"id": "check", "kind": "step", "calls": ["sensors.read"], "loop": "rooms", "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "hot", "kind": "branch", "arms": ["then", "else"], "loop": "rooms"},
 {"id": "fan", "kind": "step", "calls": ["fan.set"], "arm": {"branch": "hot", "label": "then"}, "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "idle", "kind": "step", "calls": ["fan.idle"], "arm": {"branch": "hot", "label": "else"}, "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "lamps", "kind": "loop", "loop": "rooms"},
 {"id": "dim", "kind": "step", "calls": ["lamp.dim"], "loop": "lamps", "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "log", "kind": "step", "calls": ["log.write"], "loop": "lamps", "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "done", "kind": "step", "calls": ["room.done"], "loop": "rooms", "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
 {"id": "end", "kind": "step", "calls": ["scene.end"], "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}
], "max_risk": "write", "max_risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`

// writeBenchTrace writes a full-level trace of rooms×(5+2×lamps)+3 steps,
// the way an engine streams one: steps first, outcome after.
func writeBenchTrace(w io.Writer, rooms, lamps int) (entries int) {
	return writeBenchTraceIn(w, rooms, lamps, "")
}

// writeBenchTraceIn is writeBenchTrace's trace with every id after
// prefix; with prefix "b/", those are the expanded entries (§5.8.3) of a
// step b that runs promoted program prog.bench@1, after b's own entry,
// whose input is the rooms and lamps lists the body loops over.
func writeBenchTraceIn(w io.Writer, rooms, lamps int, prefix string) (entries int) {
	bw := bufio.NewWriterSize(w, 1<<16)
	ok := `"outcome": {"ok": true, "status": "success"}`
	if prefix != "" {
		seq := func(n int) string {
			var b strings.Builder
			for i := 1; i <= n; i++ {
				if i > 1 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(i))
			}
			return b.String()
		}
		fmt.Fprintf(bw, `{"run_id": "bench", "steps": [`+"\n"+`  {"id": %q, "calls": ["prog.bench@1"], "input": {"rooms": [%s], "lamps": [%s]}, "output": {"ok": true}, %s, "t_ms": 9}`,
			strings.TrimSuffix(prefix, "/"), seq(rooms), seq(lamps), ok)
		entries++
	}
	step := func(id, call string) {
		if entries > 0 {
			bw.WriteString(",\n")
		}
		fmt.Fprintf(bw, `  {"id": %q, "calls": [%q], "input": {"level": 40}, "output": {"ok": true}, %s, "t_ms": 3}`, prefix+id, call, ok)
		entries++
	}
	control := func(id, kind string, decisions []string) {
		bw.WriteString(",\n")
		fmt.Fprintf(bw, `  {"id": %q, "kind": %q, %s, "decisions": [`, prefix+id, kind, ok)
		for i, d := range decisions {
			if i > 0 {
				bw.WriteString(", ")
			}
			fmt.Fprintf(bw, `{"at": %q, "took": %q, "because": "evaluated"}`, prefix+id, d)
		}
		bw.WriteString("]}")
		entries++
	}
	loopDecisions := func(n int) []string {
		return append(strings.Split(strings.Repeat("continue,", n), ",")[:n], "exit")
	}
	if prefix == "" {
		bw.WriteString(`{"run_id": "bench", "steps": [` + "\n")
	}
	step("init", "scene.init")
	control("rooms", "loop", loopDecisions(rooms))
	for r := 1; r <= rooms; r++ {
		step(fmt.Sprintf("check#%d", r), "sensors.read")
		if r%3 == 0 {
			control(fmt.Sprintf("hot#%d", r), "branch", []string{"else"})
			step(fmt.Sprintf("idle#%d", r), "fan.idle")
		} else {
			control(fmt.Sprintf("hot#%d", r), "branch", []string{"then"})
			step(fmt.Sprintf("fan#%d", r), "fan.set")
		}
		control(fmt.Sprintf("lamps#%d", r), "loop", loopDecisions(lamps))
		for l := 1; l <= lamps; l++ {
			step(fmt.Sprintf("dim#%d#%d", r, l), "lamp.dim")
			step(fmt.Sprintf("log#%d#%d", r, l), "log.write")
		}
		step(fmt.Sprintf("done#%d", r), "room.done")
	}
	step("end", "scene.end")
	bw.WriteString("\n], \"level\": \"full\", \"outcome\": {\"ok\": true, \"status\": \"success\"}}\n")
	bw.Flush()
	return entries
}

// benchTraceFile writes writeBenchTrace's trace to a file and opens it
// for reading.
func benchTraceFile(tb testing.TB, rooms, lamps int) (*os.File, int) {
	path := filepath.Join(tb.TempDir(), "trace.json")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	entries := writeBenchTrace(f, rooms, lamps)
	f.Close()
	if f, err = os.Open(path); err != nil {
		tb.Fatal(err)
	}
	return f, entries
}

// Heap metrics: everything in heap objects, garbage not yet collected
// included (the benchmark's conservative peak), and the heap live after
// the latest GC (what replay retains).
const (
	heapObjects = "/memory/classes/heap/objects:bytes"
	heapLive    = "/gc/heap/live:bytes"
)

// peakHeap is peakMetric for heapObjects.
func peakHeap(f func()) uint64 { return peakMetric(heapObjects, f) }

// peakMetric samples a runtime/metrics byte count every millisecond while
// f runs and returns the largest value seen.
func peakMetric(name string, f func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	sample := []metrics.Sample{{Name: name}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	f()
	close(stop)
	<-done
	read()
	return peak.Load()
}

// BenchmarkReplay1M replays a generated 1,000,000-step trace (nested loops
// and a branch, level full) and compares its throughput with a plain
// encoding/json Decoder.Token scan of the same file in the same run. It
// fails when replay is slower than half the scan or when the heap's peak
// reaches 64 MiB. The progress case replays as pilotage replay
// --progress=always does: bytes counted through the meter's reader and
// every entry counted, with the line drawn (into io.Discard).
func BenchmarkReplay1M(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		benchReplay1M(b, func(f io.Reader) (io.Reader, Options, func()) { return f, Options{}, func() {} })
	})
	b.Run("progress", func(b *testing.B) {
		benchReplay1M(b, func(f io.Reader) (io.Reader, Options, func()) {
			m := progress.Start(io.Discard, progress.Always, 0, "replay", "steps")
			return m.Reader(f), Options{OnEntry: m.Add}, m.Stop
		})
	})
}

// benchReplay1M is BenchmarkReplay1M with setup turning the trace file
// into the reader and options a replay gets, and what ends the replay.
func benchReplay1M(b *testing.B, setup func(io.Reader) (io.Reader, Options, func())) {
	path := filepath.Join(b.TempDir(), "trace.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	entries := writeBenchTrace(f, benchRooms, benchLamps)
	f.Close()
	st, _ := os.Stat(path)
	plan, err := LoadPlan("plan.json", []byte(benchPlan), 0)
	if err != nil || len(plan.Findings) > 0 {
		b.Fatal(err, plan.Findings)
	}
	open := func() *os.File {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		return f
	}

	var scan, rep time.Duration
	runtime.GC()
	b.SetBytes(st.Size())
	b.ResetTimer()
	var peak uint64
	for range b.N {
		f := open()
		var res Result
		peak = max(peak, peakHeap(func() {
			r, opt, end := setup(f)
			start := time.Now()
			res = Replay(plan, "trace.json", r, opt)
			rep += time.Since(start)
			end()
		}))
		f.Close()
		if len(res.Findings) > 0 || res.Entries != entries {
			b.Fatalf("replay: %d entries (want %d), findings %v", res.Entries, entries, res.Findings)
		}
		b.StopTimer()
		f = open()
		start := time.Now()
		dec := json.NewDecoder(f)
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		scan += time.Since(start)
		f.Close()
		b.StartTimer()
	}
	b.StopTimer()
	mb := float64(st.Size()) * float64(b.N) / (1 << 20)
	// Both rates from the same clock around the same work: b.Elapsed
	// would also count the heap sampler and the setup.
	replayRate := mb / rep.Seconds()
	scanRate := mb / scan.Seconds()
	b.ReportMetric(float64(entries), "entries")
	b.ReportMetric(scanRate, "scan-MB/s")
	b.ReportMetric(replayRate/scanRate, "replay/scan")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if replayRate < scanRate/2 {
		b.Errorf("replay ran at %.0f MB/s, under half the token scan's %.0f MB/s", replayRate, scanRate)
	}
	if peak >= 64<<20 {
		b.Errorf("peak heap %.1f MiB, want under 64 MiB", float64(peak)/(1<<20))
	}
}

// TestMemoryDoesNotGrowWithSteps replays a trace and one ten times longer
// (a loop with ten times the iterations): the live heap stays the same,
// because replay holds open activations, not entries.
func TestMemoryDoesNotGrowWithSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB trace")
	}
	peakFor := func(rooms int) uint64 { return leastLiveHeap(t, rooms, Options{}) }
	small, large := peakFor(100), peakFor(1000)
	t.Logf("peak live heap: %.2f MiB for ~10k entries, %.2f MiB for ~100k", float64(small)/(1<<20), float64(large)/(1<<20))
	// The longer trace is 18 MB more JSON; holding its entries would add
	// far more than this margin, which allows for GC timing and the one
	// entry that does grow, the outer loop's with its decisions.
	if large > small+4<<20 {
		t.Errorf("live heap grew from %.2f MiB to %.2f MiB with ten times the steps", float64(small)/(1<<20), float64(large)/(1<<20))
	}
}

// leastLiveHeap is the least of three liveHeap readings. The live heap
// is read as of the last GC, so a GC that lands while a large value's
// buffers are held reads high once on a busy machine; holding entries
// would show in every reading.
func leastLiveHeap(t *testing.T, rooms int, opt Options) uint64 {
	least := liveHeap(t, rooms, opt)
	for range 2 {
		least = min(least, liveHeap(t, rooms, opt))
	}
	return least
}

// liveHeap is the peak live heap of replaying writeBenchTrace's trace of
// rooms rooms of 50 lamps against benchPlan with opt, which must find
// nothing.
func liveHeap(t *testing.T, rooms int, opt Options) uint64 {
	plan, err := LoadPlan("plan.json", []byte(benchPlan), 0)
	if err != nil {
		t.Fatal(err)
	}
	f, entries := benchTraceFile(t, rooms, 50)
	defer f.Close()
	runtime.GC()
	var res Result
	peak := peakMetric(heapLive, func() { res = Replay(plan, "trace.json", f, opt) })
	if len(res.Findings) > 0 || res.Entries != entries {
		t.Fatalf("%d rooms: %d entries (want %d), findings %v", rooms, res.Entries, entries, res.Findings)
	}
	return peak
}
