package engine

import (
	"encoding/json"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// outerServer is homeServer with prog.outer@1, whose body runs
// prog.nightly@1, and the principal carol, who sees outer and what
// nightly calls, with the patterns sees.
func outerServer(sees ...string) *language.Server {
	srv := homeServer()
	outer := mkEntry("prog.outer@1", "program", "write", `{"type":"object","properties":{"rooms":{"type":"array","items":{"type":"string"}}}}`, "", language.Behavior{})
	outer.Program = raw(`{"steps":[{"id":"n","run":"prog.nightly@1","with":{"rooms":"input.rooms"}}],"output":"steps.n.output"}`)
	srv.Catalog = append(srv.Catalog, outer)
	srv.Principals = append(srv.Principals, &language.Principal{Name: "carol", Sees: append([]string{"sensors.*", "lights.*", "fan.*"}, sees...)})
	return srv
}

// renameNightly serves prog.nightly@1 as prog.zzzzzzz@1 (the same length,
// so byte counts match) and points outer at it.
func renameNightly(srv *language.Server) {
	for _, en := range srv.Catalog {
		switch en.ID {
		case "prog.nightly@1":
			en.ID = "prog.zzzzzzz@1"
		case "prog.outer@1":
			en.Program = raw(strings.ReplaceAll(string(en.Program), "prog.nightly@1", "prog.zzzzzzz@1"))
		}
	}
}

// busierNightly makes prog.nightly@1 do twice the work for the same
// output: each room's lights are set twice.
func busierNightly(srv *language.Server) {
	for _, en := range srv.Catalog {
		if en.ID == "prog.nightly@1" {
			en.Program = raw(strings.Replace(string(en.Program), `}]}]`, `},{"id":"again","call":"lights.set","with":{"room":"r","on":"false"}}]}]`, 1))
		}
	}
}

// confidentialCase is one request carol makes in every scenario.
type confidentialCase struct {
	name string
	lang string
	req  pilotage.ExecuteRequest
}

func confidentialCases() []confidentialCase {
	inline := `{"steps": [{"id": "o", "run": "prog.outer@1", "with": {"rooms": "['a', 'b']"}}], "output": "steps.o.output"}`
	text, _ := json.Marshal(inline)
	rooms, site := raw(`{"rooms": ["a", "b"]}`), raw(`{"site": "hq"}`)
	return []confidentialCase{
		{"program_ref caller authority", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.outer@1"), Input: rooms}},
		{"inline caller authority", "home/v1", pilotage.ExecuteRequest{Program: raw(inline)}},
		{"program_ref promoter authority", "ctx/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.outer@1"), Input: rooms, Context: site}},
		{"inline promoter authority", "ctx/v1", pilotage.ExecuteRequest{Program: text, Context: site}},
	}
}

// carolSees runs cases as carol against the engine setup builds and
// returns everything carol
// receives: the execute responses, the stored traces, the plan of the
// inline program and the catalog, normalised (run ids, timings).
func carolSees(t *testing.T, cases []confidentialCase, setup func(t *testing.T) *Engine) map[string]string {
	t.Helper()
	e := setup(t)
	carol := callerOf("carol", "s1")
	got := map[string]string{}
	show := func(key string, v any, err error) {
		t.Helper()
		if err != nil {
			v = err
			if re, ok := err.(*pilotage.RequestError); ok {
				v = pilotage.RequestErrorEnvelope{Error: *re}
			}
		}
		b, merr := json.MarshalIndent(v, "", "  ")
		if merr != nil {
			t.Fatal(merr)
		}
		got[key] = string(normalise(b))
	}
	for _, c := range cases {
		resp, err := e.Execute(bg, carol, c.lang, c.req)
		show(c.name, resp, err)
		if err == nil && resp.Trace != nil {
			tr, err := e.Trace(bg, carol, c.lang, pilotage.TraceFetchRequest{RunID: resp.RunID})
			show(c.name+" fetched", tr, err)
		}
		if len(c.req.Program) > 0 {
			v, err := e.Validate(bg, carol, c.lang, pilotage.ValidateRequest{Program: c.req.Program, Context: c.req.Context})
			show(c.name+" validate", v, err)
		}
	}
	for _, lang := range []string{"home/v1", "ctx/v1"} {
		l, err := e.Lookup(bg, carol, lang, pilotage.LookupRequest{Verb: pilotage.VerbList})
		show(lang+" list", l, err)
		g, err := e.Lookup(bg, carol, lang, pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new("prog.outer@1")})
		show(lang+" get outer", g, err)
	}
	return got
}

// withSubprograms sets trace_subprogram on both Languages.
func withSubprograms(srv *language.Server, sub string) *language.Server {
	for _, l := range srv.Languages {
		l.TraceSubprogram = sub
	}
	return srv
}

// sameToCarol asserts that carol receives byte for byte the same in two
// scenarios, and that nothing she receives contains any of secrets.
func sameToCarol(t *testing.T, a, b map[string]string, secrets ...string) {
	t.Helper()
	for key, av := range a {
		if b[key] != av {
			t.Errorf("%s: carol can tell the scenarios apart:\n%s\n---\n%s", key, av, b[key])
		}
		for _, s := range secrets {
			if strings.Contains(av, s) || strings.Contains(b[key], s) {
				t.Errorf("%s: carol is told %q:\n%s\n---\n%s", key, s, av, b[key])
			}
		}
	}
}

// TestHiddenIsRemovedToCarol: carol sees prog.outer@1 but not
// prog.nightly@1, which outer's body runs. Under the default caller
// authority (§10.4) she must hold every name the body uses, so to her
// the hidden nightly is absent and drifts outer exactly as a nightly
// removed after outer's promotion does (§5.4, §6.5.2 step 3); nothing
// she receives may tell the two apart or name nightly (§10.3: "An
// unauthorized name ... MUST be indistinguishable from a nonexistent
// one"). Under promoter authority (ctx/v1) outer's baseline is read with
// the promoter's authority, so a hidden nightly whose baseline changed is
// compared with a removed one. Both trace_subprogram values.
func TestHiddenIsRemovedToCarol(t *testing.T) {
	for _, sub := range []string{pilotage.SubprogramExpanded, pilotage.SubprogramOpaque} {
		t.Run(sub, func(t *testing.T) {
			hidden := carolSees(t, confidentialCases(), func(t *testing.T) *Engine {
				e := newEngine(t, withSubprograms(outerServer("prog.outer@1"), sub), t.TempDir())
				// Changed after outer's promotion: drifts outer under
				// promoter authority, where the promoter sees it.
				changeEntry(t, e, "prog.nightly@1", func(en *language.Entry) {
					en.InputSchema = raw(`{"type":"object","properties":{"rooms":{"type":"array"}}}`)
				})
				return e
			})
			removed := carolSees(t, confidentialCases(), func(t *testing.T) *Engine {
				e := newEngine(t, withSubprograms(outerServer("prog.*"), sub), t.TempDir())
				if err := e.RemoveEntry("prog.nightly@1"); err != nil {
					t.Fatal(err)
				}
				return e
			})
			sameToCarol(t, hidden, removed, "nightly")
			// Under caller authority nightly need not have changed: hidden
			// is enough, where the issue saw "prog.nightly@1 is not
			// available to this caller".
			callerAuthority := confidentialCases()[:2]
			unchanged := carolSees(t, callerAuthority, func(t *testing.T) *Engine {
				return newEngine(t, withSubprograms(outerServer("prog.outer@1"), sub), t.TempDir())
			})
			removedToo := carolSees(t, callerAuthority, func(t *testing.T) *Engine {
				e := newEngine(t, withSubprograms(outerServer("prog.*"), sub), t.TempDir())
				if err := e.RemoveEntry("prog.nightly@1"); err != nil {
					t.Fatal(err)
				}
				return e
			})
			sameToCarol(t, unchanged, removedToo, "nightly")
			for _, c := range confidentialCases() {
				want := `"ok": false`
				if c.req.ProgramRef != nil {
					want = `"status": "promotion_drift"`
				}
				if !strings.Contains(hidden[c.name], want) {
					t.Errorf("%s: want %s:\n%s", c.name, want, hidden[c.name])
				}
			}
		})
	}
}

// TestPromoterAuthorityConceals: under promoter authority (ctx/v1,
// §10.3, §10.4) outer's body runs nightly, which carol cannot see, with
// the promoter's authority. To carol outer is then one opaque step
// (§5.8.3), whatever trace_subprogram says: no internal entries, no inner
// names in messages or traces, and no stats of the steps it hides
// (steps_executed and bytes_held count the entries carol is shown).
// Proof: renaming the hidden program, or giving it twice the work for the
// same output, changes nothing carol receives.
func TestPromoterAuthorityConceals(t *testing.T) {
	for _, sub := range []string{pilotage.SubprogramExpanded, pilotage.SubprogramOpaque} {
		t.Run(sub, func(t *testing.T) {
			scenario := func(edit func(*language.Server)) map[string]string {
				return carolSees(t, confidentialCases(), func(t *testing.T) *Engine {
					srv := withSubprograms(outerServer("prog.outer@1"), sub)
					edit(srv)
					return newEngine(t, srv, t.TempDir())
				})
			}
			nightly := scenario(func(*language.Server) {})
			sameToCarol(t, nightly, scenario(renameNightly), "nightly", "zzzzzzz")
			sameToCarol(t, nightly, scenario(busierNightly), "nightly", "again")
			for _, c := range confidentialCases() {
				if c.lang != "ctx/v1" {
					continue
				}
				got := nightly[c.name]
				if !strings.Contains(got, `"status": "success"`) || !strings.Contains(got, `"output": 2,`) || strings.Count(got, `"id": `) != 1 || !strings.Contains(got, `"steps_executed": 1`) {
					t.Errorf("%s: want success, output 2 and one opaque entry, one step executed:\n%s", c.name, nightly[c.name])
				}
			}
		})
	}
}

// TestConcealedFailureNamesOnlyOuter: when the hidden body fails (a
// scripted failure of lights.set, which carol may see, inside nightly,
// which she may not), the opaque step's failure names only outer.
func TestConcealedFailureNamesOnlyOuter(t *testing.T) {
	e := newEngine(t, outerServer("prog.outer@1"), t.TempDir())
	r := exec(t, e, "carol", "s1", "ctx/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.outer@1"), Input: raw(`{"rooms": ["cellar"]}`), Context: raw(`{"site": "hq"}`)})
	b, _ := json.Marshal(r)
	if r.Outcome.OK || len(r.Trace.Steps) != 1 || strings.Contains(string(b), "nightly") || strings.Contains(string(b), "cellar lights") {
		t.Errorf("a failure inside the hidden body:\n%s", b)
	}
	if want := "prog.outer@1 stopped"; !strings.Contains(r.Outcome.Error, want) {
		t.Errorf("outcome %q does not say %q", r.Outcome.Error, want)
	}
}

// deployOpenAndFan has alice deploy, in home/v1, a program calling
// lock.open, which bob may not see, and fan.set, which he may; it returns
// the program's reference.
func deployOpenAndFan(t *testing.T, e *Engine) string {
	t.Helper()
	dep := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Mode: new(pilotage.ModeDeploy),
		Program: raw(`{"steps": [{"id": "open", "call": "lock.open", "with": {}}, {"id": "f", "call": "fan.set", "with": {"on": "true"}}]}`)})
	var out struct {
		Ref string `json:"program_ref"`
	}
	if err := json.Unmarshal(dep.Output, &out); err != nil || out.Ref == "" {
		t.Fatalf("deploy: %s %v", dep.Output, err)
	}
	return out.Ref
}

// TestDeployedEntryNamesNothing: a deployed program's catalog entry is
// visible to whoever sees program.*, so what the engine writes in it must
// not name what its body calls: bob sees alice's deployed program but not
// lock.open, which it calls (§10.3: catalog responses within the caller's
// authorization scope). The body itself is no catalog field.
func TestDeployedEntryNamesNothing(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	ref := deployOpenAndFan(t, e)
	for _, req := range []pilotage.LookupRequest{{Verb: pilotage.VerbGet, ID: new(ref)}, {Verb: pilotage.VerbList, Kind: new("program")}} {
		b, _ := json.Marshal(lookup(t, e, "bob", "home/v1", req))
		if !strings.Contains(string(b), ref) || strings.Contains(string(b), "lock.open") || strings.Contains(string(b), "fan.set") {
			t.Errorf("bob's %s: %s", req.Verb, b)
		}
	}
}

// TestConcealedBodyThatNoLongerValidates: a promoted body that does not
// validate when it is run is refused as validation_error; for a caller
// from whom the body conceals names, without the diagnostics, which
// point into the body and name what it calls (§10.3).
func TestConcealedBodyThatNoLongerValidates(t *testing.T) {
	srv := outerServer("prog.outer@1")
	for _, en := range srv.Catalog {
		if en.ID == "prog.outer@1" {
			en.Program = raw(`{"steps":[{"id":"n","run":"prog.nightly@1","with":{"rooms":"1"}}]}`)
		}
	}
	e := newEngine(t, srv, t.TempDir())
	req := pilotage.ExecuteRequest{ProgramRef: new("prog.outer@1"), Input: raw(`{"rooms": []}`), Context: raw(`{"site": "hq"}`)}
	if r := exec(t, e, "alice", "s1", "ctx/v1", req); r.Outcome.Status != pilotage.StatusValidationError || len(r.Diagnostics) == 0 {
		t.Fatalf("alice, who sees nightly, gets the diagnostics: %+v", r)
	}
	r := exec(t, e, "carol", "s1", "ctx/v1", req)
	b, _ := json.Marshal(r)
	if r.Outcome.Status != pilotage.StatusValidationError || len(r.Diagnostics) != 0 || strings.Contains(string(b), "nightly") {
		t.Errorf("carol: %s", b)
	}
}

// TestDeployedBaselineUsesItsLanguage: a deployed body's baseline is read
// with the grammar of the Language it was deployed to (§5.4, §6.5.2 step
// 3), not the server's first Language's. Here the first Language spells
// calls "do", so reading home/v1's body with it found no names: bob, who
// sees alice's deployed program but not lock.open it calls, ran it and was
// told "lock.open is not available to this caller" (§10.3). To him the
// hidden entry is absent, so the program drifts, in words that do not
// name it.
func TestDeployedBaselineUsesItsLanguage(t *testing.T) {
	srv := homeServer()
	first := *srv.Languages[0]
	first.ID, first.Grammar.Call = "first/v1", "do"
	srv.Languages = append([]*language.Language{&first}, srv.Languages...)
	e := newEngine(t, srv, t.TempDir())
	ref := deployOpenAndFan(t, e)
	r := exec(t, e, "bob", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(ref)})
	b, _ := json.Marshal(r)
	if r.Outcome.Status != pilotage.StatusPromotionDrift || strings.Contains(string(b), "lock") {
		t.Errorf("bob runs alice's program: %s", b)
	}
}

// fanFirstServer is homeServer with prog.first@1, whose body first sets
// the fan, an effect, and then runs prog.nightly@1, which sets lights.
// fan.set is scripted to fail with "the fan was set", so a Run that
// reaches it says so. carol sees sensors.*, fan.*, prog.* and the
// patterns sees.
func fanFirstServer(sees ...string) *language.Server {
	srv := homeServer()
	for _, en := range srv.Catalog {
		if en.ID == "fan.set" {
			en.Behavior.Fails = []language.Failure{{Status: "device_error", Message: "the fan was set"}}
		}
	}
	first := mkEntry("prog.first@1", "program", "write", `{"type":"object","properties":{"rooms":{"type":"array","items":{"type":"string"}}}}`, "", language.Behavior{})
	first.Program = raw(`{"steps":[{"id":"fan","call":"fan.set","with":{"on":"true"}},{"id":"n","run":"prog.nightly@1","with":{"rooms":"input.rooms"}}],"output":"steps.n.output"}`)
	srv.Catalog = append(srv.Catalog, first)
	srv.Principals = append(srv.Principals, &language.Principal{Name: "carol", Sees: append([]string{"sensors.*", "fan.*", "prog.*"}, sees...)})
	return srv
}

// TestNestedHiddenNameDriftsBeforeEffects: under the default caller
// authority the caller must hold every name a promoted body uses at any
// depth (§10.4). carol sees prog.first@1 and prog.nightly@1, which first
// runs, but not lights.set, which nightly calls. To her lights.set is
// absent (§10.3), so first has drifted exactly as when lights.set was
// removed (§5.4), and that is known at §6.5.2 step 3: a program_ref Run is
// refused with promotion_drift before first's fan.set step runs ("No side
// effects may occur"). An inline program calling first is validated as
// validate would (§6.5.2 step 3), which judges only the names it uses
// itself; first's drift stops it when first is called, before any of
// first's steps run. The words are the same whether lights.set is hidden
// or removed, and name neither it nor the step that would have run.
func TestNestedHiddenNameDriftsBeforeEffects(t *testing.T) {
	cases := []confidentialCase{
		{"program_ref", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.first@1"), Input: raw(`{"rooms": ["a"]}`)}},
		{"inline", "home/v1", pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "s", "call": "sensors.read", "with": {"room": "'a'"}}, {"id": "o", "run": "prog.first@1", "with": {"rooms": "['a']"}}]}`)}},
	}
	hidden := carolSees(t, cases, func(t *testing.T) *Engine {
		return newEngine(t, fanFirstServer(), t.TempDir())
	})
	removed := carolSees(t, cases, func(t *testing.T) *Engine {
		e := newEngine(t, fanFirstServer("lights.*"), t.TempDir())
		if err := e.RemoveEntry("lights.set"); err != nil {
			t.Fatal(err)
		}
		return e
	})
	sameToCarol(t, hidden, removed, "lights", "fan was set")
	drift := "an entry prog.first@1 references changed since it was promoted or is not available to this caller; give it a new reference such as prog.first@2"
	ref := hidden["program_ref"]
	if !strings.Contains(ref, `"status": "promotion_drift"`) || !strings.Contains(ref, `"error": "`+drift+`"`) || strings.Contains(ref, `"trace"`) {
		t.Errorf("program_ref: want promotion_drift %q and no trace:\n%s", drift, ref)
	}
	inline := hidden["inline"]
	if !strings.Contains(inline, `"error": "`+drift+`"`) || strings.Contains(inline, `"o/fan"`) {
		t.Errorf("inline: want step o to fail with %q before first's fan step:\n%s", drift, inline)
	}
	// Step o invoked nothing, so it names no call and carries no input
	// (reading 6).
	if strings.Contains(inline, `"prog.first@1"`+"\n") {
		t.Errorf("inline: the refused step o names prog.first@1 in calls:\n%s", inline)
	}
}

// TestCallerOnlyDriftIsNotTerminal: a mismatch is terminal for the
// reference (§5.4), but carol meets promotion_drift on prog.first@1 only
// because she may not see lights.set, which it uses (§10.3, §10.4);
// nothing about the reference changed, so alice, who sees everything,
// still runs it (its fan.set step is scripted to fail with device_error),
// and so does carol once she is allowed lights.set.
func TestCallerOnlyDriftIsNotTerminal(t *testing.T) {
	e := newEngine(t, fanFirstServer(), t.TempDir())
	req := pilotage.ExecuteRequest{ProgramRef: new("prog.first@1"), Input: raw(`{"rooms": ["a"]}`)}
	if r := exec(t, e, "carol", "s1", "home/v1", req); r.Outcome.Status != pilotage.StatusPromotionDrift {
		t.Fatalf("carol: want promotion_drift, got %+v", r.Outcome)
	}
	if r := exec(t, e, "alice", "s1", "home/v1", req); r.Outcome.Status != "device_error" {
		t.Errorf("alice after carol's refusal: want the Run to reach fan.set's device_error, got %+v", r.Outcome)
	}
	if err := e.Reload(fanFirstServer("lights.*")); err != nil {
		t.Fatal(err)
	}
	if r := exec(t, e, "carol", "s1", "home/v1", req); r.Outcome.Status != "device_error" {
		t.Errorf("carol allowed lights.set: want the Run to reach fan.set's device_error, got %+v", r.Outcome)
	}
}

// TestCycleOfPromotedPrograms: PDL programs that run each other make a
// cycle of baselines. The check of every name at any depth (§10.4) and
// of what a body conceals (§10.3) walk each program once, so the Run
// reaches execution and stops at the expansion limit (§6.5.2 step 5).
func TestCycleOfPromotedPrograms(t *testing.T) {
	srv := homeServer()
	for _, pair := range [][2]string{{"prog.ping@1", "prog.pong@1"}, {"prog.pong@1", "prog.ping@1"}} {
		en := mkEntry(pair[0], "program", "write", `{"type":"object"}`, "", language.Behavior{})
		en.Program = raw(`{"steps":[{"id":"f","call":"fan.set","with":{"on":"true"}},{"id":"n","run":"` + pair[1] + `","with":{}}]}`)
		srv.Catalog = append(srv.Catalog, en)
	}
	e := newEngine(t, srv, t.TempDir())
	for _, principal := range []string{"alice", "bob"} {
		r := exec(t, e, principal, "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.ping@1")})
		if r.Outcome.OK || !strings.Contains(r.Outcome.Error, "expansion limit") {
			t.Errorf("%s: want the expansion limit: %+v", principal, r.Outcome)
		}
	}
}

// TestNestedDriftIsFoundFirst: under caller authority a change to an
// entry a nested promoted program uses drifts the outer program before
// any of its steps run (§5.4, §6.5.2 step 3, §10.4). alice sees
// lights.set, so the words name it; they say that the nested program,
// not outer, needs a new promotion, since promoting outer again would
// record the same drifted program.
func TestNestedDriftIsFoundFirst(t *testing.T) {
	e := newEngine(t, fanFirstServer(), t.TempDir())
	changeEntry(t, e, "lights.set", func(en *language.Entry) {
		en.InputSchema = raw(`{"type":"object","required":["room"],"properties":{"room":{"type":"string"}}}`)
	})
	r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.first@1"), Input: raw(`{"rooms": ["a"]}`)})
	want := "catalog entry lights.set, used by a program prog.first@1 runs, does not match that program's recorded baseline; prog.first@1 can run again only once it runs a new promotion of that program"
	if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != want || r.Trace != nil {
		t.Errorf("want promotion_drift %q and no trace: %+v", want, r.Outcome)
	}
}

// emptiedBaselines runs setup on an engine over dir, then empties every
// promotion baseline it stored, as a version before 3350286 could record
// one (a body read with another Language's grammar names nothing), and
// returns a new engine over dir serving srv.
func emptiedBaselines(t *testing.T, srv *language.Server, dir string, setup func(e *Engine)) *Engine {
	t.Helper()
	e, err := New(srv, Options{DataDir: dir, CheckTraces: true})
	if err != nil {
		t.Fatal(err)
	}
	setup(e)
	kept, err := e.store.Promoted()
	if err != nil {
		t.Fatal(err)
	}
	for id, b := range kept {
		var k keptPromotion
		if err := json.Unmarshal(b, &k); err != nil {
			t.Fatal(err)
		}
		k.Promotion.Baseline = map[string]*pilotage.Baseline{}
		if err := e.store.PutPromoted(id, k); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	return newEngine(t, srv, dir)
}

// TestStoredBaselineThatMissesNames: a baseline kept in the data directory
// that lacks a name the body uses now cannot show that the name is as it
// was at promotion (§5.4), and taking today's value for it could hide a
// real drift. The program is drifted, before anything runs (§6.5.2 step
// 3), in words that, to a caller who may not see the name, are those of
// a removed entry (§10.3): carol, who sees prog.outer@1 but not nightly
// it runs, was told "prog.nightly@1 is not available to this caller";
// bob, who sees alice's deployed program but not lock.open, was told of
// lock.open; the first name the record lacks is fan.set, which he sees,
// and lock.open is not named. alice, who sees everything, is told what to
// do.
func TestStoredBaselineThatMissesNames(t *testing.T) {
	var deployed string
	e := emptiedBaselines(t, outerServer("prog.outer@1"), t.TempDir(), func(e *Engine) {
		deployed = deployOpenAndFan(t, e)
	})
	runs := []struct {
		who  string
		req  pilotage.ExecuteRequest
		want string
	}{
		{"carol", pilotage.ExecuteRequest{ProgramRef: new("prog.outer@1"), Input: raw(`{"rooms": ["a"]}`)},
			"an entry prog.outer@1 references changed since it was promoted or is not available to this caller; give it a new reference such as prog.outer@2"},
		{"bob", pilotage.ExecuteRequest{ProgramRef: new(deployed)},
			"the baseline recorded when " + deployed + " was promoted does not cover catalog entry fan.set, which its body uses; promote the program again"},
		{"alice", pilotage.ExecuteRequest{ProgramRef: new("prog.outer@1"), Input: raw(`{"rooms": ["a"]}`)},
			"the baseline recorded when prog.outer@1 was promoted does not cover catalog entry prog.nightly@1, which its body uses; give it a new reference such as prog.outer@2"},
	}
	for _, run := range runs {
		r := exec(t, e, run.who, "s1", "home/v1", run.req)
		if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != run.want || r.Trace != nil {
			t.Errorf("%s runs %s: want promotion_drift %q and no trace: %+v", run.who, *run.req.ProgramRef, run.want, r.Outcome)
		}
	}
}

// TestNestedChangedBodyDriftsBeforeEffects: prog.first@1 sets the fan and
// then runs prog.nightly@1. When a reload changes nightly's body under the
// same id, nightly's reference no longer identifies the body first was
// promoted to run (§5.4), so first has drifted too, and under caller
// authority that is known at §6.5.2 step 3: a program_ref Run of first is
// refused with promotion_drift before its fan.set step runs ("No side
// effects may occur"), in words that name the changed program and say what
// to do.
func TestNestedChangedBodyDriftsBeforeEffects(t *testing.T) {
	firstRefusedAfterNightlyChange(t, func() *language.Server { return fanFirstServer() })
}

// firstRefusedAfterNightlyChange reloads an engine on server() with
// prog.nightly@1's body changed under its id and runs prog.first@1 by
// program_ref: it must be refused with promotion_drift and no trace, so
// first's fan.set step, scripted to fail, never ran (§5.4, §6.5.2 step 3).
func firstRefusedAfterNightlyChange(t *testing.T, server func() *language.Server) {
	t.Helper()
	e := newEngine(t, server(), t.TempDir())
	if err := e.Reload(nightlyChanged(server())); err != nil {
		t.Fatal(err)
	}
	ref := pilotage.ExecuteRequest{ProgramRef: new("prog.first@1"), Input: raw(`{"rooms": ["a"]}`)}
	const want = "the body of prog.nightly@1, which prog.first@1 runs, changed since it was promoted; give the changed body a new reference such as prog.nightly@2, and prog.first@1 a new one running it"
	r := exec(t, e, "alice", "s1", "home/v1", ref)
	if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != want || r.Trace != nil {
		t.Errorf("want promotion_drift %q and no trace (fan.set must not run), got %+v", want, r.Outcome)
	}
}

// TestDeepChangedBodyDriftsBeforeEffects: prog.first@1 sets the fan and
// runs prog.mid@1, which runs prog.nightly@1. A body changed under the
// same id is a fact about the body, not about who may see what, so under
// either promotion authority first's reference no longer identifies what
// it was promoted to run (§5.4), at any depth, and a program_ref Run of
// first is refused at §6.5.2 step 3, before its fan.set step runs ("No
// side effects may occur"). Under promoter authority the check stopped at
// the names first's own body uses: fan.set ran and failed with "the fan
// was set".
func TestDeepChangedBodyDriftsBeforeEffects(t *testing.T) {
	for _, authority := range []string{pilotage.AuthorityCaller, pilotage.AuthorityPromoter} {
		t.Run(authority, func(t *testing.T) {
			firstRefusedAfterNightlyChange(t, func() *language.Server { return fanMidServer(authority) })
		})
	}
}

// nightlyChanged returns srv with prog.nightly@1's body changed under its
// id.
func nightlyChanged(srv *language.Server) *language.Server {
	for _, en := range srv.Catalog {
		if en.ID == "prog.nightly@1" {
			en.Program = raw(strings.Replace(string(en.Program), `"output":"size(steps.each.output)"`, `"output":"size(steps.each.output) * 10"`, 1))
		}
	}
	return srv
}

// fanMidServer is fanFirstServer under the promotion authority given,
// with prog.mid@1 between prog.first@1 and prog.nightly@1: first runs
// mid, which runs nightly.
func fanMidServer(authority string) *language.Server {
	srv := fanFirstServer()
	mid := mkEntry("prog.mid@1", "program", "write", `{"type":"object","properties":{"rooms":{"type":"array","items":{"type":"string"}}}}`, "", language.Behavior{})
	mid.Program = raw(`{"steps":[{"id":"n","run":"prog.nightly@1","with":{"rooms":"input.rooms"}}],"output":"steps.n.output"}`)
	srv.Catalog = append(srv.Catalog, mid)
	for _, en := range srv.Catalog {
		if en.ID == "prog.first@1" {
			en.Program = raw(strings.Replace(string(en.Program), `"run":"prog.nightly@1"`, `"run":"prog.mid@1"`, 1))
		}
	}
	srv.Languages[0].PromotionAuthority = authority
	return srv
}

// TestNestedDriftEndsEveryReferenceOnTheWay: "A mismatch is terminal for
// that reference" (§5.4), and a Run of prog.first@1 that meets the
// changed body of prog.nightly@1, which first runs through prog.mid@1,
// meets a mismatch of all three references: nightly no longer identifies
// its body, and mid and first run it. Whichever door the Run came in by,
// program_ref or an inline program's run step, and under either
// promotion authority, restoring nightly's body revives none of them, in
// this process or after a restart with the same data directory. A
// reference the Run did not reach is not ended by it.
func TestNestedDriftEndsEveryReferenceOnTheWay(t *testing.T) {
	doors := []struct {
		name string
		req  pilotage.ExecuteRequest
	}{
		{"program_ref", pilotage.ExecuteRequest{ProgramRef: new("prog.first@1"), Input: raw(`{"rooms": ["a"]}`)}},
		{"inline", pilotage.ExecuteRequest{Program: raw(`{"steps": [{"id": "o", "run": "prog.first@1", "with": {"rooms": "['a']"}}]}`)}},
	}
	ended := []string{"prog.first@1", "prog.mid@1", "prog.nightly@1"}
	for _, authority := range []string{pilotage.AuthorityCaller, pilotage.AuthorityPromoter} {
		for _, door := range doors {
			t.Run(authority+"/"+door.name, func(t *testing.T) {
				dir := t.TempDir()
				e, err := New(fanMidServer(authority), Options{DataDir: dir, CheckTraces: true})
				if err != nil {
					t.Fatal(err)
				}
				if err := e.Reload(nightlyChanged(fanMidServer(authority))); err != nil {
					t.Fatal(err)
				}
				if r := exec(t, e, "alice", "s1", "home/v1", door.req); r.Outcome.OK {
					t.Fatalf("the Run through the changed body succeeded: %+v", r.Outcome)
				}
				if err := e.Reload(fanMidServer(authority)); err != nil {
					t.Fatal(err)
				}
				check := func(e *Engine, when string) {
					t.Helper()
					for _, id := range ended {
						if !e.terminal.has(id) {
							t.Errorf("%s: %s is not recorded drifted", when, id)
						}
						r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(id), Input: raw(`{"rooms": ["a"]}`)})
						if r.Outcome.Status != pilotage.StatusPromotionDrift {
							t.Errorf("%s: program_ref %s: want promotion_drift, got %+v", when, id, r.Outcome)
						}
					}
					const nightly = "prog.nightly@1 met promotion_drift, and a drifted reference stays drifted even once the change is undone; give it a new reference such as prog.nightly@2"
					if r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1"), Input: raw(`{"rooms": ["a"]}`)}); r.Outcome.Error != nightly {
						t.Errorf("%s: program_ref prog.nightly@1 says %q, want %q", when, r.Outcome.Error, nightly)
					}
				}
				check(e, "body restored")
				e.Close()
				check(newEngine(t, fanMidServer(authority), dir), "body restored, after a restart")
			})
		}
	}
}

// TestNoPrincipalHint: to a caller acting as no principal on a Server
// that declares principals every name is unknown (§10.3), and each
// unknown name's diagnostic carries Options.NoPrincipalHint's words, or
// none when it gives none; by default Server.NoPrincipalNote's, for the
// user of a command. The diagnostics of a hidden name (sensors.read) and
// of a missing one (sensors.nope) read the same but for the name. A
// principal's unknown names carry none of it.
func TestNoPrincipalHint(t *testing.T) {
	prog := func(name string) pilotage.ValidateRequest {
		return pilotage.ValidateRequest{Program: raw(`{"steps": [{"id": "a", "call": "` + name + `", "with": {"room": "'hall'"}}]}`)}
	}
	// unknown is the diagnostic of name to principal, with the name
	// replaced by NAME.
	unknown := func(t *testing.T, e *Engine, principal, name string) string {
		t.Helper()
		r, err := e.Validate(bg, callerOf(principal, "s1"), "home/v1", prog(name))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != "unknown_name" {
			t.Fatalf("%s to %q: %+v", name, principal, r.Diagnostics)
		}
		d := r.Diagnostics[0]
		d.Message = strings.ReplaceAll(d.Message, name, "NAME")
		return string(mustJSON(d))
	}
	for _, c := range []struct {
		name string
		hint func(*language.Server) string
		want string
	}{
		{"default", nil, homeServer().NoPrincipalNote()},
		{"own", func(*language.Server) string { return "ask the operator" }, "ask the operator"},
		{"none", func(*language.Server) string { return "" }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEngineWith(t, homeServer(), Options{NoPrincipalHint: c.hint})
			want := `"hint":` + string(mustJSON(c.want))
			if c.want == "" {
				want = `"hint"`
			}
			hidden, missing := unknown(t, e, "", "sensors.read"), unknown(t, e, "", "sensors.nope")
			if hidden != missing {
				t.Errorf("hidden and missing names read differently:\n%s\n%s", hidden, missing)
			}
			if strings.Contains(hidden, want) != (c.want != "") {
				t.Errorf("no principal: %s, want hint %q", hidden, c.want)
			}
			if got := unknown(t, e, "bob", "sensors.nope"); strings.Contains(got, "principal") || c.want != "" && strings.Contains(got, c.want) {
				t.Errorf("bob: %s", got)
			}
		})
	}
}
