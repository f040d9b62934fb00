package engine

import (
	"errors"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
)

// gapServer is homeServer with home/v1's level "any" (destructive and
// open-world) removed: lock.open (dangerous) and weather.fetch (external)
// then aggregate to hints no level covers. The compiler refuses such a
// Language (pdl-risk, §5.3); this one is built by hand to reach the
// engine's own guard.
func gapServer(t *testing.T) *Engine {
	srv := homeServer()
	home := srv.Languages[0]
	home.Sets.RiskLevels = levelsWithout(home.Sets.RiskLevels, "any")
	return newEngine(t, srv, t.TempDir())
}

func levelsWithout(levels []closedsets.Risk, name string) []closedsets.Risk {
	var out []closedsets.Risk
	for _, l := range levels {
		if l.Risk != name {
			out = append(out, l)
		}
	}
	return out
}

const gapProgram = `{"steps": [{"id": "o", "call": "lock.open", "with": {}}, {"id": "w", "call": "weather.fetch", "with": {}}]}`

// TestPlanUncoveredIsInternalError: §5.3 requires the engine-defined risk
// to be consistent with risk_hints, and §5.6 a plan's max_risk with
// max_risk_hints. When no level covers the aggregate there is no such
// level, so validate and a deploy Run answer an internal error (not a
// request error: the Language, not the request, is at fault) instead of
// a plan, or a promoted entry, whose max_risk names a level with other
// hints.
func TestPlanUncoveredIsInternalError(t *testing.T) {
	e := gapServer(t)
	resp, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(gapProgram)})
	checkUncovered(t, "validate", err)
	if err == nil {
		t.Errorf("validate: plan max_risk %q with max_risk_hints %+v, want an internal error", resp.Plan.MaxRisk, resp.Plan.MaxRiskHints)
	}
	dep, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: raw(gapProgram), Mode: new(pilotage.ModeDeploy)})
	checkUncovered(t, "deploy", err)
	if err == nil {
		t.Errorf("deploy: installed %s, want an internal error", dep.Output)
	}
	// A plan the levels do cover is unaffected.
	if _, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(fanProgram)}); err != nil {
		t.Errorf("validate of a covered plan: %v", err)
	}
}

// checkUncovered checks that err, when there is one, is an internal
// error naming the aggregate.
func checkUncovered(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var re *pilotage.RequestError
	if errors.As(err, &re) {
		t.Errorf("%s: request error %v, want an internal error", what, err)
	}
	if want := `plan of a program of home/v1: no risk level covers max_risk_hints {"readOnly": false, "destructive": true, "openWorld": true}`; !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q does not contain %q", what, err, want)
	}
}
