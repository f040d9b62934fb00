package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHTTPMaxSessions: over HTTP the sessions open at once are bounded
// (Options.MaxSessions): an initialize past the bound is 503 with a
// JSON-RPC error saying how to go on, requests of open sessions are
// served, and a session ended with DELETE makes room. Unbounded, a client
// holding a token opened 25,000 sessions of 13 KB each, never given back
// until their 30 idle minutes passed.
func TestHTTPMaxSessions(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Principal: "alice", Version: "test", MaxSessions: 3})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	open := func() (int, string, string) {
		resp := postMessage(t, srv.URL, initialize)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(body)
	}
	var ids []string
	for range 3 {
		code, id, body := open()
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize under the bound: %d %q %s", code, id, body)
		}
		ids = append(ids, id)
	}
	code, id, body := open()
	if code != http.StatusServiceUnavailable || id != "" || !strings.Contains(body, `"code":-32000`) ||
		!strings.Contains(body, "this server has 3 sessions open, the most it keeps (serve --max-sessions)") {
		t.Fatalf("initialize past the bound: %d %q %s; want 503 and a JSON-RPC error saying why", code, id, body)
	}
	// An open session is still served.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", ids[0])
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("ping of an open session at the bound: %d", resp.StatusCode)
	}
	del, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	del.Header.Set("Mcp-Session-Id", ids[1])
	if resp, err := http.DefaultClient.Do(del); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if code, id, body := open(); code != http.StatusOK || id == "" {
		t.Errorf("initialize after a DELETE: %d %q %s", code, id, body)
	}
}
