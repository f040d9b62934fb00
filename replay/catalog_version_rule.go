package replay

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleCatalogVersion is the ID of the rule the checks cite as it.
const RuleCatalogVersion = "catalog-version"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleCatalogVersion, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error,
	Summary: "A started Run executed at the catalog_version its plan was derived at."}, UsesPlan: true})
