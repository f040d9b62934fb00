package rules

import (
	"fmt"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// capabilityOverride points out the §4.2 replacement rule where it takes
// something away: a Language-level value for a capability replaces the
// Server-level value in full, so sub-features the Server-level value
// declares are not declared for that Language unless repeated. That is
// what the spec says and may be intended, so the finding is info; it is
// the likeliest misreading of §4.2 ("merge"), and the effect is silent.
var capabilityOverride = &lint.Rule{
	ID:       "capability-override",
	Category: lint.CatCapabilities,
	Section:  "4.2",
	Severity: report.Info,
	Summary:  "A Language-level capability value that drops sub-features the Server-level value declares is pointed out: values replace, they never merge.",
	Check: func(p *lint.Pass) {
		server, _ := serverCaps(p)
		if !server.Is(jsonpos.Object) {
			return
		}
		for _, l := range p.Languages {
			lc := l.Node.Get("capabilities")
			if !lc.Is(jsonpos.Object) {
				continue
			}
			for _, m := range lc.Members() {
				sv := server.Get(m.Key)
				// false drops the capability with its sub-features plainly;
				// a malformed value is the schema rule's.
				if declared := m.Value.Is(jsonpos.Object) || m.Value.Is(jsonpos.Bool) && m.Value.Bool(); !declared {
					continue
				}
				lost := lostSubFeatures(sv, l.Caps, m.Key)
				if len(lost) == 0 {
					continue
				}
				what := "sub-feature " + quoteAll(lost) + " is"
				if len(lost) > 1 {
					what = "sub-features " + quoteAll(lost) + " are"
				}
				p.ReportKey(l.Pointer+"/capabilities/"+pilotage.EscapePointerToken(m.Key),
					fmt.Sprintf("%s declares %q itself, which replaces the Server-level value in full: %s not declared for this Language",
						langLabel(l), report.Clip(m.Key), what),
					fmt.Sprintf("if the Language provides them, repeat them here: \"%s\": {%s}", m.Key, trueMembers(append(trueSubs(m.Value), lost...))))
			}
		}
	},
}

// lostSubFeatures lists the sub-features the Server-level value sv of
// capability c declares but the effective map does not.
func lostSubFeatures(sv jsonpos.Node, caps pilotage.Capabilities, c string) []string {
	var lost []string
	for _, sub := range trueSubs(sv) {
		if !caps.HasSub(c, sub) && !slices.Contains(lost, sub) {
			lost = append(lost, sub)
		}
	}
	return lost
}

// trueSubs lists the sub-features an object value sets to true.
func trueSubs(v jsonpos.Node) []string {
	if !v.Is(jsonpos.Object) {
		return nil
	}
	var out []string
	for _, s := range v.Members() {
		if s.Value.Is(jsonpos.Bool) && s.Value.Bool() {
			out = append(out, s.Key)
		}
	}
	return out
}

// trueMembers renders names as JSON members set to true.
func trueMembers(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%q: true", report.Clip(n))
	}
	return strings.Join(parts, ", ")
}

func init() { register(capabilityOverride) }
