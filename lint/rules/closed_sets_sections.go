package rules

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// closedSetsSections checks §5.2: the closed-sets guide has every section
// the Language's declared capabilities require (closed-sets-format.md).
// The sections that depend on the grammar (scope rules, parameter
// binding, step identifiers, summarized loop decisions) are required when
// the grammar is known, a PDL input; on a manifest or snapshot alone their
// absence is info (reading 14), since JSON does not show whether the
// grammar needs them.
var closedSetsSections = &lint.Rule{
	ID:       "closed-sets-sections",
	Category: lint.CatClosedSets,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "The closed-sets guide must have every section its Language's capabilities (and grammar) require.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			cs := l.ClosedSets()
			if cs == nil || unreadable(cs) {
				continue // closed-sets-guide or closed-sets-format reports why
			}
			for _, r := range requiredSections(l) {
				text, prose := proseOf(&cs.Parsed.Sets, r.title)
				switch {
				case !cs.Parsed.Has(r.title):
					p.ReportAs(r.severity, cs.Guide.Pointer()+"/body", false,
						fmt.Sprintf("the closed-sets %s has no %q section, which §5.2 requires %s", guideLabel(cs.Guide), r.title, r.because),
						fmt.Sprintf("add \"## %s\" (closed-sets-format.md)", r.title))
				case prose && strings.TrimSpace(text) == "":
					p.ReportAs(r.severity, cs.Guide.Pointer()+"/body", false,
						fmt.Sprintf("the closed-sets %s has an empty %q section (body line %d), which §5.2 requires %s",
							guideLabel(cs.Guide), r.title, cs.Parsed.Sections[r.title].Line, r.because),
						"write the prose the section documents under its heading")
				}
			}
		}
	},
}

// unreadable reports a guide that follows none of the format, or that
// was not parsed at all; closed-sets-format says so once, instead of one
// finding here per section.
func unreadable(cs *lint.ClosedSets) bool {
	if len(cs.Parsed.Sections) == 0 {
		return true
	}
	for _, pr := range cs.Parsed.Problems {
		if pr.Section == "" {
			return true
		}
	}
	return false
}

// required is one section l needs, the severity of its absence, and why.
type required struct {
	title    string
	severity report.Severity
	because  string
}

func requiredSections(l *lint.Language) []required {
	var out []required
	need := func(title string, on bool, because string) {
		if on {
			out = append(out, required{title: title, severity: report.Error, because: because})
		}
	}
	// Grammar-dependent sections: an error when the known grammar needs
	// them, info when the grammar is not known (reading 14).
	byGrammar := func(title string, on func(*lint.Grammar) bool, because string) {
		if l.Grammar == nil {
			out = append(out, required{title: title, severity: report.Info,
				because: because + "; a manifest or snapshot does not show the grammar, so check that it does not apply"})
			return
		}
		need(title, on(l.Grammar), because)
	}
	caps := l.Caps
	need(closedsets.SecDiagnosticCodes, true, "for every Language")
	need(closedsets.SecCatalogKinds, caps.Has(pilotage.CapCatalog), "because catalog is declared")
	need(closedsets.SecRiskLevels, caps.Has(pilotage.CapCatalog) || caps.Has(pilotage.CapPlan), "because catalog or plan is declared")
	for _, t := range []string{closedsets.SecRunStatuses, closedsets.SecStepStatuses, closedsets.SecSummaryTruncation, closedsets.SecOutput} {
		need(t, caps.Has(pilotage.CapExecute), "because execute is declared")
	}
	byGrammar(closedsets.SecScopeRules, func(g *lint.Grammar) bool { return g.HasBranchesOrLoops }, "when the grammar has branches or loops")
	byGrammar(closedsets.SecParameterBinding, func(g *lint.Grammar) bool { return g.AcceptsInput }, "when inline programs accept input")
	byGrammar(closedsets.SecStepIdentifiers, func(g *lint.Grammar) bool { return !g.NativeStepIDs }, "when the grammar has no native step identifiers (§3.4)")
	// Loop decisions are needed only by an engine that summarizes them
	// (§5.8), which only a known grammar can say.
	if l.Grammar != nil {
		need(closedsets.SecLoopDecisions, l.Grammar.SummarizedLoops, "when loop decisions use a summarized form (§5.8)")
	}
	return out
}

// proseOf returns the text of a prose section and whether the section is
// prose (tabled sections are checked by the rules that read their rows).
func proseOf(s *closedsets.Sets, title string) (string, bool) {
	switch title {
	case closedsets.SecScopeRules:
		return s.ScopeRules, true
	case closedsets.SecParameterBinding:
		return s.ParameterBinding, true
	case closedsets.SecStepIdentifiers:
		return s.StepIdentifiers, true
	case closedsets.SecSummaryTruncation:
		return s.Truncation, true
	case closedsets.SecOutput:
		return s.Output, true
	case closedsets.SecLoopDecisions:
		return s.LoopDecisions, true
	}
	return "", false
}

func init() { register(closedSetsSections) }
