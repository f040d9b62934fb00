package conform

import (
	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleLookupChangedSince is the ID of the rule the checks cite as it.
const RuleLookupChangedSince = "lookup-changed-since"

var _ = registry.Register(&report.RuleInfo{ID: RuleLookupChangedSince, Category: "operations", Section: "6.3", Severity: report.Error,
	Summary: "lookup changed_since from a catalog_version the server never issued is an unknown_baseline request error where the verb is declared, and a request error where it is not."})

// changedSince asks lookup changed_since from a baseline the server never
// issued: unknown_baseline where the verb is declared (§6.3), and a request
// error where it is not, since the verb is then unavailable (§6.3; the
// spec fixes no kind for it, so any closed kind is accepted).
func (c *checker) changedSince(man *pilotage.Manifest, l pilotage.LanguageEntry) {
	a := c.call(l.Catalog, map[string]any{"verb": pilotage.VerbChangedSince, "catalog_version": absent})
	if man.EffectiveCapabilities(&l).HasSub(pilotage.CapCatalog, pilotage.SubChangedSince) {
		c.requestErrorOf(RuleLookupChangedSince, a, "lookup changed_since from a catalog_version the server never issued", pilotage.ErrUnknownBaseline, "§6.3: a distinguishable unknown-baseline request error")
		return
	}
	c.requestErrorOf(RuleLookupChangedSince, a, "lookup changed_since, which "+report.Clip(l.ID)+" does not declare,", "", "§6.3: the verb is available only when catalog.changed_since is declared")
}
