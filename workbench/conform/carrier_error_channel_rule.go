package conform

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleCarrierErrorChannel is the ID of the rule the checks cite as it.
const RuleCarrierErrorChannel = "carrier-error-channel"

var _ = registry.Register(&report.RuleInfo{ID: RuleCarrierErrorChannel, Category: "channels", Section: "8", Severity: report.Error,
	Summary: "An unknown tool or arguments that are not an object are JSON-RPC errors, not tool results."})

// carrierErrors checks that carrier failures travel as JSON-RPC errors:
// an unknown tool, and arguments that are not an object (binding.md).
func (c *checker) carrierErrors(discover string) {
	for _, probe := range []struct {
		tool, what string
		args       any
	}{
		{"pilotage_conform_no_such_tool", "a call of an unknown tool", map[string]any{}},
		{discover, "a call whose arguments are an array", json.RawMessage("[]")},
	} {
		op := "tools/call " + report.Clip(probe.tool)
		_, err := c.request(func(ctx context.Context) (*mcp.CallToolResult, error) {
			return c.cs.CallTool(ctx, &mcp.CallToolParams{Name: probe.tool, Arguments: probe.args})
		})
		var rpc *jsonrpc.Error
		switch {
		case err == nil:
			c.find(RuleCarrierErrorChannel, op, "", "%s was answered with a tool result; it is a carrier failure, a JSON-RPC error", probe.what)
		case c.stopped != nil:
			c.fail(RuleOperationAnswers, op, "", err, "%s: ", probe.what)
		case !errors.As(err, &rpc):
			c.find(RuleCarrierErrorChannel, op, "", "%s failed without a JSON-RPC error: %v", probe.what, err)
		}
	}
}
