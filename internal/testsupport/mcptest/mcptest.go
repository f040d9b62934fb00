// Package mcptest drives a Pilotage MCP server from tests: a streamable
// HTTP client that sends a bearer token, a raw request for checking HTTP
// statuses, and the binding's result-shape check (binding.md).
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/bearer"
)

// ConnectHTTP opens an MCP client session on a streamable-HTTP endpoint
// with a bearer token.
func ConnectHTTP(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer.Bearer{Token: token}}}
	return mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil).Connect(ctx, tr, nil)
}

// PingStatus POSTs a JSON-RPC ping with the token and returns the HTTP
// status, for checking that authentication happens before MCP.
func PingStatus(url, token string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := bearer.Bearer{Token: token}.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Result checks a tool result's shape (structuredContent, and exactly one
// text block holding the same JSON) and returns the structured content.
func Result(res *mcp.CallToolResult) (map[string]any, error) {
	if len(res.Content) != 1 {
		return nil, fmt.Errorf("%d content blocks, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return nil, fmt.Errorf("content is %T, want text", res.Content[0])
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	var structured, fromText map[string]any
	if err := json.Unmarshal(raw, &structured); err != nil {
		return nil, fmt.Errorf("structuredContent is not an object: %v", err)
	}
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		return nil, fmt.Errorf("text block is not a JSON object: %v", err)
	}
	a, _ := json.Marshal(structured)
	b, _ := json.Marshal(fromText)
	if string(a) != string(b) {
		return nil, fmt.Errorf("structuredContent %s differs from text %s", a, b)
	}
	return structured, nil
}
