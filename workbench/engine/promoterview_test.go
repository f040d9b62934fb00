package engine

import (
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// auditorProgram uses only service.status, which langs/deploy's auditor
// sees, so the auditor may deploy it.
const auditorProgram = `{"steps": [{"id": "check", "do": "service.status", "args": {"service": "input.service"}}]}`

// TestPromoterSeesItsPromotion: on langs/deploy the auditor sees
// service.status and billing only, not rule.*. A deploy Run hands it
// back a program_ref (§6.5.7); that reference must then name an entry
// the auditor can list and test_run, or the §7.4 promoted-program loop
// is broken for the very caller it served. The Server defines
// authorization (§10.3): a promoter sees what it promoted, a body it
// could only promote under its own authority. Its catalog_version
// changes, since a visible entry was added (§5.4); the operator, who
// sees everything, sees the entry too, while a principal whose sees
// patterns do not cover it still gets not_found, as for a removed entry.
func TestPromoterSeesItsPromotion(t *testing.T) {
	res, _, err := compile.Load("../../langs/deploy/deploy.pdl", report.DefaultMaxPerRule)
	if err != nil || !res.OK() {
		t.Fatalf("langs/deploy does not compile: %v %+v", err, res)
	}
	res.Server.Principals = append(res.Server.Principals, &language.Principal{Name: "stranger", Sees: []string{"service.status"}})
	e := newEngine(t, res.Server, t.TempDir())
	auditor := callerOf("auditor", "s1")
	ctx := raw(`{"environment": "production"}`)
	listAll := pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(100)}
	before := lookup(t, e, "auditor", "deploy/v1", listAll).(*pilotage.ListResponse)

	dep, err := e.Execute(bg, auditor, "deploy/v1", pilotage.ExecuteRequest{Program: raw(auditorProgram), Context: ctx})
	if err != nil || !dep.Outcome.OK {
		t.Fatalf("auditor's deploy: %v %s", err, mustJSON(dep))
	}
	ref := strings.Trim(strings.TrimPrefix(string(dep.Output), `{"program_ref":`), `"}`)

	rules := lookup(t, e, "auditor", "deploy/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Kind: new("rule"), Limit: new(100)})
	if got := string(mustJSON(rules)); !strings.Contains(got, ref) {
		t.Errorf("auditor's list kind=rule after deploying %s: %s, want its own rule", ref, got)
	}
	after := lookup(t, e, "auditor", "deploy/v1", listAll).(*pilotage.ListResponse)
	if after.CatalogVersion == before.CatalogVersion {
		t.Errorf("auditor's catalog_version stayed %s though %s was added to its view (§5.4)", after.CatalogVersion, ref)
	}
	run, err := e.Execute(bg, auditor, "deploy/v1", pilotage.ExecuteRequest{ProgramRef: new(ref), TestRun: boolp(true),
		Input: raw(`{"service": "billing"}`), Context: ctx})
	if err != nil || !run.Outcome.OK || run.Trace.Mode != pilotage.ModeTestRun {
		t.Errorf("auditor's test_run of %s: %v %s", ref, err, mustJSON(run))
	}

	lookup(t, e, "operator", "deploy/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(ref)})
	_, err = e.Lookup(bg, callerOf("stranger", "s1"), "deploy/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new(ref)})
	reqErr(t, err, pilotage.ErrNotFound)
	_, err = e.Execute(bg, callerOf("stranger", "s1"), "deploy/v1", pilotage.ExecuteRequest{ProgramRef: new(ref), TestRun: boolp(true), Context: ctx})
	reqErr(t, err, pilotage.ErrNotFound)
}
