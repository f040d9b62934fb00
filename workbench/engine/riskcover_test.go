package engine

import (
	"errors"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
)

// gapServer is homeServer with home/v1's level without removed. Without
// "any" (destructive and open-world), lock.open (dangerous) and
// weather.fetch (external) aggregate to hints no level covers; without
// "external" (open-world), fan.set (write) and weather.fetch aggregate to
// hints only "any" covers, which says destructive where they do not
// (issue 13, item 2). The compiler refuses such Languages (pdl-risk,
// §5.3); these are built by hand to reach the engine's own guard.
func gapServer(t *testing.T, without string) *Engine {
	srv := homeServer()
	home := srv.Languages[0]
	home.Sets.RiskLevels = levelsWithout(home.Sets.RiskLevels, without)
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
// max_risk_hints. When no level has exactly the aggregate there is no
// such level (one covering it says more risk than it), so validate and a
// deploy Run answer an internal error (not a request error: the Language,
// not the request, is at fault) instead of a plan, or a promoted entry,
// whose max_risk names a level with other hints.
func TestPlanUncoveredIsInternalError(t *testing.T) {
	for _, c := range []struct {
		without, program, hints string
	}{
		{"any", gapProgram, `{"readOnly": false, "destructive": true, "openWorld": true}`},
		{"external", `{"steps": [{"id": "f", "call": "fan.set", "with": {"on": "true"}}, {"id": "w", "call": "weather.fetch"}]}`,
			`{"readOnly": false, "destructive": false, "openWorld": true}`},
	} {
		e := gapServer(t, c.without)
		resp, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(c.program)})
		checkUncovered(t, "without "+c.without+": validate", c.hints, err)
		if err == nil {
			t.Errorf("without %s: validate: plan max_risk %q with max_risk_hints %+v, want an internal error", c.without, resp.Plan.MaxRisk, resp.Plan.MaxRiskHints)
		}
		dep, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: raw(c.program), Mode: new(pilotage.ModeDeploy)})
		checkUncovered(t, "without "+c.without+": deploy", c.hints, err)
		if err == nil {
			t.Errorf("without %s: deploy: installed %s, want an internal error", c.without, dep.Output)
		}
		// A plan the levels do cover is unaffected.
		if _, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: raw(fanProgram)}); err != nil {
			t.Errorf("without %s: validate of a covered plan: %v", c.without, err)
		}
	}
}

// checkUncovered checks that err, when there is one, is an internal
// error naming the aggregate hints.
func checkUncovered(t *testing.T, what, hints string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var re *pilotage.RequestError
	if errors.As(err, &re) {
		t.Errorf("%s: request error %v, want an internal error", what, err)
	}
	if want := `plan of a program of home/v1: no risk level has exactly the hints ` + hints; !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q does not contain %q", what, err, want)
	}
}
