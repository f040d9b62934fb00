package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// The property test: programs nobody wrote by hand (propgen_test.go),
// each validated, then executed at trace levels full, summary and none
// and as a test run (§6.5.7), with the invariants below checked on every
// answer. A failure names its seed; `go test ./workbench/engine -run
// TestGeneratedPrograms -seed N` runs that one case again.

var (
	propSeed  = flag.Uint64("seed", 0, "TestGeneratedPrograms: run only this seed (a failure prints its seed)")
	propSeeds = flag.Int("seeds", defaultSeeds, "TestGeneratedPrograms: how many seeds to run, from 1")
)

// defaultSeeds is what CI runs: a few seconds on an idle core, and enough
// that every behaviour below is reached several times.
const defaultSeeds = 600

// homeLimits are home/v1's bounds; tight/v1 has small ones that small
// programs and inputs reach, so limits trip often (§10.1). mem/v1 and
// timed/v1 are home/v1 with one bound made small: memory, which the
// outputs a Run holds reach but its input does not (execute refuses an
// input whose decoded values would not fit the memory bound before
// running, so the generator's inputs, at most about 600 bytes of JSON,
// must stay below it as values), and time, which
// one call of slow.op (300 ms) passes. The time bound is 250 ms, not
// less: the bound must stop every timed Run inside that first call, so
// the work before it (checks, binding) may take up to 250 ms on a loaded
// machine before two Runs of one program could stop at different places.
var (
	homeLimits  = homeServer().Languages[0].Limits
	tightLimits = language.Limits{Steps: 12, Time: 30 * time.Second, Depth: 4, Iterations: 5, Expansion: 3, MemoryBytes: 1 << 20, ProgramBytes: 64 << 10}
	memLimits   = withLimits(func(l *language.Limits) { l.MemoryBytes = 8 << 10 })
	timedLimits = withLimits(func(l *language.Limits) { l.Time = 250 * time.Millisecond })
)

func withLimits(edit func(*language.Limits)) language.Limits {
	l := homeLimits
	edit(&l)
	return l
}

// propServer is homeServer plus copies of home/v1 with other limits.
func propServer() *language.Server {
	srv := homeServer()
	for _, v := range []struct {
		id  string
		lim language.Limits
	}{{"tight/v1", tightLimits}, {"mem/v1", memLimits}, {"timed/v1", timedLimits}} {
		l := *srv.Languages[0]
		l.ID, l.Limits = v.id, v.lim
		srv.Languages = append(srv.Languages, &l)
	}
	return srv
}

// propEnv is one engine the generated cases share, with replay's view of
// each Language from the engine's snapshot (its closed sets). The engine
// does not check its own traces (Options.CheckTraces), as other test
// engines do: the cases replay every trace they are given against the
// plan validate gave them (replayClean), or compare it with one they
// replayed, and the engine replayed each again, twice as many, against
// its own plan.
type propEnv struct {
	e   *Engine
	dir string
	rl  map[string]*replay.Language
}

func newPropEnv(t testing.TB) *propEnv {
	dir := t.TempDir()
	srv := propServer()
	p := &propEnv{e: startEngine(t, srv, Options{DataDir: dir}), dir: dir, rl: map[string]*replay.Language{}}
	snap, err := json.Marshal(emit.Snapshot(srv))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range srv.Languages {
		if p.rl[l.ID], err = loadReplayLanguage(snap, l.ID); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// tally counts the behaviours the cases reached, so the test fails when a
// change to the generator or the catalog stops reaching one.
type tally map[string]int

// behaviours every run of the default seed range must reach.
var behaviours = []string{"valid", "invalid", "too deep", "too many steps", "success", "device_error", "runtime error",
	"step limit", "iteration limit", "memory limit", "time limit", "zero-iteration loop", "sub-program", "branch", "summary truncation", "deployed", "stored"}

func TestGeneratedPrograms(t *testing.T) {
	p := newPropEnv(t)
	if *propSeed != 0 {
		t.Run(fmt.Sprintf("seed=%d", *propSeed), func(t *testing.T) { p.check(t, generate(*propSeed), tally{}) })
		return
	}
	seen := tally{}
	seeds := *propSeeds
	if testing.Short() && seeds == defaultSeeds {
		// A thirtieth for the edit loop; the full suite reaches every
		// behaviour, and -short's FuzzGeneratedPrograms one seed of each.
		seeds = shortSeeds
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { p.check(t, generate(seed), seen) })
	}
	t.Logf("behaviours reached: %v", seen)
	for _, b := range behaviours {
		if seen[b] == 0 && seeds >= defaultSeeds {
			t.Errorf("no seed reached %q: the generator no longer covers it", b)
		}
	}
}

// shortSeeds is how many seeds -short's TestGeneratedPrograms runs.
const shortSeeds = defaultSeeds / 30

// FuzzGeneratedPrograms: the fuzzer's input seeds the generator. The
// corpus under testdata/fuzz/FuzzGeneratedPrograms holds a seed for each
// behaviour of TestGeneratedPrograms, named after it.
func FuzzGeneratedPrograms(f *testing.F) {
	p := newPropEnv(f)
	f.Fuzz(func(t *testing.T, seed uint64) {
		if testing.Short() && seed >= 1 && seed <= shortSeeds && *propSeeds == defaultSeeds {
			t.Skipf("-short's TestGeneratedPrograms runs seed %d, this case", seed)
		}
		c := generate(seed)
		if testing.Short() && c.lang == "timed/v1" {
			t.Skip("each Run of the case waits out timed/v1's time bound; TestTimeLimit checks the bound; run without -short")
		}
		p.check(t, c, tally{})
	})
}

// check runs one generated case and asserts every property.
func (p *propEnv) check(t *testing.T, c *genCase, seen tally) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("reproduce with: go test ./workbench/engine -run TestGeneratedPrograms -seed %d\nlanguage %s, %s\nprogram: %s\ninput: %s",
				c.seed, c.lang, c.describe(), c.program, c.input)
		}
	})
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	// Validate has no side effects (§6.1, §6.4): the catalog_version and
	// the run store are as they were.
	before := p.sideState(t, c.lang)
	v, verr := p.e.Validate(bg, alice, c.lang, pilotage.ValidateRequest{Program: c.program})
	if after := p.sideState(t, c.lang); after != before {
		t.Errorf("validate changed the engine's state:\nbefore %s\nafter  %s", before, after)
	}
	if _, l, _ := p.e.language(c.lang); heldOf(t, c.input) > l.limits.MemoryBytes {
		t.Fatalf("the generated input would hold %d bytes, more than %s's memory bound of %d: execute would refuse it before running (§10.1)", heldOf(t, c.input), c.lang, l.limits.MemoryBytes)
	}
	req := pilotage.ExecuteRequest{Program: c.program, Input: c.input}
	switch c.expect {
	case expectTooDeep, expectTooMany:
		seen[map[expectation]string{expectTooDeep: "too deep", expectTooMany: "too many steps"}[c.expect]]++
		reqErr(t, verr, pilotage.ErrResourceLimit)
		_, err := p.e.Execute(bg, alice, c.lang, req)
		reqErr(t, err, pilotage.ErrResourceLimit)
		return
	case expectInvalid:
		seen["invalid"]++
		p.checkInvalid(t, c, v, verr, req)
		return
	}
	if verr != nil || !v.Valid || v.Plan == nil {
		t.Fatalf("validate: %v, diagnostics %+v", verr, v)
	}
	seen["valid"]++
	// §5.3: max_risk_hints aggregates the hints of every call step.
	if want := pilotage.Aggregate(c.hints...); v.Plan.MaxRiskHints != want {
		t.Errorf("plan max_risk_hints %+v, want the aggregate %+v of the program's calls", v.Plan.MaxRiskHints, want)
	}
	p.checkRuns(t, c, v, req, seen)
}

// describe says what the generator meant the case to be.
func (c *genCase) describe() string {
	switch c.expect {
	case expectInvalid:
		return fmt.Sprintf("made invalid with %s (want code %s)", c.mistake, c.wantCode)
	case expectTooDeep:
		return "nested past the depth bound"
	case expectTooMany:
		return "more steps than the steps bound"
	}
	return "valid"
}

// sideState is what validate must leave alone: the catalog as listed, and
// the run store's files.
func (p *propEnv) sideState(t *testing.T, lang string) string {
	list := lookup(t, p.e, "alice", lang, pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
	var b strings.Builder
	b.Write(mustJSON(list))
	err := filepath.WalkDir(p.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n%s %d %s", d.Name(), info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkInvalid: validate reports the mistake with codes from the
// Language's closed set (§5.5), and execute refuses the program with the
// same diagnostics and runs nothing (§6.5.2 step 3, §3.6).
func (p *propEnv) checkInvalid(t *testing.T, c *genCase, v *pilotage.ValidateResponse, verr error, req pilotage.ExecuteRequest) {
	if verr != nil {
		t.Fatalf("validate: %v", verr)
	}
	if v.Valid || len(v.Diagnostics) == 0 {
		t.Fatalf("validate accepted a program with %s: %+v", c.mistake, v)
	}
	_, l, _ := p.e.language(c.lang)
	found := false
	for _, d := range v.Diagnostics {
		if !l.codes[d.Code] {
			t.Errorf("diagnostic code %q is not in %s's closed set: %+v", d.Code, c.lang, d)
		}
		found = found || d.Code == c.wantCode && d.Severity == pilotage.SeverityError
	}
	if !found {
		t.Errorf("a program with %s: no %s error in %+v", c.mistake, c.wantCode, v.Diagnostics)
	}
	resp, err := p.e.Execute(bg, alice, c.lang, req)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if resp.Outcome.Status != pilotage.StatusValidationError || resp.Outcome.OK || resp.Trace != nil || resp.Output != nil {
		t.Errorf("execute of an invalid program: %+v", resp)
	}
	if !equalJSON(resp.Diagnostics, v.Diagnostics) {
		t.Errorf("execute's diagnostics differ from validate's:\n%s\n%s", mustJSON(resp.Diagnostics), mustJSON(v.Diagnostics))
	}
}

// checkRuns executes a valid program at every level and as a test run.
func (p *propEnv) checkRuns(t *testing.T, c *genCase, v *pilotage.ValidateResponse, req pilotage.ExecuteRequest, seen tally) {
	exec := func(level string, edit func(*pilotage.ExecuteRequest)) *pilotage.ExecuteResponse {
		t.Helper()
		r := req
		r.TraceLevel = &level
		r.Store = boolp(false)
		if edit != nil {
			edit(&r)
		}
		resp, err := p.e.Execute(bg, alice, c.lang, r)
		if err != nil {
			t.Fatalf("execute at %s: %v", level, err)
		}
		return resp
	}
	run := func(level string, edit func(*pilotage.ExecuteRequest)) *pilotage.ExecuteResponse {
		t.Helper()
		resp := exec(level, edit)
		if resp.Trace != nil {
			replayClean(t, v, resp, p.rl[c.lang])
			for _, problem := range traceProblems(v.Plan, resp.Trace) {
				t.Error(problem)
			}
		}
		return resp
	}
	// A stored full Run (the Language retains P7D) gives the fetch door,
	// and validate's side effects in later cases, a record to look at.
	full := run(pilotage.LevelFull, func(r *pilotage.ExecuteRequest) { r.Store = &c.store })
	p.checkOutcome(t, c, full, seen)
	if c.store {
		seen["stored"]++
		fetched, err := p.e.Trace(bg, alice, c.lang, pilotage.TraceFetchRequest{RunID: full.RunID, TraceLevel: new(pilotage.LevelFull)})
		if err != nil {
			t.Fatalf("fetch: %v", err)
		}
		if !equalJSON(fetched.Trace, full.Trace) {
			t.Errorf("the fetch door returned another trace than execute:\n%s\n%s", mustJSON(fetched.Trace), mustJSON(full.Trace))
		}
	}
	// Determinism: the same program and input give the same response
	// but for run_id and timings (so this one need not be replayed).
	if again := exec(pilotage.LevelFull, nil); !sameRun(again, full) {
		t.Errorf("two Runs of one program differ:\n%s\n%s", comparable(full), comparable(again))
	}
	// §5.8.1: a summary trace is the full one rendered at summary.
	summary := run(pilotage.LevelSummary, nil)
	if want := render(full.Trace, pilotage.LevelSummary); !sameRun(summary.Trace, want) {
		t.Errorf("the summary trace is not the full trace at summary:\n%s\n%s", comparable(summary.Trace), comparable(want))
	}
	if slices.ContainsFunc(summary.Trace.Steps, func(s pilotage.TraceStep) bool { return bytes.HasPrefix(s.Output, []byte(`{"truncated":true`)) }) {
		seen["summary truncation"]++
	}
	// §6.5.6: at none only run_id and outcome (and the output) remain.
	none := run(pilotage.LevelNone, nil)
	if none.Trace != nil || !equalJSON(none.Outcome, full.Outcome) || string(none.Output) != string(full.Output) {
		t.Errorf("at level none: %s, want no trace and the outcome and output of %s", mustJSON(none), mustJSON(full))
	}
	// ExecuteEach hands over, in order, the entries Execute's trace
	// holds at each level, and answers as Execute does but for them:
	// pilotage run's text takes them so, and the Run then need not
	// hold them to its end.
	for _, want := range []*pilotage.ExecuteResponse{full, summary, none} {
		r := req
		r.TraceLevel, r.Store = new(pilotage.LevelNone), boolp(false)
		if want.Trace != nil {
			r.TraceLevel, r.Store = &want.Trace.Level, boolp(want == full && c.store)
		}
		var got []pilotage.TraceStep
		resp, err := p.e.ExecuteEach(bg, alice, c.lang, r, func(s pilotage.TraceStep) { got = append(got, s) })
		switch {
		case err != nil:
			t.Fatalf("ExecuteEach at %s: %v", *r.TraceLevel, err)
		case resp.Trace == nil && got != nil, resp.Trace != nil && resp.Trace.Steps != nil:
			t.Errorf("ExecuteEach at %s handed over %d entries and answered with a trace of %s", *r.TraceLevel, len(got), mustJSON(resp.Trace))
		case resp.Trace != nil:
			resp.Trace.Steps = append([]pilotage.TraceStep{}, got...)
		}
		if !sameRun(resp, want) {
			t.Errorf("ExecuteEach at %s differs from Execute:\n%s\n%s", *r.TraceLevel, comparable(resp), comparable(want))
		}
	}
	// §6.5.7: a test run is an ordinary execution trace in mode test_run.
	test := run(pilotage.LevelFull, func(r *pilotage.ExecuteRequest) { r.Mode, r.TestRun = new(pilotage.ModeDeploy), boolp(true) })
	if test.Trace == nil || test.Trace.Mode != pilotage.ModeTestRun {
		t.Fatalf("a test run's trace: %s", mustJSON(test.Trace))
	}
	test.Trace.Mode = full.Trace.Mode
	if !sameRun(test, full) {
		t.Errorf("a test run differs from an immediate Run but for its mode:\n%s\n%s", comparable(test), comparable(full))
	}
	if c.deploy {
		seen["deployed"]++
		p.checkDeployed(t, c, full)
	}
}

// checkDeployed installs the program (§6.5.7) and runs it by its
// program_ref: the Run is the inline Run step for step (a promoted
// program is its body, §5.4), and its trace replays clean against the
// body's plan (§5.6).
func (p *propEnv) checkDeployed(t *testing.T, c *genCase, inline *pilotage.ExecuteResponse) {
	dep, err := p.e.Execute(bg, alice, c.lang, pilotage.ExecuteRequest{Program: c.program, Mode: new(pilotage.ModeDeploy), Store: boolp(false)})
	if err != nil || !dep.Outcome.OK {
		t.Fatalf("deploy: %v %s", err, mustJSON(dep))
	}
	var out struct {
		Ref string `json:"program_ref"`
	}
	if err := json.Unmarshal(dep.Output, &out); err != nil || out.Ref == "" {
		t.Fatalf("deploy output %s: %v", dep.Output, err)
	}
	// The plan at the catalog_version the installation moved to.
	v, err := p.e.Validate(bg, alice, c.lang, pilotage.ValidateRequest{Program: c.program})
	if err != nil || !v.Valid {
		t.Fatalf("validate after deploy: %v %+v", err, v)
	}
	resp, err := p.e.Execute(bg, alice, c.lang, pilotage.ExecuteRequest{ProgramRef: new(out.Ref), Input: c.input, TraceLevel: new(pilotage.LevelFull), Store: boolp(false)})
	if err != nil {
		t.Fatalf("execute %s: %v", out.Ref, err)
	}
	replayClean(t, v, resp, p.rl[c.lang])
	if resp.Trace == nil {
		t.Fatalf("no trace: %s", mustJSON(resp))
	}
	tr := *resp.Trace
	tr.CatalogVersion, resp.CatalogVersion, resp.Trace = inline.Trace.CatalogVersion, inline.CatalogVersion, &tr
	if !sameRun(resp, inline) {
		t.Errorf("the Run of %s differs from the inline Run but for catalog_version:\n%s\n%s", out.Ref, comparable(resp), comparable(inline))
	}
}

// comparable is v as indented JSON with run ids and timings normalised,
// for messages.
func comparable(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return normalise(b)
}

// sameRun reports whether two responses or traces are equal but for
// their run ids and timings. It compares JSON, as a client would, but
// blanks those fields in the values rather than in the text: a
// regular expression over every trace was most of the test's time.
func sameRun[T pilotage.ExecuteResponse | pilotage.Trace](a, b *T) bool {
	return string(mustJSON(untimed(a))) == string(mustJSON(untimed(b)))
}

func untimed[T pilotage.ExecuteResponse | pilotage.Trace](v *T) any {
	switch v := any(v).(type) {
	case *pilotage.ExecuteResponse:
		r := *v
		r.RunID = ""
		if r.Trace != nil {
			r.Trace = untimed(r.Trace).(*pilotage.Trace)
		}
		return &r
	case *pilotage.Trace:
		tr := *v
		tr.RunID = ""
		tr.Steps = slices.Clone(tr.Steps)
		for i := range tr.Steps {
			tr.Steps[i].TMs = nil
		}
		var stats map[string]any
		if json.Unmarshal(tr.Stats, &stats) == nil {
			delete(stats, "elapsed_ms")
			tr.Stats = mustJSON(stats)
		}
		return &tr
	}
	return nil
}

// checkOutcome asserts the invariants of one full-level Run: statuses from
// the closed sets, stats.steps_executed, and the bounds of §10.1.
func (p *propEnv) checkOutcome(t *testing.T, c *genCase, resp *pilotage.ExecuteResponse, seen tally) {
	_, l, _ := p.e.language(c.lang)
	lim := l.limits
	o, tr := resp.Outcome, resp.Trace
	if tr == nil {
		t.Fatalf("a Run at level full without a trace: %s", mustJSON(resp))
	}
	if s, ok := l.runStatuses[o.Status]; !ok || s.OK != o.OK || o.OK != (o.Status == pilotage.StatusSuccess) || pilotage.IsRefusal(o.Status) {
		t.Errorf("outcome %+v: a started Run ends success (ok) or a failure status of the closed set", o)
	}
	// The engine counts every step it began: each has one entry in a
	// full trace of a Language with expanded sub-programs, and a step the
	// step bound refused was not begun.
	var stats struct {
		Steps *int   `json:"steps_executed"`
		Held  *int64 `json:"bytes_held"`
	}
	if err := json.Unmarshal(tr.Stats, &stats); err != nil || stats.Steps == nil || stats.Held == nil {
		t.Fatalf("stats %s: %v", tr.Stats, err)
	}
	if *stats.Steps != len(tr.Steps) {
		t.Errorf("stats.steps_executed is %d, the trace has %d entries", *stats.Steps, len(tr.Steps))
	}
	if len(tr.Steps) > lim.Steps {
		t.Errorf("%d trace entries, more than the bound of %d steps", len(tr.Steps), lim.Steps)
	}
	// Every input and output a completed step carries was held, so the
	// trace holds no more than the Run did, nor than the memory bound:
	// the value that would pass the bound is refused, not kept.
	var traced int64
	for _, s := range tr.Steps {
		if s.Outcome.OK {
			traced += int64(len(s.Input) + len(s.Output))
		}
	}
	if traced > min(*stats.Held, lim.MemoryBytes) {
		t.Errorf("the trace's completed steps carry %d bytes, more than stats.bytes_held %d or the memory bound of %d", traced, *stats.Held, lim.MemoryBytes)
	}
	memStop := fmt.Sprintf("memory limit of %d bytes", lim.MemoryBytes)
	if stopped := strings.Contains(o.Error, memStop); stopped != (*stats.Held > lim.MemoryBytes) {
		t.Errorf("stats.bytes_held is %d with a memory bound of %d, but the outcome is %+v", *stats.Held, lim.MemoryBytes, o)
	}
	var failedLoops []pilotage.TraceStep
	for _, s := range tr.Steps {
		continues := 0
		for _, d := range s.Decisions {
			if d.Took == pilotage.DecisionContinue {
				continues++
			}
		}
		switch {
		case s.Kind == pilotage.KindLoop && continues > lim.Iterations:
			t.Errorf("loop %s ran %d iterations, more than the bound of %d", s.ID, continues, lim.Iterations)
		case s.Kind == pilotage.KindLoop && !s.Outcome.OK:
			failedLoops = append(failedLoops, s)
		case s.Kind == pilotage.KindLoop && len(s.Decisions) == 1:
			seen["zero-iteration loop"]++
		case s.Kind == pilotage.KindBranch:
			seen["branch"]++
		case strings.Contains(s.ID, "/"):
			seen["sub-program"]++
		}
	}
	switch {
	case o.OK:
		seen["success"]++
	case strings.Contains(o.Error, fmt.Sprintf("limit of %d steps", lim.Steps)):
		seen["step limit"]++
		if o.Status != pilotage.StatusPartial || len(tr.Steps) != lim.Steps {
			t.Errorf("a Run stopped by the step bound: %s with %d entries, want partial with exactly %d", o.Status, len(tr.Steps), lim.Steps)
		}
	case strings.Contains(o.Error, memStop):
		seen["memory limit"]++
		// The stop passes outwards: every step it ended (the one whose
		// value passed the bound and the constructs around it) names it.
		if o.Status != pilotage.StatusPartial {
			t.Errorf("a Run stopped by the memory bound ends %s, want partial", o.Status)
		}
		for _, s := range tr.Steps {
			if !s.Outcome.OK && !strings.Contains(s.Outcome.Error, memStop) {
				t.Errorf("in a Run stopped by the memory bound, step %s failed with %+v", s.ID, s.Outcome)
			}
		}
	case strings.Contains(o.Error, fmt.Sprintf("time limit of %s", lim.Time)):
		seen["time limit"]++
		// The generator puts the slow call first (rebound), so the bound
		// stops the Run inside it, after one step.
		if o.Status != pilotage.StatusPartial || len(tr.Steps) != 1 || tr.Steps[0].Outcome.OK || tr.Steps[0].Outcome.Error != o.Error {
			t.Errorf("a Run stopped by the time bound: %+v with steps %s, want partial and one failed step with the same error", o, mustJSON(tr.Steps))
		}
	case strings.Contains(o.Error, fmt.Sprintf("limit of %d iterations", lim.Iterations)):
		seen["iteration limit"]++
		if o.Status != pilotage.StatusPartial || !slices.ContainsFunc(failedLoops, func(s pilotage.TraceStep) bool { return len(s.Decisions) == lim.Iterations }) {
			t.Errorf("a Run stopped by the iteration bound: %s, want partial and a failed loop with %d continue decisions", o.Status, lim.Iterations)
		}
	case o.Status == "device_error":
		seen["device_error"]++
	case o.Status == pilotage.StatusPartial:
		seen["runtime error"]++
	}
}

// heldOf is what execute charges input against the memory bound.
func heldOf(t *testing.T, input json.RawMessage) int64 {
	t.Helper()
	n, err := expr.CheckHeld(input)
	if err != nil {
		t.Fatalf("the generated input is not JSON: %v", err)
	}
	return n
}
