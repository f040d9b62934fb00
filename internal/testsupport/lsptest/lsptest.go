// Package lsptest is an LSP client for tests: it talks to a server over
// an in-process pipe and records the diagnostics and requests the server
// sends, so tests assert what an editor would receive.
package lsptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
)

// Publish and Diag are what a client reads of publishDiagnostics.
type Publish struct {
	URI         string `json:"uri"`
	Version     *int   `json:"version"`
	Diagnostics []Diag `json:"diagnostics"`
}

type Diag struct {
	Range              protocol.Range                          `json:"range"`
	Severity           int                                     `json:"severity"`
	Code               string                                  `json:"code"`
	CodeDescription    *struct{ Href string }                  `json:"codeDescription"`
	Message            string                                  `json:"message"`
	Data               map[string]string                       `json:"data"`
	RelatedInformation []protocol.DiagnosticRelatedInformation `json:"relatedInformation"`
}

// Client is an LSP client on the other end of a pipe to a server.
type Client struct {
	t    testing.TB
	conn *jsonrpc2.Conn
	// Raw is the client's end of the pipe, for writing malformed frames.
	Raw  net.Conn
	mu   sync.Mutex
	pubs map[string][]Publish
	reqs map[string][]json.RawMessage
	done chan struct{}
	log  lockedBuffer
}

// Start runs serve on one end of a pipe, with log as its standard
// error, and initializes it as a client with the capabilities caps
// (nil: none); it is shut down when the test ends.
func Start(t testing.TB, caps map[string]any, serve func(rwc io.ReadWriteCloser, log io.Writer)) *Client {
	t.Helper()
	a, b := net.Pipe()
	c := &Client{t: t, Raw: a, pubs: map[string][]Publish{}, reqs: map[string][]json.RawMessage{}, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		serve(b, &c.log)
		b.Close()
	}()
	h := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		var params json.RawMessage
		if r.Params != nil {
			params = *r.Params
		}
		if r.Method == protocol.ServerTextDocumentPublishDiagnostics {
			var p Publish
			json.Unmarshal(params, &p)
			c.pubs[p.URI] = append(c.pubs[p.URI], p)
		} else {
			c.reqs[r.Method] = append(c.reqs[r.Method], params)
		}
		return nil, nil
	})
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(a, jsonrpc2.VSCodeObjectCodec{}), h)
	t.Cleanup(func() { c.conn.Close(); a.Close(); <-c.done })
	if caps == nil {
		caps = map[string]any{}
	}
	var res protocol.InitializeResult
	if err := c.Call("initialize", map[string]any{"capabilities": caps}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.Notify("initialized", map[string]any{})
	return c
}

// Call sends a request and waits (at most 20 s) for its answer.
func (c *Client) Call(method string, params, result any) error {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.conn.Call(ctx, method, params, result)
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatal(err)
	}
}

// Open opens the file at path with text as version 1 and returns its URI.
func (c *Client) Open(path, text string) string {
	uri := lspserve.URIOf(path)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "pdl", "version": 1, "text": text}})
	return uri
}

// Change replaces the whole text of an open document.
func (c *Client) Change(uri string, version int, text string) {
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{map[string]any{"text": text}}})
}

// WaitDiags waits for the diagnostics published for a document version.
func (c *Client) WaitDiags(uri string, version int) []Diag {
	c.t.Helper()
	return c.WaitFor(uri, func(p Publish) bool { return p.Version != nil && *p.Version == version })
}

// WaitFor waits (at most 20 s) for the first diagnostics published for
// uri that ok accepts, and forgets those published before them, so the
// next wait sees only later ones.
func (c *Client) WaitFor(uri string, ok func(Publish) bool) []Diag {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for i, p := range c.pubs[uri] {
			if ok(p) {
				c.pubs[uri] = c.pubs[uri][i+1:]
				c.mu.Unlock()
				return p.Diagnostics
			}
		}
		c.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	c.t.Fatalf("no such diagnostics for %s; published: %+v", uri, c.pubs[uri])
	return nil
}

// Requests are the params of the requests the server sent the client
// by a method (client/registerCapability).
func (c *Client) Requests(method string) []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reqs[method]
}

// WaitRequests waits until the server has sent at least one request of
// method and returns their params: it may send one while it answers
// others, so having seen some other message says nothing of it.
func (c *Client) WaitRequests(method string) []json.RawMessage {
	c.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if rs := c.Requests(method); len(rs) > 0 {
			return rs
		}
	}
	c.t.Fatalf("the server sent no %s", method)
	return nil
}

// Log is what the server wrote to its standard error so far.
func (c *Client) Log() string { return c.log.String() }

// At is a request's params for a position in a document.
func At(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
