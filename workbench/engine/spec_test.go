package engine

// Tests written for rows of docs/coverage/engine.md that no other test
// asserted, and for the engine fixes the audit made; each names its
// section of Part II.

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// TestIdempotencyConcurrentRequestsAreOneRun: requests with one key,
// runnable and input that arrive together are one execution (§6.5.6),
// not several that each missed the record of the others.
func TestIdempotencyConcurrentRequestsAreOneRun(t *testing.T) {
	// slow.op holds each Run for 100ms here (300ms in home/v1), so the
	// requests, started together, overlap.
	srv := homeServer()
	for _, en := range srv.Catalog {
		if en.ID == "slow.op" {
			en.Behavior.Latency = 100 * time.Millisecond
		}
	}
	e := newEngine(t, srv, t.TempDir())
	req := pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "s", "call": "slow.op"}]}`), IdempotencyKey: new("together")}
	const n = 6
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := e.Execute(bg, alice, "home/v1", req)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = resp.RunID
		}()
	}
	wg.Wait()
	for i, id := range ids {
		if id != ids[0] {
			t.Fatalf("request %d ran as %s, request 0 as %s: one key executed more than once", i, id, ids[0])
		}
	}
	if len(e.keys.held) != 0 {
		t.Errorf("key locks left behind: %v", e.keys.held)
	}
}

// TestPromotedRiskIsConsistentAndHonest: a deploy Run's promoted entry
// carries a declared risk level together with that level's own hints
// (§5.3), which are its body's aggregate, so it is as restrictive as its
// body (§5.4) and the plan's max_risk and max_risk_hints agree: fan.set
// (write) and weather.fetch (external) plan as external, open-world, not
// as any, which is also destructive (issue 13, item 2).
func TestPromotedRiskIsConsistentAndHonest(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	body := raw(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}, {"id": "w", "call": "weather.fetch"}]}`)
	v, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: body})
	if err != nil || !v.Valid {
		t.Fatalf("%+v %v", v, err)
	}
	if want := (pilotage.RiskHints{OpenWorld: true}); v.Plan.MaxRisk != "external" || v.Plan.MaxRiskHints != want || hintsOf("external") != want {
		t.Fatalf("plan max_risk %s %+v, want external with the aggregate %+v, its own hints", v.Plan.MaxRisk, v.Plan.MaxRiskHints, want)
	}
	ref := deploy(t, e, body)
	got := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(ref)}).(*pilotage.GetResponse).Entry
	if got.Risk != "external" || got.RiskHints != v.Plan.MaxRiskHints {
		t.Errorf("promoted entry: risk %s with hints %+v, want external with the body's hints %+v", got.Risk, got.RiskHints, v.Plan.MaxRiskHints)
	}
}

// TestLookupErrorsCarryCatalogVersion: every lookup answer carries the
// caller's current catalog_version (§6.3), request errors included.
func TestLookupErrorsCarryCatalogVersion(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	for _, c := range []struct {
		lang string
		req  pilotage.LookupRequest
		kind string
	}{
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new("no.such")}, pilotage.ErrNotFound},
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet}, pilotage.ErrInvalidRequest},
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(-1)}, pilotage.ErrInvalidRequest},
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Cursor: new("!!")}, pilotage.ErrInvalidRequest},
		{"home/v1", pilotage.LookupRequest{Verb: "grep"}, pilotage.ErrInvalidRequest},
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new("cv-never")}, pilotage.ErrUnknownBaseline},
		// §6.3: changed_since compares against a supplied token; "" is one
		// the server cannot compare against, none at all is a malformed request.
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new("")}, pilotage.ErrUnknownBaseline},
		{"home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince}, pilotage.ErrInvalidRequest},
		{"ctx/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Q: new("fan")}, pilotage.ErrUnsupported},
		{"ctx/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new("x")}, pilotage.ErrUnsupported},
	} {
		want := lookup(t, e, "bob", c.lang, pilotage.LookupRequest{Verb: pilotage.VerbList}).(*pilotage.ListResponse).CatalogVersion
		_, err := e.Lookup(bg, callerOf("bob", "s"), c.lang, c.req)
		if re := reqErr(t, err, c.kind); re.CatalogVersion != want {
			t.Errorf("%s %+v: catalog_version %q, want bob's current %q", c.lang, c.req, re.CatalogVersion, want)
		}
	}
}

// TestChangedSinceIsPerCaller: a catalog_version issued to alice is an
// unknown baseline for bob; answering it would list alice's entries that
// bob may not see as "removed" (§6.3 authorization scope, §10.3).
func TestChangedSinceIsPerCaller(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	list := func(who string) string {
		return lookup(t, e, who, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList}).(*pilotage.ListResponse).CatalogVersion
	}
	aliceToken, bobToken := list("alice"), list("bob")
	_, err := e.Lookup(bg, callerOf("bob", "s"), "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new(aliceToken)})
	if re := reqErr(t, err, pilotage.ErrUnknownBaseline); strings.Contains(re.Message, "lock.open") {
		t.Errorf("the error names an entry bob cannot see: %s", re.Message)
	}
	// An entry bob cannot see leaves his token as it was (§5.4); one he
	// can see changes it, and his own old token names only that change.
	if err := e.UpsertEntry(mkEntry("lock.close", "actuator", "write", "", "", language.Behavior{})); err != nil {
		t.Fatal(err)
	}
	if list("bob") != bobToken || list("alice") == aliceToken {
		t.Error("an entry only alice sees must change her token and not bob's")
	}
	if err := e.UpsertEntry(mkEntry("fan.boost", "actuator", "write", "", "", language.Behavior{})); err != nil {
		t.Fatal(err)
	}
	if list("bob") == bobToken {
		t.Error("a visible addition left bob's token unchanged")
	}
	ch := lookup(t, e, "bob", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new(bobToken)}).(*pilotage.ChangedSinceResponse)
	if want := []pilotage.Change{{ID: "fan.boost", Change: pilotage.ChangeAdded}}; !equalJSON(ch.Changes, want) {
		t.Errorf("bob's changes: %+v, want %+v", ch.Changes, want)
	}
}

// TestZeroIterationLoopIsTraced: a loop reached with an empty list is
// activated, traced once, with exactly one "exit" decision and no body
// entries (§5.8.2 control-flow entries).
func TestZeroIterationLoopIsTraced(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	req := pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "each", "for_each": "input.rooms", "as": "r", "do": [
	  {"id": "off", "call": "lights.set", "with": {"room": "r", "on": "false"}}]}], "output": "steps.each.output"}`),
		Input: raw(`{"rooms": []}`)}
	for _, level := range []string{pilotage.LevelFull, pilotage.LevelSummary} {
		req.TraceLevel = &level
		resp := exec(t, e, "alice", "s1", "home/v1", req)
		if !resp.Outcome.OK || string(resp.Output) != "[]" {
			t.Fatalf("%s: %+v %s", level, resp.Outcome, resp.Output)
		}
		steps := resp.Trace.Steps
		if len(steps) != 1 || steps[0].ID != "each" || steps[0].Kind != pilotage.KindLoop {
			t.Fatalf("%s: want the loop entry alone, got %+v", level, steps)
		}
		if d := steps[0].Decisions; len(d) != 1 || d[0].At != "each" || d[0].Took != pilotage.DecisionExit {
			t.Errorf("%s: decisions %+v, want one exit", level, d)
		}
		assertTrace(t, e, "home/v1", "alice", req, resp)
	}
}

// TestProgramRefIsCheckedUnderCallerAuthority: under promotion_authority
// "promoter" the body runs with the promoter's authority, but the
// program_ref itself is checked under the caller's: a reference the
// caller may not see is indistinguishable from none (§10.3, §6.5.2).
func TestProgramRefIsCheckedUnderCallerAuthority(t *testing.T) {
	srv := homeServer()
	secret := mkEntry("secret.prog@1", "program", "safe", `{"type":"object"}`, "", language.Behavior{})
	secret.Program = raw(`{"steps": [{"id": "r", "call": "sensors.read", "with": {"room": "'attic'"}}], "output": "steps.r.output"}`)
	srv.Catalog = append(srv.Catalog, secret)
	e := newEngine(t, srv, t.TempDir())
	ctx := raw(`{"site": "hq"}`)
	if r := exec(t, e, "alice", "s1", "ctx/v1", pilotage.ExecuteRequest{ProgramRef: new("secret.prog@1"), Context: ctx}); !r.Outcome.OK {
		t.Fatalf("alice, who sees it: %+v", r.Outcome)
	}
	var answers []string
	for _, ref := range []string{"secret.prog@1", "secret.none@1"} {
		_, err := e.Execute(bg, callerOf("bob", "s1"), "ctx/v1", pilotage.ExecuteRequest{ProgramRef: new(ref), Context: ctx})
		re := reqErr(t, err, pilotage.ErrNotFound)
		b, _ := json.Marshal(pilotage.RequestErrorEnvelope{Error: *re})
		answers = append(answers, strings.ReplaceAll(string(b), ref, "REF"))
	}
	if answers[0] != answers[1] {
		t.Errorf("bob can tell the hidden reference exists:\n%s\n%s", answers[0], answers[1])
	}
}

// TestStoreTrueAtLevelNone: store true with effective level none returns
// no inline trace, and the record is kept at the Language's declared
// level (§6.5 store, §5.8.1).
func TestStoreTrueAtLevelNone(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	for _, lang := range []string{"home/v1", "ctx/v1"} {
		req := pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), TraceLevel: new(pilotage.LevelNone), Store: boolp(true)}
		want := pilotage.LevelFull
		if lang == "ctx/v1" {
			prog, _ := json.Marshal(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)
			req = pilotage.ExecuteRequest{Program: prog, Context: raw(`{"site": "hq"}`), TraceLevel: new(pilotage.LevelNone), Store: boolp(true)}
			want = pilotage.LevelSummary
		}
		resp := exec(t, e, "alice", "s1", lang, req)
		if resp.Trace != nil || resp.RunID == "" || !resp.Outcome.OK {
			t.Fatalf("%s: want run_id and outcome without a trace, got %+v", lang, resp)
		}
		got, err := fetch(e, "alice", "s1", lang, resp.RunID, nil)
		if err != nil {
			t.Fatalf("%s: stored Run not fetchable: %v", lang, err)
		}
		if got.Trace.Level != want || len(got.Trace.Steps) != 1 || got.Outcome != resp.Outcome {
			t.Errorf("%s: fetched %+v, want the Run recorded at %s", lang, got.Trace, want)
		}
	}
}

// TestValidateHasNoSideEffects: validate invokes no catalog entry, installs
// nothing in a deploy-capable Language and answers the same every time
// (§6.4 side-effect freedom); discover likewise (§6.1).
func TestValidateHasNoSideEffects(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	m1, _ := e.Discover(bg)
	// 30 calls of slow.op would take 9 s if validation invoked them.
	var steps []string
	for i := range 30 {
		steps = append(steps, fmt.Sprintf(`{"id": "s%d", "call": "slow.op"}`, i))
	}
	prog := raw(`{"steps": [` + strings.Join(steps, ",") + `, {"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)
	before := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
	start := time.Now()
	var first []byte
	for i := range 3 {
		v, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: prog})
		if err != nil || !v.Valid {
			t.Fatalf("%+v %v", v, err)
		}
		b, _ := json.Marshal(v)
		if i == 0 {
			first = b
		} else if string(b) != string(first) {
			t.Errorf("validation %d answered differently:\n%s\n%s", i, b, first)
		}
	}
	if took := time.Since(start); took >= 9*time.Second {
		t.Errorf("three validations took %s: slow.op was invoked", took)
	}
	after := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
	if !equalJSON(before, after) {
		t.Errorf("the catalog changed under validation:\n%+v\n%+v", before, after)
	}
	if m2, _ := e.Discover(bg); !equalJSON(m1, m2) {
		t.Errorf("the manifest changed:\n%+v\n%+v", m1, m2)
	}
}

// TestEntryLanguagesLimitVisibility: an entry whose languages list names
// one Language does not exist for another (data-model.md §5.4): a deploy
// Run's promoted program is visible only where it was installed.
func TestEntryLanguagesLimitVisibility(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	ref := deploy(t, e, raw(fanProgram))
	lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(ref)})
	_, err := e.Lookup(bg, alice, "ctx/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(ref)})
	reqErr(t, err, pilotage.ErrNotFound)
	_, err = e.Execute(bg, alice, "ctx/v1", pilotage.ExecuteRequest{ProgramRef: new(ref), Context: raw(`{"site": "hq"}`)})
	reqErr(t, err, pilotage.ErrNotFound)
}

// TestDeployPlanDescribesBody: in a deploy-mode Language the validation
// plan says mode deploy and lists the body's steps and risk, what the
// Host's gate must judge, not the installation (§5.6, §6.5.7).
func TestDeployPlanDescribesBody(t *testing.T) {
	srv := homeServer()
	srv.Languages[0].ExecutionMode = pilotage.ModeDeploy
	e := newEngine(t, srv, t.TempDir())
	v, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(`{"steps": [{"id": "o", "call": "lock.open", "with": {}}]}`)})
	if err != nil || !v.Valid {
		t.Fatalf("%+v %v", v, err)
	}
	p := v.Plan
	if p.Mode != pilotage.ModeDeploy || len(p.Steps) != 1 || p.Steps[0].ID != "o" || !equalJSON(p.Steps[0].Calls, []string{"lock.open"}) ||
		p.MaxRisk != "dangerous" || p.MaxRiskHints != hintsOf("dangerous") {
		t.Errorf("deploy plan %+v: want mode deploy with the body's step o and its risk", p)
	}
}

// TestTestRunInstallsNothing: a test_run of a deploying program evaluates
// the body and returns an ordinary trace; it installs nothing and keeps
// the catalog as it was (§6.5.7 Test run).
func TestTestRunInstallsNothing(t *testing.T) {
	srv := homeServer()
	srv.Languages[0].ExecutionMode = pilotage.ModeDeploy
	e := newEngine(t, srv, t.TempDir())
	before := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
	resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), TestRun: boolp(true)})
	if !resp.Outcome.OK || resp.Trace.Mode != pilotage.ModeTestRun || len(resp.Trace.Steps) != 1 || resp.Trace.Steps[0].ID != "f" {
		t.Fatalf("test run: %+v", resp.Trace)
	}
	if strings.Contains(string(resp.Output), "program_ref") {
		t.Errorf("a test run returned an installation result: %s", resp.Output)
	}
	after := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
	if !equalJSON(before, after) {
		t.Errorf("the test run changed the catalog:\n%+v\n%+v", before, after)
	}
}

// TestNoInputConvention: a Language whose inline programs take no input
// refuses a request that supplies one with input_binding (§6.5.5).
func TestNoInputConvention(t *testing.T) {
	srv := homeServer()
	srv.Languages[2].Grammar.Input = false
	e := newEngine(t, srv, t.TempDir())
	prog := raw(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)
	resp := exec(t, e, "alice", "s1", "bare/v1", pilotage.ExecuteRequest{Program: prog, Input: raw(`{}`)})
	if resp.Outcome.Status != pilotage.StatusValidationError || len(resp.Diagnostics) != 1 ||
		resp.Diagnostics[0].Code != pilotage.CodeInputBinding || resp.Diagnostics[0].Path.Pointer != "" || resp.Trace != nil {
		t.Fatalf("input to a Language without a convention: %+v", resp)
	}
	if resp := exec(t, e, "alice", "s1", "bare/v1", pilotage.ExecuteRequest{Program: prog}); !resp.Outcome.OK {
		t.Fatalf("without input: %+v", resp.Outcome)
	}
}

// TestEffectiveTraceLevel: the inline trace is at the lower of the
// requested level and the declared ceiling, the ceiling when none is
// requested, and trace.level says which (§5.8.1).
func TestEffectiveTraceLevel(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	textProg, _ := json.Marshal(`{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)
	for _, c := range []struct {
		lang  string
		asked *string // nil: none requested
		want  string
	}{
		{"home/v1", nil, pilotage.LevelFull},
		{"home/v1", new(pilotage.LevelSummary), pilotage.LevelSummary},
		{"ctx/v1", nil, pilotage.LevelSummary},
		{"ctx/v1", new(pilotage.LevelFull), pilotage.LevelSummary},
	} {
		req := pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(`{"on": true}`), TraceLevel: c.asked}
		if c.lang == "ctx/v1" {
			req = pilotage.ExecuteRequest{Program: textProg, Context: raw(`{"site": "hq"}`), TraceLevel: c.asked}
		}
		resp := exec(t, e, "alice", "s1", c.lang, req)
		if resp.Trace == nil || resp.Trace.Level != c.want {
			t.Errorf("%s, want level %s: trace %+v", c.lang, c.want, resp.Trace)
			continue
		}
		if hasInput := len(resp.Trace.Steps[0].Input) > 0; hasInput != (c.want == pilotage.LevelFull) {
			t.Errorf("%s: step input present %v at %s", c.lang, hasInput, c.want)
		}
	}
}

// TestNestedLoopIdentity: a step inside nested loops is qualified #outer#inner,
// the inner counter restarting on each outer iteration, in the order
// execution reached it (§5.8.2).
func TestNestedLoopIdentity(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	req := pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "a", "for_each": "input.xs", "as": "x", "do": [
	  {"id": "b", "for_each": "input.xs", "as": "y", "do": [{"id": "f", "call": "fan.set", "with": {"on": "x == y"}}]}]}]}`),
		Input: raw(`{"xs": [1, 2]}`)}
	resp := exec(t, e, "alice", "s1", "home/v1", req)
	var ids []string
	for _, s := range resp.Trace.Steps {
		ids = append(ids, s.ID)
	}
	if got, want := strings.Join(ids, " "), "a b#1 f#1#1 f#1#2 b#2 f#2#1 f#2#2"; got != want {
		t.Errorf("trace ids %s, want %s", got, want)
	}
	assertTrace(t, e, "home/v1", "alice", req, resp)
}

// TestUnlistedStatusFallsBackToPartial: an engine status the Language's
// closed-sets guide does not list is never emitted; the step and the Run
// end partial instead (§5.7: every engine-defined status is enumerated).
func TestUnlistedStatusFallsBackToPartial(t *testing.T) {
	srv := homeServer()
	home := srv.Languages[0]
	drop := func(in []closedsets.Status) []closedsets.Status {
		var out []closedsets.Status
		for _, s := range in {
			if s.Status != "device_error" {
				out = append(out, s)
			}
		}
		return out
	}
	home.Sets.RunStatuses, home.Sets.StepStatuses = drop(home.Sets.RunStatuses), drop(home.Sets.StepStatuses)
	e := newEngine(t, srv, t.TempDir())
	prog := raw(`{"steps": [{"id": "o", "call": "lights.set", "with": {"room": "'cellar'", "on": "true"}}]}`)
	for _, lang := range []string{"home/v1", "bare/v1"} {
		resp := exec(t, e, "alice", "s1", lang, pilotage.ExecuteRequest{Program: prog})
		want := "device_error" // bare/v1 still lists it
		if lang == "home/v1" {
			want = pilotage.StatusPartial
		}
		if resp.Outcome.Status != want || resp.Trace.Steps[0].Outcome.Status != want {
			t.Errorf("%s: run %s, step %s; want %s for both", lang, resp.Outcome.Status, resp.Trace.Steps[0].Outcome.Status, want)
		}
	}
}

// deploy installs prog in home/v1 as alice and returns its program_ref.
func deploy(t *testing.T, e *Engine, prog json.RawMessage) string {
	t.Helper()
	return deployAs(t, e, "alice", prog)
}

// deployAs is deploy by principal.
func deployAs(t *testing.T, e *Engine, principal string, prog json.RawMessage) string {
	t.Helper()
	dep := exec(t, e, principal, "s1", "home/v1", pilotage.ExecuteRequest{Program: prog, Mode: new(pilotage.ModeDeploy)})
	var out struct {
		Ref string `json:"program_ref"`
	}
	if err := json.Unmarshal(dep.Output, &out); err != nil || out.Ref == "" {
		t.Fatalf("deploy output %s: %v", dep.Output, err)
	}
	return out.Ref
}
