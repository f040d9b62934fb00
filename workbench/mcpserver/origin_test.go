package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// originStatus sends a ping with the Origin header origin (none when
// empty) and returns the status.
func originStatus(t *testing.T, url, method, origin string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The MCP streamable HTTP transport asks servers to validate Origin on
// every connection and answer 403 to an invalid one, as a web page a
// browser shows could otherwise drive a local server (DNS rebinding, a
// page posting to localhost). A request without Origin (every non-browser
// client) and one from a loopback origin pass; any other origin passes
// only when --allow-origin lists it exactly, and the 403 is answered
// before the bearer token is looked at.
func TestHTTPOrigin(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Version: "test", AllowOrigins: []string{"https://app.example.com", "http://10.0.0.5:8080"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tokens := range []map[string]string{nil, {"tok": "alice"}} {
		srv := httptest.NewServer(s.HTTPHandler(tokens))
		for origin, want := range map[string]bool{
			"":                         true,
			"http://localhost:6274":    true, // the MCP Inspector
			"http://localhost":         true,
			"https://LOCALHOST:8443":   true,
			"http://127.0.0.1:3000":    true,
			"http://127.1.2.3":         true,
			"http://[::1]:5173":        true,
			"https://app.example.com":  true,
			"HTTPS://App.Example.com":  true, // origins compare case-blind
			"http://10.0.0.5:8080":     true,
			"http://10.0.0.5:8081":     false,
			"http://app.example.com":   false,
			"https://evil.example":     false,
			"http://localhost.evil.io": false,
			"http://127.0.0.1.nip.io":  false,
			"null":                     false, // a sandboxed frame or a file: page
			"file://":                  false,
			"not a url":                false,
		} {
			for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
				code := originStatus(t, srv.URL, method, origin)
				if got := code != http.StatusForbidden; got != want {
					t.Errorf("tokens %v, %s with Origin %q: status %d; want allowed %v", tokens != nil, method, origin, code, want)
				}
			}
		}
		srv.Close()
	}
}

// TestHTTPOriginRefusalClipped: the 403 names the refused Origin
// clipped; a 500 KB header was echoed whole in the body.
func TestHTTPOriginRefusalClipped(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://"+strings.Repeat("e", 500<<10)+".example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || len(body) > 1024 || !strings.Contains(string(body), "eee…") {
		t.Errorf("status %d, a %d-byte body; want 403 naming the origin clipped: %.200s", resp.StatusCode, len(body), body)
	}
}

// Over HTTP, Options.MaxMessageBytes bounds a request body as it bounds a
// stdio line: a body over it is refused with 413 before MCP reads it,
// one under it is served.
func TestHTTPMaxMessageBytes(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Version: "test", MaxMessageBytes: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	post := func(size, want int) {
		head := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"`
		body := head + strings.Repeat("1", size-len(head)-len(`"}}}`)) + `"}}}`
		resp := postMessage(t, srv.URL, body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("a %d-byte initialize under a bound of %d: status %d, want %d", len(body), s.maxMessage(), resp.StatusCode, want)
		}
	}
	post(1<<10, http.StatusOK)
	post(8<<10, http.StatusRequestEntityTooLarge)
	// Raised (serve --watch, a reload that raises a Language's limits),
	// the bound holds from the next body on, go-sdk's own included.
	s.SetMaxMessageBytes(16 << 10)
	post(8<<10, http.StatusOK)
}

// Over HTTP as over stdio, a body whose values would cost more than the
// tree budget once decoded is refused before go-sdk decodes it: 400 with
// a JSON-RPC Invalid Request naming its id; one within it is served.
func TestHTTPDenseBodyRefused(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	initialize := func(values string) *http.Response {
		return postMessage(t, srv.URL, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"},"x":[`+values+`1]}}`)
	}
	resp := initialize(strings.Repeat("1,", 1<<20))
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"the message's 1048598 values would take about 41943701 bytes as a tree, more than this server's budget for a message of 2097306 bytes (4 bytes a byte plus 6 MiB); send fewer, larger values"}}`
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(string(body), want) || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a dense initialize: status %d, %s\n%s; want 400 and %s…", resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
	}
	resp = initialize(strings.Repeat("1,", 1000))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("an initialize of 1,000 values: status %d, want 200", resp.StatusCode)
	}
}

// postMessage posts the JSON-RPC message body to url as a streamable
// HTTP client does.
func postMessage(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://app.example.com":       "https://app.example.com",
		"HTTP://Host.Example:8080":      "http://host.example:8080",
		"https://app.example.com/":      "",
		"https://app.example.com/path":  "",
		"app.example.com":               "",
		"*":                             "",
		"ftp://x":                       "",
		"https://user@x":                "",
		"https://x?q":                   "",
		"https://*.example.com":         "",
		"http://a:99999":                "",
		"http://a:0":                    "",
		"http://a:":                     "",
		"http://a_b.example":            "",
		"http://-a.example":             "",
		"http://[::1]:8080":             "http://[::1]:8080",
		"http://10.0.0.5:8080":          "http://10.0.0.5:8080",
		"https://xn--bcher-kva.example": "https://xn--bcher-kva.example",
	} {
		got, err := ParseOrigin(in)
		if (err == nil) != (want != "") || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
		if strings.Contains(in, "*") && (err == nil || !strings.Contains(err.Error(), "there is no wildcard")) {
			t.Errorf("ParseOrigin(%q): %v does not say there is no wildcard", in, err)
		}
		if err != nil && !strings.Contains(err.Error(), "scheme://host[:port]") {
			t.Errorf("ParseOrigin(%q): %v does not say the form", in, err)
		}
	}
}
