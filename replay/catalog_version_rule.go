package replay

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleCatalogVersion is the ID of the rule the checks cite as it.
const RuleCatalogVersion = "catalog-version"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleCatalogVersion, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "A started Run executed at the catalog_version its plan was derived at."}, UsesPlan: true})

// catalogVersion checks that the Run executed at the catalog_version the
// plan was derived at: §5.8.4 ties a trace to its plan at one
// catalog_version, and a Client that supplied the plan's token as
// expected_catalog_version gets catalog_drift otherwise (§6.5.2, §6.5.3).
func (c *checker) catalogVersion(t *traceMembers) {
	if t.catalogVersion == nil {
		return
	}
	v, ok := stringOf(t.catalogVersion)
	switch {
	case !ok:
		c.add(finding{rule: RuleTraceShape, at: t.catalogVersion.site, msg: fmt.Sprintf("catalog_version is %s, not a string", report.Clip(t.catalogVersion.raw)),
			hint: "catalog_version is an opaque token (§5.4)"})
	case c.plan.CatalogVersion != "" && v != c.plan.CatalogVersion:
		pos, _ := c.plan.doc.Locate(c.plan.ptr+"/catalog_version", false)
		c.add(finding{rule: RuleCatalogVersion, at: t.catalogVersion.site,
			rel:  []report.Location{{File: c.plan.File, Line: pos.Line, Column: pos.Column, Pointer: c.plan.ptr + "/catalog_version", Note: "the plan's catalog_version"}},
			msg:  fmt.Sprintf("the Run executed at catalog_version %q, but the plan was derived at %q", report.Clip(v), report.Clip(c.plan.CatalogVersion)),
			hint: "correspondence holds at one catalog_version (§5.8.4); executing with the plan's token as expected_catalog_version returns catalog_drift instead (§6.5.2)"})
	}
}
