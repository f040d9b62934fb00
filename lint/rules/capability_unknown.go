package rules

import (
	"fmt"
	"slices"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// capabilityUnknown reports capability and sub-feature identifiers that
// are not in the §4.1 table. They are values outside a closed set, so
// their severity follows the manifest version (reading 11): a later minor
// version may add sub-features (§11.1).
var capabilityUnknown = &lint.Rule{
	ID:       "capability-unknown",
	Category: lint.CatCapabilities,
	Section:  "4.1",
	Severity: report.Error,
	Summary:  "Capability and sub-feature identifiers must be those of the §4.1 table.",
	Check: func(p *lint.Pass) {
		server, sptr := serverCaps(p)
		checkDeclaration(p, server, sptr)
		for _, l := range p.Languages {
			checkDeclaration(p, l.Node.Get("capabilities"), l.Pointer+"/capabilities")
		}
	},
}

// checkDeclaration reports the unknown identifiers of one declaration.
func checkDeclaration(p *lint.Pass, decl jsonpos.Node, ptr string) {
	if !decl.Is(jsonpos.Object) {
		return
	}
	for _, m := range decl.Members() {
		mptr := ptr + "/" + pilotage.EscapePointerToken(m.Key)
		spec, ok := pilotage.LookupCapability(m.Key)
		if !ok {
			p.ReportAs(p.ClosedSetSeverity(), mptr, true, fmt.Sprintf("unknown capability %q", report.Clip(m.Key)), capabilityHint(m.Key))
			continue
		}
		if !m.Value.Is(jsonpos.Object) {
			continue
		}
		for _, s := range m.Value.Members() {
			if slices.Contains(spec.SubFeatures, s.Key) {
				continue
			}
			p.ReportAs(p.ClosedSetSeverity(), mptr+"/"+pilotage.EscapePointerToken(s.Key), true,
				fmt.Sprintf("unknown sub-feature %q of capability %q", report.Clip(s.Key), report.Clip(m.Key)), subFeatureHint(spec, s.Key))
		}
	}
}

// capabilityHint explains an unknown capability: a sub-feature written at
// the top level, a likely typo, or the list of capabilities.
func capabilityHint(name string) string {
	if parent := parentOf(name); parent != "" {
		return fmt.Sprintf("%q is a sub-feature of %q and is meaningful only inside it: write \"%s\": {\"%s\": true}",
			name, parent, parent, name)
	}
	var names []string
	for _, c := range pilotage.CapabilityTable {
		names = append(names, c.Name)
	}
	return didYouMean(name, names)
}

// subFeatureHint explains an unknown sub-feature of spec.
func subFeatureHint(spec pilotage.CapabilitySpec, name string) string {
	if parent := parentOf(name); parent != "" {
		return fmt.Sprintf("%q is a sub-feature of %q, not of %q: move it there", name, parent, spec.Name)
	}
	if len(spec.SubFeatures) == 0 {
		return fmt.Sprintf("%q has no sub-features: declare it as \"%s\": true", spec.Name, spec.Name)
	}
	return didYouMean(name, spec.SubFeatures)
}

// parentOf returns the capability that has sub-feature name, or "".
func parentOf(name string) string {
	for _, c := range pilotage.CapabilityTable {
		if slices.Contains(c.SubFeatures, name) {
			return c.Name
		}
	}
	return ""
}

func init() { register(capabilityUnknown) }
