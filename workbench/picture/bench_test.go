package picture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/replay"
)

// bigPlan is a plan of n steps shaped like real programs: runs of calls
// at every risk level, a branch with two arms every 10 steps, a loop
// around 4 steps every 25.
func bigPlan(n int) *pilotage.Plan {
	levels := []struct {
		name  string
		hints pilotage.RiskHints
	}{{"safe", pilotage.RiskHints{ReadOnly: true}}, {"write", pilotage.RiskHints{}}, {"wipe", pilotage.RiskHints{Destructive: true}}}
	p := &pilotage.Plan{MaxRisk: "wipe", MaxRiskHints: pilotage.RiskHints{Destructive: true}}
	step := func(id string) pilotage.PlanStep {
		l := levels[len(p.Steps)%len(levels)]
		h := l.hints
		return pilotage.PlanStep{ID: id, Kind: pilotage.KindStep, Calls: []string{"entry." + id}, Risk: l.name, RiskHints: &h}
	}
	for i := 0; len(p.Steps) < n; i++ {
		id := fmt.Sprintf("s%d", i)
		switch {
		case i%25 == 24:
			p.Steps = append(p.Steps, pilotage.PlanStep{ID: id, Kind: pilotage.KindLoop})
			for j := 0; j < 4; j++ {
				s := step(fmt.Sprintf("%s_body%d", id, j))
				s.Loop = id
				p.Steps = append(p.Steps, s)
			}
		case i%10 == 9:
			p.Steps = append(p.Steps, pilotage.PlanStep{ID: id, Kind: pilotage.KindBranch, Arms: []string{"then", "else"}})
			for j, arm := range []string{"then", "then", "else"} {
				s := step(fmt.Sprintf("%s_%s%d", id, arm, j))
				s.Arm = &pilotage.ArmRef{Branch: id, Label: arm}
				p.Steps = append(p.Steps, s)
			}
		default:
			p.Steps = append(p.Steps, step(id))
		}
	}
	return p
}

// BenchmarkPlanSVG lays out and renders plans of 200 and 2,000 steps;
// the 200-step plan is the baseline of the ratio, measured in the same
// run. The budget (issue 17: ≤ 2 s for 2,000 steps) is checked on the
// process's CPU time per render, which a machine shared with other work
// does not inflate as it does wall time; both are reported.
// docs/performance.md records the numbers.
func BenchmarkPlanSVG(b *testing.B) {
	var base time.Duration
	for _, n := range []int{200, 2000} {
		g := FromPlan(bigPlan(n), Info{})
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if err := SVG(io.Discard, g); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (cpuTime() - cpu0) / time.Duration(b.N)
			b.ReportMetric(cpu.Seconds(), "cpu-s/op")
			if n == 200 {
				base = cpu
			} else if base > 0 {
				b.ReportMetric(float64(cpu)/float64(base), "x-200-steps")
			}
			if n == 2000 && cpu > 2*time.Second {
				b.Errorf("a 2,000-step plan took %v of CPU to draw, over 2 s", cpu)
			}
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeLoopTrace writes a trace of one loop of n iterations over a step,
// 2n+1 entries, as an engine streams it.
func writeLoopTrace(w io.Writer, n int) {
	bw := bufio.NewWriterSize(w, 1<<16)
	ok := `"outcome": {"ok": true, "status": "success"}`
	fmt.Fprintf(bw, `{"run_id": "big", "level": "summary", %s, "steps": [`+"\n", ok)
	fmt.Fprintf(bw, `{"id": "read", "kind": "step", "calls": ["sensors.read"], %s, "t_ms": 1},`+"\n", ok)
	fmt.Fprintf(bw, `{"id": "each", "kind": "loop", %s, "t_ms": %d, "decisions": [`, ok, n)
	for i := 0; i < n; i++ {
		bw.WriteString(`{"at": "each", "took": "continue"}, `)
	}
	bw.WriteString(`{"at": "each", "took": "exit"}]}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(bw, ",\n"+`{"id": "off#%d", "kind": "step", "calls": ["lights.set"], %s, "t_ms": 0.5}`, i, ok)
	}
	bw.WriteString("\n]}\n")
	bw.Flush()
}

// peakHeapOf runs f and returns the largest heap it saw, sampled every
// millisecond.
func peakHeapOf(f func()) uint64 {
	runtime.GC()
	var (
		mu   sync.Mutex
		peak uint64
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			mu.Lock()
			peak = max(peak, m.HeapAlloc)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak
}

// BenchmarkReplayReport1M replays a trace of 1,000,001 entries against
// homeflow's plan with and without drawing the HTML report: the report
// aggregates per plan step, so its time and peak heap are reported as
// ratios of plain replay's, measured in the same run.
func BenchmarkReplayReport1M(b *testing.B) {
	dir := b.TempDir()
	trace := filepath.Join(dir, "big.json")
	f, err := os.Create(trace)
	if err != nil {
		b.Fatal(err)
	}
	writeLoopTrace(f, 500000)
	f.Close()
	src, err := os.ReadFile(filepath.Join(replayDir, "plan.json"))
	if err != nil {
		b.Fatal(err)
	}
	plan, err := replay.LoadPlan("plan.json", src, 0)
	if err != nil {
		b.Fatal(err)
	}
	input := []replay.Input{{File: "big.json", Open: func() (io.ReadCloser, error) { return os.Open(trace) }}}
	run := func(draw bool) {
		opt := replay.Options{}
		var pic *Replay
		if draw {
			pic = NewReplay(plan)
			opt.OnStep, opt.OnTrace = pic.Step, pic.Trace
		}
		rep, err := replay.Run(plan, input, opt)
		if err != nil {
			b.Fatal(err)
		}
		if draw {
			var out bytes.Buffer
			if err := pic.Page(rep, PageOptions{}).WriteHTML(&out); err != nil {
				b.Fatal(err)
			}
		}
	}
	var plainT, drawT time.Duration
	var plainHeap, drawHeap uint64
	for b.Loop() {
		t0 := time.Now()
		plainHeap = max(plainHeap, peakHeapOf(func() { run(false) }))
		t1 := time.Now()
		drawHeap = max(drawHeap, peakHeapOf(func() { run(true) }))
		plainT += t1.Sub(t0)
		drawT += time.Since(t1)
	}
	b.ReportMetric(float64(drawT)/float64(plainT), "x-time-of-replay")
	b.ReportMetric(float64(drawHeap)/float64(plainHeap), "x-peak-heap-of-replay")
	b.ReportMetric(float64(drawHeap)/(1<<20), "peak-heap-MiB")
	if drawHeap > 2*plainHeap {
		b.Errorf("the report's peak heap %.1f MiB is over twice plain replay's %.1f MiB", float64(drawHeap)/(1<<20), float64(plainHeap)/(1<<20))
	}
}
