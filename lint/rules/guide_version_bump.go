package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// guideVersionBump checks §11.2 across two captures: "A guide's version
// changes whenever the guide content changes." Clients key guide caches by
// (Server, Language identifier, guide version), so a body changed under an
// unchanged version is never fetched again by a Client that cached the old
// one. The content compared is the body, what a fetch returns; a guide
// whose body either capture lacks cannot be compared and is passed over
// (guide-size-bytes reports it).
var guideVersionBump = &lint.Rule{
	ID:       "guide-version-bump",
	Category: lint.CatEvolution,
	Section:  "11.2",
	Severity: report.Error,
	Summary:  "A guide whose body changed since the baseline capture must have a new `version`.",
	Check: func(p *lint.Pass) {
		for _, pair := range p.BaselinePairs() {
			l, old := pair.Now, pair.Before
			for _, g := range l.Guides {
				if g.ID == "" || l.Guide(g.ID) == nil {
					continue
				}
				og := old.Guide(g.ID)
				if og == nil || !g.HasBody || !og.HasBody || g.Body == og.Body {
					continue
				}
				v, ov := g.Node.Get("version"), og.Node.Get("version")
				if !v.Is(jsonpos.String) || !ov.Is(jsonpos.String) || v.Str() != ov.Str() {
					continue
				}
				p.ReportRelated(report.Error, g.Pointer()+"/version",
					fmt.Sprintf("%s of %s changed its body since the baseline but kept version %s, so a Client that cached it keeps the old body",
						guideLabel(g), langLabel(l), report.Quote(v.Str())),
					"give the guide a new \"version\" whenever its body changes",
					p.Baseline.Location(og.Pointer()+"/version", "the baseline's "+guideLabel(og)+", with the same version and another body"))
			}
		}
	},
}

func init() { register(guideVersionBump) }
