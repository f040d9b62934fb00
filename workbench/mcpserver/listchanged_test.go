package mcpserver

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lines is a log destination that hands each line on; slog's handlers
// write one record at a time.
type lines chan string

func (l lines) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// TestRefreshOverHTTPLogsNoUndeliverable: serve --http --watch calls
// Refresh on every reload, and go-sdk sends list_changed to every
// Session. One whose client opened no stream for server messages (the
// GET stream of streamable HTTP is optional) cannot get it, and go-sdk
// logged a warning per notification and Session on every reload. Such a
// client chose not to hear notifications, so nothing is logged for it;
// a client with the stream open still gets list_changed.
func TestRefreshOverHTTPLogsNoUndeliverable(t *testing.T) {
	warnings := make(lines, 64)
	f := newFake()
	s, err := New(context.Background(), f, Options{Principal: "alice", Version: "test",
		Logger: slog.New(slog.NewTextHandler(warnings, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	// A client that POSTs and never GETs.
	resp := postMessage(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: status %d, no session", resp.StatusCode)
	}
	// A go-sdk client, which opens the stream.
	changed := make(chan string, 8)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { changed <- "tools" },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- "resources" },
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	f.mu.Lock()
	f.languages = []string{"other/v2"}
	f.mu.Unlock()
	if err := s.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Both notifications reach the client with a stream open; go-sdk
	// notifies the Sessions in the order they connected, so by then it
	// has tried the first for each.
	awaitBothListChanged(t, changed, "the client with a stream open")
	// A warning logged on its own goroutine would come a little later.
	select {
	case w := <-warnings:
		t.Errorf("Refresh logged %s", w)
	case <-time.After(50 * time.Millisecond):
	}
}

// awaitBothListChanged waits for the tools and the resources
// list_changed on changed, the kinds a client's handlers send.
func awaitBothListChanged(t *testing.T, changed <-chan string, who string) {
	t.Helper()
	got := map[string]bool{}
	for timeout := time.After(10 * time.Second); len(got) < 2; {
		select {
		case kind := <-changed:
			got[kind] = true
		case <-timeout:
			t.Fatalf("%s: got list_changed of %v only, want tools and resources", who, got)
		}
	}
}

// TestRefreshUnchangedIsQuiet: serve --watch calls Refresh on every
// reload, and a reload that changes nothing a client sees (a guide's
// text, an entry's behaviour) tells clients nothing; one that renames a
// Language tells them the tools and resources changed.
func TestRefreshUnchangedIsQuiet(t *testing.T) {
	f := newFake()
	s := newServer(t, f, "alice")
	changed := make(chan string, 8)
	cs := connectWith(t, s, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { changed <- "tools" },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- "resources" },
	})
	for range 2 {
		if err := s.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// go-sdk sends list_changed 10 ms after the last change; wait five
	// times that.
	select {
	case kind := <-changed:
		t.Fatalf("a Refresh that changed nothing sent %s/list_changed", kind)
	case <-time.After(50 * time.Millisecond):
	}
	if names := toolNames(t, cs); len(names) != 6 {
		t.Fatalf("after the quiet refreshes: tools %v", names)
	}
	f.mu.Lock()
	f.languages = []string{"other/v2"}
	f.mu.Unlock()
	if err := s.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	awaitBothListChanged(t, changed, "renaming the Language")
}

// TestQuietLogsKeepsOtherWarnings: the filter drops only go-sdk's
// warning for a notification no stream could carry; another failure to
// notify, and every other record, is logged.
func TestQuietLogsKeepsOtherWarnings(t *testing.T) {
	var logs bytes.Buffer
	log := quietLogs(slog.New(slog.NewTextHandler(&logs, nil))).With("k", "v")
	log.Warn("calling notifications/tools/list_changed: rejected by transport: undelivered message: stream not connected or already closed")
	log.Warn("calling notifications/tools/list_changed: session is closed")
	log.Warn("calling notifications/tools/list_changed: rejected by transport: undelivered message: event store is full")
	log.Info("session ended")
	got := logs.String()
	if strings.Contains(got, "stream not connected") || strings.Count(got, "\n") != 3 || !strings.Contains(got, "k=v") {
		t.Errorf("logged:\n%s", got)
	}
}
