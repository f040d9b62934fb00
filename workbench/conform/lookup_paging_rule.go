package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleLookupPaging is the ID of the rule the checks cite as it. Its checks
// are in binding.go (pages) and loop.go (lookup), where every list is paged.
const RuleLookupPaging = "lookup-paging"

var _ = registry.Register(&report.RuleInfo{ID: RuleLookupPaging, Category: "operations", Section: "6.3", Severity: report.Error,
	Summary: "lookup list cursors lead to the end of the catalog without repeating, at one catalog_version."})
