package replay

import (
	"strings"
	"testing"
)

// TestExpandedBranchDecision: a branch entry of an expanded sub-program
// has no plan step (§5.8.3), so no plan lists its arms, but the grammar's
// arm labels are the Language's whatever the body: with --lang (Arms) a
// took outside them is a branch-decision error there too, as a second
// decision is with or without the Language.
func TestExpandedBranchDecision(t *testing.T) {
	grammar := &Language{Arms: []string{"then", "else"}}
	for _, c := range []struct {
		name      string
		lang      *Language
		decisions string
		want      string // the finding's message, "" for none
	}{
		{"an arm", grammar, `[{"at": "off#1/hot", "took": "else"}]`, ""},
		{"no arm, grammar known", grammar, `[{"at": "off#1/hot", "took": "maybe"}]`, `branch entry "off#1/hot" took "maybe", which is no arm label of the Language's grammar ([then else])`},
		{"no arm, grammar unknown", nil, `[{"at": "off#1/hot", "took": "maybe"}]`, ""},
		{"two decisions", nil, `[{"at": "off#1/hot", "took": "then"}, {"at": "off#1/hot", "took": "else"}]`, `branch entry "off#1/hot" carries 2 decisions; a branch activation takes exactly one`},
	} {
		t.Run(c.name, func(t *testing.T) {
			trace := baseTrace(`{"id": "off#1/hot", "kind": "branch", "outcome": {"ok": true, "status": "success"}, "decisions": ` + c.decisions + `}`)
			var got []string
			for _, f := range Replay(basePlan(t), "t.json", strings.NewReader(trace), Options{Language: c.lang}).Findings {
				if f.Rule == RuleBranchDecision {
					got = append(got, f.Message)
				}
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("branch-decision findings %q, want none", got)
			case c.want != "" && (len(got) != 1 || got[0] != c.want):
				t.Errorf("branch-decision findings %q, want %q", got, c.want)
			}
		})
	}
}
