package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// snapshotGuides checks that a snapshot carries the guides of every
// Language of its manifest (guides is a required capability, §4.3, and
// every Language has a core and a closed-sets guide, §5.2) and no guides
// for Languages the manifest does not have.
var snapshotGuides = &lint.Rule{
	ID:       "snapshot-guides",
	Category: lint.CatGuides,
	Section:  "5.2",
	Severity: report.Error,
	Summary:  "A snapshot must hold the guides of every Language of its manifest, keyed by Language id, and no others.",
	Check: func(p *lint.Pass) {
		if p.Kind != lint.KindSnapshot || !p.Manifest.Exists() {
			return
		}
		for _, l := range p.Languages {
			if l.HasGuides || l.ID == "" {
				continue
			}
			p.Report(l.Pointer+"/id", fmt.Sprintf("the snapshot has no guides for %s, so its core and closed-sets guides cannot be checked", langLabel(l)),
				fmt.Sprintf("add %q: [ ... ] under \"guides\" with every guide of the Language, bodies included", report.Clip(l.ID)))
		}
		strayKeys(p, "guides", "guides")
	},
}

func init() { register(snapshotGuides) }
