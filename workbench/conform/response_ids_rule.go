package conform

import "github.com/pilotage-dev/pilotage/internal/base/report"

// RuleResponseIDs is the ID of the rule the checks cite as it. Its check
// is msgWatch.received (message_json_rule.go), which pairs each response
// of the server with the request conform sent under its id.
const RuleResponseIDs = "response-ids"

var _ = registry.Register(&report.RuleInfo{ID: RuleResponseIDs, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: "Every response the server sends answers a request conform sent, with its id, no request is answered twice, and a message with an id and a method is a request MCP lets a server send (JSON-RPC 2.0 §4, §5, the binding's carrier)."})
