package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleLookupChangedSince is the ID of the rule the checks cite as it.
const RuleLookupChangedSince = "lookup-changed-since"

var _ = registry.Register(&report.RuleInfo{ID: RuleLookupChangedSince, Category: "operations", Section: "6.3", Severity: report.Error,
	Summary: "lookup changed_since from a catalog_version the server never issued is an unknown_baseline request error where the verb is declared, and a request error where it is not."})
