package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

var bg = context.Background()

func exec(t *testing.T, e *Engine, principal, session, lang string, req pilotage.ExecuteRequest) *pilotage.ExecuteResponse {
	t.Helper()
	resp, err := e.Execute(bg, callerOf(principal, session), lang, req)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return resp
}

func reqErr(t *testing.T, err error, kind string) *pilotage.RequestError {
	t.Helper()
	var re *pilotage.RequestError
	if !errors.As(err, &re) || re.Kind != kind {
		t.Fatalf("want a %s request error, got %v", kind, err)
	}
	return re
}

func boolp(b bool) *bool { return &b }

const fanProgram = `{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "input.on"}}], "output": "steps.f.output"}`

// TestProcessingOrder makes two checks of §6.5.2 fail at once and asserts
// the earlier one decides the response.
func TestProcessingOrder(t *testing.T) {
	srv := homeServer()
	// noret has test_run but retains nothing, so the test_run and store
	// checks can fail together.
	noret := *srv.Languages[0]
	noret.ID, noret.Retention = "noret/v1", pilotage.RetentionNone
	noret.Capabilities = caps(pilotage.CapGuides, pilotage.On(), pilotage.CapCatalog, pilotage.On(), pilotage.CapValidate, pilotage.On(),
		pilotage.CapExecute, pilotage.With(pilotage.SubIdempotency))
	srv.Languages = append(srv.Languages, &noret)
	e := newEngine(t, srv, t.TempDir())
	bad := raw(`{"steps": [{"id": "x", "call": "nope"}]}`)
	cases := []struct {
		name   string
		lang   string
		req    pilotage.ExecuteRequest
		kind   string // request error kind, or "" for an outcome
		status string
	}{
		{"selection before ref resolution", "home/v1", pilotage.ExecuteRequest{Program: bad, ProgramRef: new("prog.none@1")}, pilotage.ErrInvalidRequest, ""},
		{"ref resolution before trace level", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.none@1"), TraceLevel: new("loud")}, pilotage.ErrNotFound, ""},
		{"trace level before test_run", "noret/v1", pilotage.ExecuteRequest{Program: bad, TraceLevel: new("loud"), TestRun: boolp(true)}, pilotage.ErrInvalidRequest, ""},
		{"test_run before store", "noret/v1", pilotage.ExecuteRequest{Program: bad, TestRun: boolp(true), Store: boolp(true)}, pilotage.ErrUnsupported, ""},
		{"store before idempotency", "noret/v1", pilotage.ExecuteRequest{Program: bad, Store: boolp(true), IdempotencyKey: new("k")}, pilotage.ErrUnsupported, ""},
		{"request checks before drift", "home/v1", pilotage.ExecuteRequest{Program: bad, TraceLevel: new("loud"), ExpectedCatalogVersion: new("old")}, pilotage.ErrInvalidRequest, ""},
		{"drift before validation", "home/v1", pilotage.ExecuteRequest{Program: bad, ExpectedCatalogVersion: new("old")}, "", pilotage.StatusCatalogDrift},
		{"validation before input binding", "home/v1", pilotage.ExecuteRequest{Program: bad, Input: raw(`[1]`)}, "", pilotage.StatusValidationError},
		{"input binding before execution", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`7`)}, "", pilotage.StatusValidationError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := e.Execute(bg, alice, c.lang, c.req)
			if c.kind != "" {
				re := reqErr(t, err, c.kind)
				if c.name == "test_run before store" && !strings.Contains(re.Message, "test_run") {
					t.Errorf("store decided before test_run: %s", re.Message)
				}
				if c.name == "store before idempotency" && !strings.Contains(re.Message, "store") {
					t.Errorf("idempotency decided before store: %s", re.Message)
				}
				return
			}
			if err != nil || resp.Outcome.Status != c.status {
				t.Fatalf("want %s, got %+v %v", c.status, resp, err)
			}
			if resp.Trace != nil || resp.RunID == "" {
				t.Errorf("a refused Run has a run_id and no trace: %+v", resp)
			}
			if c.name == "validation before input binding" && (len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Code != pilotage.CodeUnknownName) {
				t.Errorf("want the program's diagnostics only, got %+v", resp.Diagnostics)
			}
			if c.name == "input binding before execution" && resp.Diagnostics[0].Code != pilotage.CodeInputBinding {
				t.Errorf("want input_binding, got %+v", resp.Diagnostics)
			}
		})
	}
	// Promotion drift is decided before input binding.
	changeEntry(t, e, "lights.set", func(en *language.Entry) { en.Risk, en.RiskHints = "dangerous", hintsOf("dangerous") })
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1"), Input: raw(`{"rooms": 5}`)})
	if resp.Outcome.Status != pilotage.StatusPromotionDrift {
		t.Fatalf("want promotion_drift, got %+v", resp.Outcome)
	}
}

// changeEntry applies edit to a copy of a PDL catalog entry and serves it.
func changeEntry(t *testing.T, e *Engine, id string, edit func(*language.Entry)) {
	t.Helper()
	for _, en := range e.state().srv.Catalog {
		if en.ID == id {
			cp := *en
			edit(&cp)
			if err := e.UpsertEntry(&cp); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no entry %s", id)
}

// TestDriftRecovery follows §7.5: a catalog change refuses the Run with
// catalog_drift; changed_since names the change; revalidating gives the
// token that executes.
func TestDriftRecovery(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	v1, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(fanProgram)})
	if err != nil || !v1.Valid {
		t.Fatal(v1, err)
	}
	changeEntry(t, e, "fan.set", func(en *language.Entry) { en.Description = "the ceiling fan" })
	run := pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), ExpectedCatalogVersion: new(v1.CatalogVersion)}
	resp := exec(t, e, "alice", "s1", "home/v1", run)
	if resp.Outcome != (pilotage.Outcome{Status: pilotage.StatusCatalogDrift, Error: "catalog version mismatch"}) || resp.CatalogVersion == v1.CatalogVersion {
		t.Fatalf("want catalog_drift with the new token, got %+v", resp)
	}
	ch, err := e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new(v1.CatalogVersion)})
	if err != nil {
		t.Fatal(err)
	}
	if got := ch.(*pilotage.ChangedSinceResponse); len(got.Changes) != 1 || got.Changes[0] != (pilotage.Change{ID: "fan.set", Change: pilotage.ChangeModified}) || got.CatalogVersion != resp.CatalogVersion {
		t.Fatalf("changed_since: %+v", got)
	}
	v2, _ := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(fanProgram)})
	run.ExpectedCatalogVersion = &v2.CatalogVersion
	if resp := exec(t, e, "alice", "s1", "home/v1", run); !resp.Outcome.OK {
		t.Fatalf("after revalidation: %+v", resp.Outcome)
	}
	// A revision-only change keeps the token (§5.4).
	changeEntry(t, e, "fan.set", func(en *language.Entry) { en.Revision = "r2" })
	if v3, _ := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(fanProgram)}); v3.CatalogVersion != v2.CatalogVersion {
		t.Error("a revision-only change changed catalog_version")
	}
	// Additions and removals show in changed_since.
	if err := e.RemoveEntry("weather.fetch"); err != nil {
		t.Fatal(err)
	}
	if err := e.UpsertEntry(mkEntry("door.bell", "actuator", "write", "", "", language.Behavior{})); err != nil {
		t.Fatal(err)
	}
	ch, _ = e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new(v2.CatalogVersion)})
	want := []pilotage.Change{{ID: "door.bell", Change: pilotage.ChangeAdded}, {ID: "weather.fetch", Change: pilotage.ChangeRemoved}}
	if got := ch.(*pilotage.ChangedSinceResponse).Changes; !equalJSON(got, want) {
		t.Errorf("changed_since: got %+v want %+v", got, want)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestPromotionDrift deploys a program, changes what it references and
// meets promotion_drift; promoting again mints a new reference (§5.4).
func TestPromotionDrift(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	dep := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Mode: new(pilotage.ModeDeploy)})
	var out struct {
		Ref string `json:"program_ref"`
	}
	if err := json.Unmarshal(dep.Output, &out); err != nil || !strings.HasSuffix(out.Ref, "@1") {
		t.Fatalf("deploy output %s: %v", dep.Output, err)
	}
	got, err := e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(out.Ref)})
	if err != nil {
		t.Fatal(err)
	}
	en := got.(*pilotage.GetResponse).Entry
	if en.Kind != "program" || en.Risk != "write" || en.RiskHints != hintsOf("write") || len(en.InputSchema) == 0 {
		t.Errorf("promoted entry: %+v (want kind program, honest risk write, an input_schema)", en)
	}
	run := pilotage.ExecuteRequest{ProgramRef: new(out.Ref), Input: raw(`{"on": true}`), ExpectedCatalogVersion: &got.(*pilotage.GetResponse).CatalogVersion}
	if r := exec(t, e, "alice", "s1", "home/v1", run); !r.Outcome.OK || string(r.Output) != `{"ok":true}` {
		t.Fatalf("run of the promoted program: %+v %s", r.Outcome, r.Output)
	}
	// Name, description and tags are not part of the baseline.
	changeEntry(t, e, "fan.set", func(en *language.Entry) { en.Name, en.Tags = "Fan", []string{"air"} })
	run.ExpectedCatalogVersion = nil
	if r := exec(t, e, "alice", "s1", "home/v1", run); !r.Outcome.OK {
		t.Fatalf("a cosmetic change drifted the promotion: %+v", r.Outcome)
	}
	var was json.RawMessage
	changeEntry(t, e, "fan.set", func(en *language.Entry) { was, en.OutputSchema = en.OutputSchema, raw(`{"type":"object"}`) })
	r := exec(t, e, "alice", "s1", "home/v1", run)
	if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.OK || r.Trace != nil {
		t.Fatalf("want promotion_drift, got %+v", r)
	}
	// The mismatch is terminal for the reference (§5.4; §7.5 "Retrying
	// the same program_ref cannot succeed"): undoing the change does not
	// revive it, and promoting the body again mints a new reference.
	changeEntry(t, e, "fan.set", func(en *language.Entry) { en.OutputSchema = was })
	terminal := out.Ref + " met promotion_drift, and a drifted reference stays drifted even once the change is undone; promote the program again"
	if r := exec(t, e, "alice", "s1", "home/v1", run); r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != terminal || r.Trace != nil {
		t.Fatalf("after the change was undone: want promotion_drift %q, got %+v", terminal, r.Outcome)
	}
	dep2 := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Mode: new(pilotage.ModeDeploy)})
	if string(dep2.Output) == string(dep.Output) || !strings.Contains(string(dep2.Output), "@2") {
		t.Fatalf("promoting again must mint a new reference: %s then %s", dep.Output, dep2.Output)
	}
	// The old reference stays what it was: still drifted.
	if r := exec(t, e, "alice", "s1", "home/v1", run); r.Outcome.Status != pilotage.StatusPromotionDrift {
		t.Errorf("old reference: %+v", r.Outcome)
	}
	// Reloading the PDL with a changed referenced entry drifts a PDL
	// program too.
	srv := homeServer()
	for _, en := range srv.Catalog {
		if en.ID == "lights.set" {
			en.InputSchema = raw(`{"type":"object"}`)
		}
	}
	if err := e.Reload(srv); err != nil {
		t.Fatal(err)
	}
	if r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1"), Input: raw(`{"rooms": []}`)}); r.Outcome.Status != pilotage.StatusPromotionDrift {
		t.Errorf("PDL program after reload: %+v", r.Outcome)
	}
}

// TestIdempotency: same key, runnable and input replay the first Run;
// another input conflicts; refused Runs are not recorded; the window
// survives a restart for a durable Language (§6.5.6).
func TestIdempotency(t *testing.T) {
	dir := t.TempDir()
	e, err := New(homeServer(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	req := pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new("k1")}
	first := exec(t, e, "alice", "s1", "home/v1", req)
	again := exec(t, e, "alice", "s2", "home/v1", pilotage.ExecuteRequest{Program: raw(`{"output": "steps.f.output", "steps": [{"with": {"on": "input.on"}, "call": "fan.set", "id": "f"}]}`), Input: raw(`{ "on" : true }`), IdempotencyKey: new("k1")})
	if !equalJSON(first, again) {
		t.Fatalf("replay differs:\n%+v\n%+v", first, again)
	}
	_, err = e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": false}`), IdempotencyKey: new("k1")})
	reqErr(t, err, pilotage.ErrConflict)
	_, err = e.Execute(bg, alice, "bare/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new("k1")})
	reqErr(t, err, pilotage.ErrUnsupported) // bare/v1 declares no idempotency
	_, err = e.Execute(bg, alice, "ctx/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new("k1")})
	reqErr(t, err, pilotage.ErrUnsupported)
	// Another principal's Run under the same key is its own execution.
	bobs := exec(t, e, "bob", "s1", "home/v1", req)
	if bobs.RunID == first.RunID {
		t.Error("bob was handed alice's recorded Run")
	}
	// A refused Run is never recorded: the key stays free.
	drift := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new("k2"), ExpectedCatalogVersion: new("stale")})
	if drift.Outcome.Status != pilotage.StatusCatalogDrift {
		t.Fatal(drift.Outcome)
	}
	ok := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new("k2")})
	if !ok.Outcome.OK || ok.RunID == drift.RunID {
		t.Fatalf("key of a refused Run replayed: %+v", ok)
	}
	e.Close()
	e2 := newEngine(t, homeServer(), dir)
	after := exec(t, e2, "alice", "s1", "home/v1", req)
	if after.RunID != first.RunID {
		t.Errorf("after a restart the key no longer replays: %s vs %s", after.RunID, first.RunID)
	}
}

// TestUnboundedLoopIsBounded runs a program that would execute 10^9 body
// steps and asserts it ends partial within its limits: the steps limit
// (100,000) on a machine that runs them within the 3 s time limit, the
// time limit on one that does not.
func TestUnboundedLoopIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a loop to its 100,000-step or 3 s limit; run without -short")
	}
	t.Parallel() // it runs up to a time limit; others run meanwhile
	srv := homeServer()
	srv.Languages[0].Limits = language.Limits{Steps: 100000, Time: 3 * time.Second, Iterations: 1000, Depth: 8, Expansion: 3, MemoryBytes: 64 << 20, ProgramBytes: 1 << 20}
	e := newEngine(t, srv, t.TempDir())
	xs := make([]int, 1000)
	in, _ := json.Marshal(map[string]any{"xs": xs})
	prog := raw(`{"steps": [{"id": "a", "for_each": "input.xs", "as": "x", "do": [
	  {"id": "b", "for_each": "input.xs", "as": "y", "do": [
	    {"id": "c", "for_each": "input.xs", "as": "z", "do": [
	      {"id": "f", "call": "fan.set", "with": {"on": "x == y"}}]}]}]}]}`)
	start := time.Now()
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: prog, Input: in, TraceLevel: new(pilotage.LevelNone)})
	// A hang detector, generous for a loaded machine: unbounded, the
	// program would run for hours.
	if took := time.Since(start); took > time.Minute {
		t.Errorf("took %s for a 3s time limit", took)
	}
	if resp.Outcome.OK || resp.Outcome.Status != pilotage.StatusPartial || !strings.Contains(resp.Outcome.Error, "limit") {
		t.Fatalf("want a bounded partial outcome, got %+v", resp.Outcome)
	}
	t.Logf("ended: %s", resp.Outcome.Error)
}

// TestTimeLimit: scripted latency that outlasts the Run's time limit ends
// partial at the limit, with the trace so far.
func TestTimeLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a 1.5 s time limit; run without -short")
	}
	t.Parallel() // it waits out a time limit; others run meanwhile
	srv := homeServer()
	// Each slow.op call takes 1 s and the Run may take 1.5 s: the first
	// call ends half a second before the limit, the second would end half
	// a second after it, margins a loaded machine does not eat.
	for _, e := range srv.Catalog {
		if e.ID == "slow.op" {
			e.Behavior.Latency = time.Second
		}
	}
	srv.Languages[0].Limits.Time = 1500 * time.Millisecond
	e := newEngine(t, srv, t.TempDir())
	start := time.Now()
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "l", "for_each": "[1,2,3,4,5]", "as": "x", "do": [{"id": "s", "call": "slow.op"}]}]}`)})
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %s for a 1.5 s time limit", took)
	}
	if resp.Outcome.Status != pilotage.StatusPartial || !strings.Contains(resp.Outcome.Error, "time limit") {
		t.Fatalf("outcome %+v", resp.Outcome)
	}
	ids := []string{}
	for _, s := range resp.Trace.Steps {
		ids = append(ids, s.ID+"="+s.Outcome.Status)
	}
	if strings.Join(ids, ",") != "l=partial,s#1=success,s#2=partial" {
		t.Errorf("trace so far: %v", ids)
	}
}

// TestNoInputSaysSo: a request without input binds {} (§6.5.5), so a
// program reading input.on stops partial; its error says the request
// gave no input, which a first run without --input otherwise leaves to
// guesswork. An input given that lacks the member gets the plain error.
func TestNoInputSaysSo(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	for _, tc := range []struct {
		input string
		note  bool
	}{{"", true}, {`{}`, false}} {
		req := pilotage.ExecuteRequest{Program: raw(fanProgram)}
		if tc.input != "" {
			req.Input = raw(tc.input)
		}
		resp := exec(t, e, "alice", "s1", "home/v1", req)
		if resp.Outcome.Status != pilotage.StatusPartial || !strings.Contains(resp.Outcome.Error, `evaluating "input.on": no such key: on`) {
			t.Fatalf("input %q: outcome %+v", tc.input, resp.Outcome)
		}
		if got := strings.Contains(resp.Outcome.Error, "the request gave no input"); got != tc.note {
			t.Errorf("input %q: error %q; want the no-input note: %v", tc.input, resp.Outcome.Error, tc.note)
		}
	}
}

// TestExpansionLimit: a promoted program that runs itself stops at the
// expansion bound instead of recursing for ever.
func TestExpansionLimit(t *testing.T) {
	srv := homeServer()
	rec := mkEntry("prog.rec@1", "program", "write", `{"type":"object"}`, "", language.Behavior{})
	rec.Program = raw(`{"steps": [{"id": "again", "run": "prog.rec@1", "with": {}}]}`)
	srv.Catalog = append(srv.Catalog, rec)
	e := newEngine(t, srv, t.TempDir())
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.rec@1")})
	if resp.Outcome.Status != pilotage.StatusPartial || !strings.Contains(resp.Outcome.Error, "expansion limit of 3") {
		t.Fatalf("outcome %+v", resp.Outcome)
	}
	var ids []string
	for _, s := range resp.Trace.Steps {
		ids = append(ids, s.ID)
	}
	// Three nested expansions run; the fourth call is refused at the bound.
	if got := strings.Join(ids, " "); got != "again again/again again/again/again again/again/again/again" {
		t.Errorf("expanded ids: %s", got)
	}
}

// lockerServer is homeServer with prog.locker@1, a promoted program that
// opens the lock, which bob may not see.
func lockerServer() *language.Server {
	srv := homeServer()
	locker := mkEntry("prog.locker@1", "program", "dangerous", `{"type":"object"}`, "", language.Behavior{})
	locker.Program = raw(`{"steps": [{"id": "open", "call": "lock.open", "with": {}}], "output": "steps.open.output"}`)
	srv.Catalog = append(srv.Catalog, locker)
	return srv
}

// TestAuthorityAtExecution: names inside a promoted body are checked at
// execution time under the caller's authority (home/v1), or under the
// promoter's when the Language declares promoter (ctx/v1) (§10.3, §10.4).
// Under the caller's, a name bob may not see is absent to him, so the
// baseline check refuses the Run before anything runs (§6.5.2 step 3);
// under the promoter's the body runs, as one opaque step to bob.
func TestAuthorityAtExecution(t *testing.T) {
	e := newEngine(t, lockerServer(), t.TempDir())
	r := exec(t, e, "bob", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.locker@1")})
	if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Trace != nil || strings.Contains(r.Outcome.Error, "lock.open") {
		t.Fatalf("caller authority: want promotion_drift naming only prog.locker@1, got %+v", r)
	}
	r = exec(t, e, "bob", "s1", "ctx/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.locker@1"), Context: raw(`{"site": "hq"}`)})
	if !r.Outcome.OK || string(r.Output) != `"opened"` || len(r.Trace.Steps) != 1 || r.Trace.Steps[0].Calls[0] != "prog.locker@1" {
		t.Fatalf("promoter authority: %+v", r.Trace)
	}
}

// TestDeployedProgramSurvivesRestart: a program_ref a deploy Run returned
// still resolves, with its baseline, after the engine reopens its store.
func TestDeployedProgramSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	e, err := New(homeServer(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	dep := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Mode: new(pilotage.ModeDeploy)})
	var out struct {
		Ref string `json:"program_ref"`
	}
	json.Unmarshal(dep.Output, &out)
	e.Close()
	e2 := newEngine(t, homeServer(), dir)
	r := exec(t, e2, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(out.Ref), Input: raw(`{"on": false}`)})
	if !r.Outcome.OK {
		t.Fatalf("after restart: %+v", r.Outcome)
	}
	changeEntry(t, e2, "fan.set", func(en *language.Entry) { en.Risk, en.RiskHints = "dangerous", hintsOf("dangerous") })
	if r := exec(t, e2, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(out.Ref)}); r.Outcome.Status != pilotage.StatusPromotionDrift {
		t.Errorf("the restored baseline did not detect drift: %+v", r.Outcome)
	}
}

// TestMemoryLimit: values a Run holds are bounded; the Run ends partial.
func TestMemoryLimit(t *testing.T) {
	srv := homeServer()
	srv.Languages[0].Limits.MemoryBytes = 4096
	e := newEngine(t, srv, t.TempDir())
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{
		Program: raw(`{"steps": [{"id": "l", "for_each": "input.rooms", "as": "r", "do": [{"id": "s", "call": "sensors.read", "with": {"room": "r + r + r + r + r + r + r + r"}}]}]}`),
		Input:   raw(`{"rooms": ["` + strings.Repeat("x", 100) + strings.Repeat(`", "`+strings.Repeat("x", 100), 9) + `"]}`)})
	if resp.Outcome.Status != pilotage.StatusPartial || !strings.Contains(resp.Outcome.Error, "memory limit of 4096 bytes") {
		t.Fatalf("outcome %+v", resp.Outcome)
	}
	// An input that alone exceeds the bound is refused before the Run.
	resp = exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true, "pad": "` + strings.Repeat("x", 5000) + `"}`)})
	if resp.Outcome.Status != pilotage.StatusValidationError || resp.Diagnostics[0].Code != pilotage.CodeInputBinding {
		t.Fatalf("oversized input: %+v", resp)
	}
}

// TestConcurrentUse runs, validates, fetches and edits the catalog from
// many goroutines at once (run with -race); -short does half the rounds.
func TestConcurrentUse(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	rounds := 20
	if testing.Short() {
		rounds = 10
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func(g int) {
			var err error
			for i := 0; i < rounds && err == nil; i++ {
				c := callerOf("alice", fmt.Sprint("s", g))
				var r *pilotage.ExecuteResponse
				r, err = e.Execute(bg, c, "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), IdempotencyKey: new(fmt.Sprint(g, "-", i))})
				if err == nil {
					_, err = e.Trace(bg, c, "home/v1", pilotage.TraceFetchRequest{RunID: r.RunID})
				}
				if err == nil {
					_, err = e.Validate(bg, c, "home/v1", pilotage.ValidateRequest{Program: raw(fanProgram)})
				}
				if err == nil && i%5 == 0 {
					err = e.UpsertEntry(mkEntry(fmt.Sprint("extra.", g, ".", i), "sensor", "safe", "", "", language.Behavior{}))
				}
			}
			done <- err
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	l := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Kind: new("sensor"), Limit: new(100)}).(*pilotage.ListResponse)
	if len(l.Items) != 3+8*rounds/5 {
		t.Errorf("concurrent catalog edits lost some: %d sensors", len(l.Items))
	}
}

// TestProgramTooLarge: a program beyond the Language's size bound is a
// resource_limit request error at validate and at execute (§10.1).
// -short bounds the size at 16 KiB, not home/v1's 64 KiB.
func TestProgramTooLarge(t *testing.T) {
	srv := homeServer()
	// Room for the steps: what is over a bound here is the size alone.
	srv.Languages[0].Limits.Steps = 10000
	if testing.Short() {
		srv.Languages[0].Limits.ProgramBytes = 16 << 10
	}
	bound := srv.Languages[0].Limits.ProgramBytes
	e := newEngine(t, srv, t.TempDir())
	step := `{"id": "s%d", "call": "fan.set", "with": {"on": "true"}}`
	var steps []string
	for i := 0; len(strings.Join(steps, ",")) < bound; i++ {
		steps = append(steps, fmt.Sprintf(step, i))
	}
	big := raw(`{"steps": [` + strings.Join(steps, ",") + `]}`)
	_, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: big})
	reqErr(t, err, pilotage.ErrResourceLimit)
	_, err = e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: big})
	reqErr(t, err, pilotage.ErrResourceLimit)
	// Just under the bound, a program of over a thousand steps (at
	// 64 KiB) validates quickly.
	fits := raw(`{"steps": [` + strings.Join(steps[:len(steps)-2], ",") + `]}`)
	start := time.Now()
	v, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: fits})
	if err != nil || !v.Valid {
		t.Fatalf("%v %+v", err, v)
	}
	t.Logf("%d steps validated in %s", len(steps)-2, time.Since(start))
}

// TestNumericMixing: an int input where the program multiplies by a
// double fails at run time with an explanation, not a bare overload error.
func TestNumericMixing(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	prog := raw(`{"steps": [], "output": "input.price * 1.2"}`)
	if r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: prog, Input: raw(`{"price": 10.5}`)}); string(r.Output) != "12.6" {
		t.Errorf("double input: %+v %s", r.Outcome, r.Output)
	}
	r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: prog, Input: raw(`{"price": 10}`)})
	if r.Outcome.Status != pilotage.StatusPartial || !strings.Contains(r.Outcome.Error, "write 2.0, or convert with double(x)") {
		t.Errorf("int input: %+v", r.Outcome)
	}
}

// TestPDLBaselineSurvivesRestart: a PDL edited while the server was down
// still drifts the PDL's promoted programs: their baseline is the one
// recorded when the server first loaded them.
func TestPDLBaselineSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	e, err := New(homeServer(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	srv := homeServer()
	for _, en := range srv.Catalog {
		if en.ID == "lights.set" {
			en.Risk, en.RiskHints = "dangerous", hintsOf("dangerous")
		}
	}
	e2 := newEngine(t, srv, dir)
	r := exec(t, e2, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1"), Input: raw(`{"rooms": []}`)})
	if r.Outcome.Status != pilotage.StatusPromotionDrift {
		t.Errorf("edited PDL after restart: %+v", r.Outcome)
	}
}

// withNightlyBody is homeServer with prog.nightly@1's body replaced.
func withNightlyBody(body string) *language.Server {
	srv := homeServer()
	for _, en := range srv.Catalog {
		if en.ID == "prog.nightly@1" {
			en.Program = raw(body)
		}
	}
	return srv
}

// TestPDLBodyChangeDrifts: a PDL program's reference identifies the body
// it was first promoted with (§5.4 "A program_ref MUST identify an
// immutable program body"). A reload that changes the body under the same
// id meets promotion_drift, by program_ref and from another program, and
// the mismatch is terminal for the reference (§5.4; §7.5 "Retrying the
// same program_ref cannot succeed"): restoring the original body does not
// revive it, in this process or, with a data directory, after a restart.
// The author gives the changed body a new id, which runs. A change undone
// before any Run met it drifted nothing. The body is no catalog field, so
// the catalog_version does not change (§5.4).
func TestPDLBodyChangeDrifts(t *testing.T) {
	dir := t.TempDir()
	e, err := New(homeServer(), Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ref := pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1"), Input: raw(`{"rooms": ["a", "b"]}`)}
	inline := pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "n", "run": "prog.nightly@1", "with": {"rooms": "['a']"}}], "output": "steps.n.output"}`)}
	runs := func(e *Engine, when string) {
		t.Helper()
		if r := exec(t, e, "alice", "s1", "home/v1", ref); !r.Outcome.OK || string(r.Output) != "2" {
			t.Errorf("%s: program_ref: %+v %s", when, r.Outcome, r.Output)
		}
		if r := exec(t, e, "alice", "s1", "home/v1", inline); !r.Outcome.OK || string(r.Output) != "1" {
			t.Errorf("%s: called from a program: %+v %s", when, r.Outcome, r.Output)
		}
	}
	version := func(e *Engine) string {
		return lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList}).(*pilotage.ListResponse).CatalogVersion
	}
	runs(e, "as first loaded")
	before := version(e)
	original := string(homeServer().Catalog[len(homeServer().Catalog)-1].Program)
	changed := strings.Replace(original, `"output":"size(steps.each.output)"`, `"output":"size(steps.each.output) * 10"`, 1)
	if changed == original {
		t.Fatal("the test body was not changed")
	}
	const want = "the body of prog.nightly@1 changed since it was promoted; give the changed body a new reference such as prog.nightly@2"
	drifted := func(e *Engine, when, want string) {
		t.Helper()
		r := exec(t, e, "alice", "s1", "home/v1", ref)
		if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != want || r.Trace != nil {
			t.Errorf("%s: program_ref: want promotion_drift %q, got %+v", when, want, r.Outcome)
		}
		r = exec(t, e, "alice", "s1", "home/v1", inline)
		if r.Outcome.OK || r.Trace == nil || len(r.Trace.Steps) != 1 || r.Trace.Steps[0].Outcome.Error != want {
			t.Errorf("%s: called from a program: want the call to fail with %q, got %+v", when, want, r.Trace)
		} else if s := r.Trace.Steps[0]; len(s.Calls) != 0 || s.Input != nil {
			// The refused program invoked nothing (reading 6).
			t.Errorf("%s: the refused call is traced with calls %q and input %s", when, s.Calls, s.Input)
		}
	}
	if err := e.Reload(withNightlyBody(changed)); err != nil {
		t.Fatal(err)
	}
	drifted(e, "changed body", want)
	if got := e.ChangedBodies(); len(got) != 1 || got[0] != want {
		t.Errorf("ChangedBodies = %q, want [%q]", got, want)
	}
	if after := version(e); after != before {
		t.Errorf("a body change alone changed the catalog_version: %s to %s", before, after)
	}
	if err := e.Reload(withNightlyBody(changed)); err != nil {
		t.Fatal(err)
	}
	drifted(e, "changed body reloaded again", want)
	if err := e.Reload(homeServer()); err != nil {
		t.Fatal(err)
	}
	if got := e.ChangedBodies(); len(got) != 0 {
		t.Errorf("ChangedBodies after the restore = %q", got)
	}
	const terminal = "prog.nightly@1 met promotion_drift, and a drifted reference stays drifted even once the change is undone; give it a new reference such as prog.nightly@2"
	drifted(e, "original body restored", terminal)
	// The mismatch is recorded in the data directory: it outlives the
	// process, with the original body or the changed one.
	e.Close()
	e2 := newEngine(t, homeServer(), dir)
	drifted(e2, "original body after a restart", terminal)
	if err := e2.Reload(withNightlyBody(changed)); err != nil {
		t.Fatal(err)
	}
	drifted(e2, "changed body after a restart", want)
	// The changed body under a new id is a new promotion.
	srv := withNightlyBody(changed)
	srv.Catalog[len(srv.Catalog)-1].ID = "prog.nightly@2"
	if err := e2.Reload(srv); err != nil {
		t.Fatal(err)
	}
	if r := exec(t, e2, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@2"), Input: ref.Input}); !r.Outcome.OK || string(r.Output) != "20" {
		t.Errorf("the changed body under a new id: %+v %s", r.Outcome, r.Output)
	}
	// Without a data directory the mismatch lasts as long as the process.
	mem := newEngine(t, homeServer(), "")
	if err := mem.Reload(withNightlyBody(changed)); err != nil {
		t.Fatal(err)
	}
	drifted(mem, "changed body, no data directory", want)
	if err := mem.Reload(homeServer()); err != nil {
		t.Fatal(err)
	}
	drifted(mem, "original body restored, no data directory", terminal)
	// A change undone before any Run met it is no mismatch.
	fresh := newEngine(t, homeServer(), "")
	for _, srv := range []*language.Server{withNightlyBody(changed), homeServer()} {
		if err := fresh.Reload(srv); err != nil {
			t.Fatal(err)
		}
	}
	runs(fresh, "a change undone before any Run")
}

// A Run lets go of a step's output once no expression may address it
// (program.Step.Release), and of none before: an output addressed in
// every iteration of a later loop, inside a later branch and by the
// program's output is there each time, and one addressed by nothing is
// in the trace all the same.
func TestOutputsHeldWhileAddressed(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	prog := raw(`{"steps": [
	  {"id": "r", "call": "sensors.read", "with": {"room": "'attic'"}},
	  {"id": "x", "call": "sensors.read", "with": {"room": "'hall'"}},
	  {"id": "l", "for_each": "input.rooms", "as": "rm", "do": [
	    {"id": "each", "call": "sensors.read", "with": {"room": "rm"}},
	    {"id": "f", "call": "fan.set", "with": {"on": "steps.r.output.temp > steps.each.output.temp"}}]},
	  {"id": "b", "if": "steps.r.output.temp > 30", "then": [
	    {"id": "g", "call": "fan.set", "with": {"on": "size(steps.l.output) == 3"}}], "else": []}],
	  "output": "[steps.r.output.temp, size(steps.l.output), steps.b.output]"}`)
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: prog, Input: raw(`{"rooms": ["attic", "hall", "den"]}`)})
	if !resp.Outcome.OK || string(resp.Output) != `[31,3,{"ok":true}]` {
		t.Fatalf("outcome %+v, output %s %+v", resp.Outcome, resp.Output, resp.Diagnostics)
	}
	if got := string(resp.Trace.Steps[1].Output); resp.Trace.Steps[1].ID != "x" || got != `{"humidity":0.5,"temp":21}` {
		t.Errorf("the unaddressed step's entry: %s %s", resp.Trace.Steps[1].ID, got)
	}
}
