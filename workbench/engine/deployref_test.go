package engine

import (
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// deployServer is homeServer with home/v1 in mode deploy only.
func deployServer() *language.Server {
	srv := homeServer()
	srv.Languages[0].ExecutionMode = pilotage.ModeDeploy
	return srv
}

// TestDeployRunByProgramRef: §6.5.1 "A Server declaring execute MUST
// accept program_ref exactly when promoted programs are exposed in the
// catalog", in deploy mode too (§6.5.7). A deploy Run by program_ref
// installs the promoted body it names: the outcome describes the
// installation, the trace is an installation trace, and the output
// carries the same program_ref, since the reference names an immutable
// body (§5.4); the catalog gains no second entry. Deploy-only (mode
// deploy) and both (mode selected deploy) alike; a PDL-defined promoted
// program and one a deploy Run minted alike.
func TestDeployRunByProgramRef(t *testing.T) {
	for name, srv := range map[string]*language.Server{"deploy": deployServer(), "both": homeServer()} {
		t.Run(name, func(t *testing.T) {
			e := newEngine(t, srv, t.TempDir())
			minted := deploy(t, e, raw(fanProgram))
			before := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
			for _, ref := range []string{minted, "prog.nightly@1"} {
				resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(ref), Mode: new(pilotage.ModeDeploy)})
				want := string(mustJSON(map[string]string{"program_ref": ref}))
				if !resp.Outcome.OK || string(resp.Output) != want {
					t.Fatalf("deploy Run of %s: %s, want ok with output %s", ref, mustJSON(resp), want)
				}
				tr := resp.Trace
				if tr == nil || tr.Mode != pilotage.ModeDeploy || len(tr.Steps) != 1 || tr.Steps[0].ID != "install" ||
					string(tr.Steps[0].Input) != string(mustJSON(map[string]string{"program_ref": ref})) || string(tr.Steps[0].Output) != want {
					t.Errorf("deploy Run of %s: want an installation trace of %s, got %s", ref, ref, mustJSON(tr))
				}
			}
			after := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)})
			if !equalJSON(before, after) {
				t.Errorf("installing a promoted program again changed the catalog:\n%+v\n%+v", before, after)
			}
			// test_run by program_ref still evaluates the body.
			resp := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(minted), Mode: new(pilotage.ModeDeploy),
				TestRun: boolp(true), Input: raw(`{"on": true}`)})
			if !resp.Outcome.OK || resp.Trace.Mode != pilotage.ModeTestRun || string(resp.Output) != `{"ok":true}` {
				t.Errorf("test_run by program_ref: %s", mustJSON(resp))
			}
		})
	}
}

// TestDeployRunByProgramRefChecks: a deploy Run by program_ref goes
// through §6.5.2 like any program_ref Run: an unknown reference is
// not_found (step 1; an unauthorized one answers the same, see
// TestProgramRefIsCheckedUnderCallerAuthority), a stale
// expected_catalog_version is catalog_drift (step 2), a changed
// referenced entry is promotion_drift (step 3) and an input off the
// entry's input_schema is validation_error (step 4), each before anything
// is installed.
func TestDeployRunByProgramRefChecks(t *testing.T) {
	e := newEngine(t, deployServer(), t.TempDir())
	ref := deploy(t, e, raw(`{"steps": [{"id": "o", "call": "lock.open", "with": {}}]}`))
	_, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{ProgramRef: new("program.000000000000@1")})
	reqErr(t, err, pilotage.ErrNotFound)
	r := exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(ref), ExpectedCatalogVersion: new("cv-old")})
	if r.Outcome.Status != pilotage.StatusCatalogDrift || r.Output != nil || r.Trace != nil {
		t.Errorf("stale token: %s, want catalog_drift", mustJSON(r))
	}
	// Step 4: the body does not run at installation, so no input is
	// needed (TestDeployRunByProgramRef installs prog.nightly@1 without
	// one), but one supplied must match the entry's input_schema (§6.5.5).
	r = exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1"), Input: raw(`{"rooms": "hall"}`)})
	if r.Outcome.Status != pilotage.StatusValidationError || len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != pilotage.CodeInputBinding || r.Output != nil {
		t.Errorf("input off the input_schema: %s, want validation_error with input_binding", mustJSON(r))
	}
	changeEntry(t, e, "lock.open", func(en *language.Entry) { en.Risk, en.RiskHints = "any", hintsOf("any") })
	r = exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{ProgramRef: new(ref)})
	if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Output != nil || r.Trace != nil {
		t.Errorf("drifted body: %s, want promotion_drift", mustJSON(r))
	}
}

// TestProgramRefWithoutCatalog: where no promoted program is exposed in
// the catalog, because the Language declares no catalog, program_ref is
// a request error (§6.5.1 "exactly when"), whatever the mode, and its
// message says to send the program inline.
func TestProgramRefWithoutCatalog(t *testing.T) {
	for _, mode := range []string{pilotage.ModeImmediate, pilotage.ModeDeploy} {
		srv := homeServer()
		home := srv.Languages[0]
		home.ExecutionMode = mode
		home.Capabilities = caps(pilotage.CapGuides, pilotage.On(), pilotage.CapValidate, pilotage.On(), pilotage.CapExecute, pilotage.On())
		e := newEngine(t, srv, t.TempDir())
		_, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1")})
		if re := reqErr(t, err, pilotage.ErrUnsupported); !strings.Contains(re.Message, "catalog") || !strings.Contains(re.Message, "inline") {
			t.Errorf("mode %s: %q should say there is no catalog and to send the program inline", mode, re.Message)
		}
	}
}

// TestProgramRefWithoutPromotedKind: langs/notes declares a catalog but
// no kind marked promoted and runs immediately, so no promoted program is
// exposed in its catalog; a program_ref there, even the id of an entry it
// lists, is a request error (§6.5.1 "exactly when"): not_found, as for
// any reference that names no promoted program.
func TestProgramRefWithoutPromotedKind(t *testing.T) {
	res, _, err := compile.Load("../../langs/notes/notes.pdl", report.DefaultMaxPerRule)
	if err != nil || !res.OK() {
		t.Fatalf("langs/notes does not compile: %v %+v", err, res)
	}
	e := newEngine(t, res.Server, t.TempDir())
	lookup(t, e, "", "notes/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new("notes.search")})
	_, err = e.Execute(bg, callerOf("", "s1"), "notes/v1", pilotage.ExecuteRequest{ProgramRef: new("notes.search")})
	reqErr(t, err, pilotage.ErrNotFound)
}
