package mcpserver

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNoticesAtInitialize: a Notice reaches the client as an MCP log
// message (notifications/message, level warning) once it is initialized,
// without the client asking for logs, and the server then declares the
// logging capability; a server without notices declares none and sends
// none. The client speaks 2025-06-18, as the MCP Inspector does: a
// client of the stateless 2026-07-28 protocol discovers the server
// without initialize and is told nothing (docs/serve.md).
func TestNoticesAtInitialize(t *testing.T) {
	const notice = "no --principal was given"
	for _, notices := range [][]string{{notice}, nil} {
		s, err := New(context.Background(), newFake(), Options{Version: "test", Notices: notices})
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan *mcp.LoggingMessageParams, 4)
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st); err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params }})
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		if hasLogging := cs.InitializeResult().Capabilities.Logging != nil; hasLogging != (notices != nil) {
			t.Errorf("notices %q: logging capability declared %v", notices, hasLogging)
		}
		// A round trip after initialized: the notice, sent while the
		// server handled initialized, is delivered before this answer.
		if err := cs.Ping(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-got:
			if notices == nil {
				t.Errorf("a server without notices sent %+v", p)
			} else if p.Level != "warning" || p.Data != notice || p.Logger != "pilotage" {
				t.Errorf("notice arrived as %+v", p)
			}
		case <-time.After(map[bool]time.Duration{true: 5 * time.Second, false: 50 * time.Millisecond}[notices != nil]):
			if notices != nil {
				t.Error("the notice never arrived")
			}
		}
		cs.Close()
	}
}

// TestNoticesOverStdio: ServeIO, the stdio server, tells its one client
// the notices as a notifications/message line.
func TestNoticesOverStdio(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Version: "test", Notices: []string{"the catalog is empty"}})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
`)
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), in, &out); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"method":"notifications/message","params":{"data":"the catalog is empty","level":"warning","logger":"pilotage"}`) {
		t.Errorf("no notice in the stdio output:\n%s", out.String())
	}
}
