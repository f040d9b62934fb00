package rules

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// closedSetsFixed checks §1.5 across two captures: an engine-defined value
// set "MUST remain fixed for a particular Language version", and the
// version is a component of the Language id (§11.2). So a Language id
// present in both captures must enumerate the same values in every closed
// set of its closed-sets guide, with the same fixed columns (a status's ok
// and side effects, a kind's callability, a level's risk_hints): Clients
// and Hosts key what they learned of the sets by that id. Meanings are
// prose and may be reworded. A section the format rule finds a problem in,
// in either capture, is not compared, since its values may be incomplete.
var closedSetsFixed = &lint.Rule{
	ID:       "closed-sets-fixed",
	Category: lint.CatEvolution,
	Section:  "1.5",
	Severity: report.Error,
	Summary:  "The closed sets of a Language id must be the same as in the baseline capture: a changed set needs a new Language version.",
	Check: func(p *lint.Pass) {
		for _, pair := range p.BaselinePairs() {
			l, old := pair.Now, pair.Before
			cs, ocs := l.ClosedSets(), old.ClosedSets()
			if cs == nil || ocs == nil {
				continue
			}
			related := p.Baseline.Location(ocs.Guide.Pointer()+"/body", "the baseline's closed-sets guide")
			for _, set := range fixedSets {
				if unreliable(cs.Parsed, set.title) || unreliable(ocs.Parsed, set.title) {
					continue
				}
				now, before := set.values(&cs.Parsed.Sets), set.values(&ocs.Parsed.Sets)
				hint := "a changed closed set needs a new Language version: publish it under a new id (the same family, a new version component, §11.2), or restore the baseline's set"
				for _, v := range slices.Sorted(maps.Keys(now)) {
					was, ok := before[v]
					line := cs.Parsed.Values[set.title][v]
					switch {
					case !ok:
						p.ReportValue(cs.Guide, line, l.ID, set.title, v, fmt.Sprintf("%s of %s: %s is not in the baseline's set", set.title, langLabel(l), report.Quote(v)), hint, related)
					case was != now[v]:
						p.ReportValue(cs.Guide, line, l.ID, set.title, v, fmt.Sprintf("%s of %s: %s has %s; in the baseline, %s", set.title, langLabel(l), strconv.Quote(v), now[v], was), hint, related)
					}
				}
				for _, v := range slices.Sorted(maps.Keys(before)) {
					if _, ok := now[v]; !ok {
						p.ReportLine(cs.Guide, max(cs.Parsed.Sections[set.title].Line, 1),
							fmt.Sprintf("%s of %s: %s of the baseline's set is gone", set.title, langLabel(l), report.Quote(v)), hint, related)
					}
				}
			}
		}
	},
}

// fixedSets are the closed sets of closed-sets-format.md, each reduced to
// a map from value to its fixed columns in words (what a message shows).
var fixedSets = []struct {
	title  string
	values func(*closedsets.Sets) map[string]string
}{
	{closedsets.SecDiagnosticCodes, func(s *closedsets.Sets) map[string]string {
		out := map[string]string{}
		for _, c := range s.DiagnosticCodes {
			out[c.Code] = "listed"
		}
		return out
	}},
	{closedsets.SecCatalogKinds, func(s *closedsets.Sets) map[string]string {
		out := map[string]string{}
		for _, k := range s.Kinds {
			out[k.Kind] = fmt.Sprintf("callable %t, promoted %t", k.Callable, k.Promoted)
		}
		return out
	}},
	{closedsets.SecRiskLevels, func(s *closedsets.Sets) map[string]string {
		out := map[string]string{}
		for _, r := range s.RiskLevels {
			out[r.Risk] = fmt.Sprintf("readOnly %t, destructive %t, openWorld %t", r.Hints.ReadOnly, r.Hints.Destructive, r.Hints.OpenWorld)
		}
		return out
	}},
	{closedsets.SecRunStatuses, func(s *closedsets.Sets) map[string]string { return statusColumns(s.RunStatuses) }},
	{closedsets.SecStepStatuses, func(s *closedsets.Sets) map[string]string { return statusColumns(s.StepStatuses) }},
}

func statusColumns(ss []closedsets.Status) map[string]string {
	out := map[string]string{}
	for _, s := range ss {
		out[s.Status] = fmt.Sprintf("ok %t, side effects %t", s.OK, s.SideEffects)
	}
	return out
}

// unreliable reports whether the guide's problems touch the section (or
// the whole body), so its parsed values may be incomplete.
func unreliable(p *closedsets.Parsed, title string) bool {
	return slices.ContainsFunc(p.Problems, func(pr closedsets.Problem) bool {
		return pr.Section == title || pr.Section == ""
	})
}

func init() { register(closedSetsFixed) }
