package conform

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleBindingTools is the ID of the rule the checks cite as it.
const RuleBindingTools = "binding-tools"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingTools, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: "Every tool the manifest names is listed by tools/list, with an object inputSchema and outputSchema."})

// tools checks that every tool the manifest names is published with an
// object input and output schema (binding.md).
func (c *checker) tools(published map[string]*mcp.Tool, names []string) {
	if published == nil {
		// tools/list was not answered (its finding says so): what it
		// lacks is unknown.
		return
	}
	for _, name := range names {
		t, ok := published[name]
		if !ok {
			c.find(RuleBindingTools, "tools/list", "/tools", "the manifest names the tool %q, but tools/list does not list it", report.Clip(name))
			continue
		}
		for _, s := range []struct {
			member string
			schema any
		}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
			m, _ := s.schema.(map[string]any)
			if m == nil || m["type"] != "object" {
				c.find(RuleBindingTools, "tools/list", "/tools", "tool %q has no object %s; every tool declares one so a generic client can call it", report.Clip(name), s.member)
			}
		}
	}
}
