package replay

import (
	"fmt"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestDecisionAtForms: a decision's at identifies its construct (§5.8) by
// either of two forms (reading 2 as docs/readings.md amends it): the
// entry's complete trace id (§5.8.2), which the engine emits, or the
// construct's program step identifier, the id's base. The same holds for
// loop decisions and for expanded sub-program entries; every other string
// is a decision-at finding whose message names both accepted forms.
func TestDecisionAtForms(t *testing.T) {
	plan := basePlan(t)
	for _, c := range []struct {
		id, kind, at string
		ok           bool
	}{
		{"hot", "branch", "hot", true},
		{"hot#2", "branch", "hot#2", true},
		{"hot#2", "branch", "hot", true},
		{"hot#2", "branch", "cold", false},
		{"hot#2", "branch", "hot#3", false},
		{"hot#2", "branch", "hot#2#1", false},
		{"hot#2", "branch", "", false},
		{"each#1", "loop", "each", true},
		// An entry outside loops and sub-programs: its complete id is its
		// step identifier, one form the message names once.
		{"each", "loop", "each#1", false},
		{"each#1#3", "loop", "each#1#3", true},
		{"each#1#3", "loop", "each#1", false},
		// An expanded entry's partial forms are neither of the two: hot#2
		// can be the id of another entry of this trace, outer#1/hot is no id.
		{"outer#1/hot#2", "branch", "outer#1/hot#2", true},
		{"outer#1/hot#2", "branch", "hot", true},
		{"outer#1/hot#2", "branch", "hot#2", false},
		{"outer#1/hot#2", "branch", "outer#1/hot", false},
		{"outer#1/hot#2", "branch", "outer/hot#2", false},
		// A malformed id has no base to accept (trace-id-syntax reports it).
		{"outer/", "branch", "", false},
	} {
		t.Run(fmt.Sprintf("%s at %q", c.id, c.at), func(t *testing.T) {
			trace := fmt.Sprintf(`{"run_id": "r", "level": "summary", "outcome": {"ok": true, "status": "success"},
 "steps": [{"id": %q, "kind": %q, "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": %q, "took": "then"}]}]}`, c.id, c.kind, c.at)
			base := pilotage.BaseID(c.id)
			var got []string
			for _, f := range Replay(plan, "t.json", strings.NewReader(trace), Options{}).Findings {
				if f.Rule == RuleDecisionAt {
					got = append(got, f.Message)
				}
			}
			switch {
			case c.ok && len(got) > 0:
				t.Errorf("accepted form drew %q", got)
			case !c.ok && len(got) != 1:
				t.Errorf("got %d decision-at findings %q, want 1", len(got), got)
			case !c.ok && !strings.Contains(got[0], fmt.Sprintf("%q", c.id)):
				t.Errorf("message %q does not name the complete id %q", got[0], c.id)
			case !c.ok && base != "" && base != c.id && !strings.Contains(got[0], fmt.Sprintf("step identifier %q", base)):
				t.Errorf("message %q does not name the step identifier %q", got[0], base)
			case !c.ok && base == c.id && strings.Count(got[0], fmt.Sprintf("%q", c.id)) != 2:
				t.Errorf("message %q should name the entry %q and its one accepted form once each", got[0], c.id)
			}
		})
	}
}
