package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleBindingVersion is the ID of the rule the checks cite as it. Its checks
// are in binding_extension_rule.go (extension), where the extension
// declaration is read.
const RuleBindingVersion = "binding-version"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingVersion, Category: "binding", Section: "11.1", Severity: report.Error,
	Summary: "The server's extension major version is not above the client's; a client must not use Pilotage with a newer major."})
