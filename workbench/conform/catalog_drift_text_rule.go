package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleCatalogDriftText is the ID of the rule the checks cite as it. Its
// checks are in execute_refusals_rule.go (executeRefusals), with the drift
// probe it judges.
const RuleCatalogDriftText = "catalog-drift-text"

var _ = registry.Register(&report.RuleInfo{ID: RuleCatalogDriftText, Category: "operations", Section: "6.5.2", Severity: report.Info,
	Summary: `With --execute: the catalog_drift outcome's error is the text §6.5.2 shows, "catalog version mismatch"; error is an optional short description (§5.7), so another text is only noted.`})
