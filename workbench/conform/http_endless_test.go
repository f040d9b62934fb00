package conform

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// endlessSSE answers every POST with an event stream, under a session
// id, that never ends: keep-alive comments every 20 ms, or with data one
// 64 KiB data line after another, an event that never ends. A DELETE,
// which ends the session, it answers at once, or with hang never.
func endlessSSE(t *testing.T, data, hang bool) string {
	t.Helper()
	line := []byte(": keep-alive\n\n")
	if data {
		line = append(append([]byte("data: "), bytes.Repeat([]byte("x"), 64<<10)...), '\n')
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			if hang {
				<-r.Context().Done()
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", "s")
		for {
			if _, err := w.Write(line); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			if !data {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// An HTTP server whose event streams never end and never answer: the
// failure names the request that got no answer, the go-sdk's
// server/discover probe, which comes before initialize (it named
// initialize); and conform is done at --timeout and DeleteGrace, the
// most it waits for the DELETE that ends the session: it waited the
// go-sdk's 5 s for it, 16 s for a --timeout of 10 s. With -short the
// server answers the DELETE, so the test does not wait out DeleteGrace.
func TestEndlessStreamTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	url := endlessSSE(t, false, !testing.Short())
	start := time.Now()
	_, err := Check(context.Background(), HTTP(url, ""), Options{Dir: t.TempDir(), Timeout: timeout})
	took := time.Since(start)
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "connecting: the server did not answer server/discover (") {
		t.Errorf("err = %v, want a connection failure naming server/discover", err)
	}
	if limit := timeout + DeleteGrace + time.Second; took > limit {
		t.Errorf("took %v for a --timeout of %v; want under %v", took.Round(time.Millisecond), timeout, limit)
	}
}

// An event stream that never ends, with data past MaxMessageBytes, is
// the server's failure to answer, not conform's to connect: one
// operation-answers finding on the request whose answer it is (exit 1 in
// the CLI), where it was a connection failure (exit 2) in the go-sdk's
// words, "request terminated without response".
func TestEndlessStreamBody(t *testing.T) {
	if testing.Short() {
		t.Skip("reads an event of 16 MiB; run without -short")
	}
	t.Parallel()
	url := endlessSSE(t, true, false)
	start := time.Now()
	rep := check(t, HTTP(url, ""), Options{Timeout: 20 * time.Second})
	want := "server/discover: error: the answer is past the bound of one message: POST " + url + " was answered with an event of more than 16777216 bytes, the most one message may take; nothing else was checked [operation-answers §6]\n"
	if got := findings(rep); !strings.HasPrefix(got, want) || len(rep.Findings) != 1 {
		t.Errorf("findings:\n%s\nwant only:\n%s", got, want)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}

// MaxMessageBytes bounds one message, so over HTTP one event of an event
// stream, as over stdio one line: an answer preceded by 300
// notifications of 60 KB each, 18 MB in all, was cut at 16 MiB as if one
// message were that large (/tmp/rev1/repro/conform-http-stream-bound).
// The whole stream is bounded by --timeout, and nothing of it is held.
// The server is the clean fake over streamable HTTP, chatty before its
// answer to discover.
func TestManySmallEventsWithinBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads an 18 MB event stream; run without -short")
	}
	t.Parallel()
	f := newFake(t, cleanSnapshot)
	s := f.server()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	event := []byte(`event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 60000) + `"}}` + "\n\n")
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"name":"pilotage_discover"`)) {
			w = &chattyWriter{ResponseWriter: w, before: bytes.Repeat(event, 300)}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	rep := check(t, HTTP(hs.URL, ""), Options{Timeout: 20 * time.Second})
	if got := findings(rep); len(rep.Findings) != 0 {
		t.Errorf("want no finding, got:\n%s", got)
	}
}

// chattyWriter writes before ahead of the first write of an event stream.
type chattyWriter struct {
	http.ResponseWriter
	before []byte
}

func (c *chattyWriter) Write(p []byte) (int, error) {
	if c.before != nil && strings.HasPrefix(c.Header().Get("Content-Type"), "text/event-stream") {
		if _, err := c.ResponseWriter.Write(c.before); err != nil {
			return 0, err
		}
		c.before = nil
	}
	return c.ResponseWriter.Write(p)
}

func (c *chattyWriter) Flush() { c.ResponseWriter.(http.Flusher).Flush() }
