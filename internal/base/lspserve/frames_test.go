package lspserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Bodies that are not JSON (JSON-RPC 2.0 §5.1 parse error), JSON that is
// no message (invalid request), and an empty body are each answered
// with id null; the valid request after them is answered too, so the
// connection kept its place in the stream.
func TestUnreadableMessagesAnswered(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	h := &protocol.Handler{Initialize: func(*glsp.Context, *protocol.InitializeParams) (any, error) {
		return protocol.InitializeResult{}, nil
	}}
	go New(Options{}).Serve(context.Background(), b, h)
	a.SetDeadline(time.Now().Add(20 * time.Second))
	go func() {
		for _, body := range []string{"garbage {", `{"jsonrpc":"2.0","id":"x","method":7}`, "", `[1,`,
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`} {
			// The header is written by hand: jsonrpc2's codec would marshal the body.
			fmt.Fprintf(a, "Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(body), body)
		}
	}()
	got := answers(t, a, 5, func(e *jsonrpc2.Error) string { return fmt.Sprintf(":%d", e.Code) }, ":0")
	if want := "[null:-32700 null:-32600 null:-32700 null:-32700 1:0]"; fmt.Sprint(got) != want {
		t.Errorf("answers %v, want %s", got, want)
	}
}

// A frame with no Content-Length, or one longer than the stream, ends
// the connection: no later message can be found.
func TestBrokenFramingEnds(t *testing.T) {
	for _, in := range []string{"Content-Type: x\r\n\r\n{}", "Content-Length: 4000000000\r\n\r\n{}", "no header line\r\n\r\n"} {
		a, b := net.Pipe()
		done := make(chan error)
		go func() { done <- New(Options{}).Serve(context.Background(), b, &protocol.Handler{}) }()
		go func() { fmt.Fprint(a, in); a.Close() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%q: server still running", in)
		}
	}
}

// A body over MaxMessageBytes is skipped unread and answered with an
// invalid-request error naming the limit; the request after it is
// answered, and the server held no more than a small part of the body.
func TestOversizedMessageSkipped(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	h := &protocol.Handler{Initialize: func(*glsp.Context, *protocol.InitializeParams) (any, error) {
		return protocol.InitializeResult{}, nil
	}}
	var logged bytes.Buffer
	go New(Options{Log: &logged}).Serve(context.Background(), b, h)
	a.SetDeadline(time.Now().Add(30 * time.Second))
	runtime.GC()
	var got []string
	n := memtest.Allocated(func() {
		go func() {
			n := MaxMessageBytes + 1
			fmt.Fprintf(a, "Content-Length: %d\r\n\r\n", n)
			chunk := bytes.Repeat([]byte(" "), 1<<20)
			for n > 0 {
				w, _ := a.Write(chunk[:min(n, len(chunk))])
				n -= w
			}
			body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
			fmt.Fprintf(a, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}()
		got = answers(t, a, 2, func(e *jsonrpc2.Error) string { return " " + e.Message }, "")
	})
	want := fmt.Sprintf("null invalid request: a message of %d bytes, more than the 64 MiB this server reads; the message was skipped", MaxMessageBytes+1)
	if len(got) != 2 || got[0] != want || got[1] != "1" {
		t.Errorf("answers %q, want %q then 1", got, want)
	}
	if n > 8<<20 {
		t.Errorf("skipping a %d-byte body allocated %d bytes", MaxMessageBytes+1, n)
	}
}

// A header line of a megabyte ends the connection after MaxHeaderBytes
// with a FramingError (pilotage lsp's exit status 2) that names the
// limit and does not quote the line, and nothing logged besides.
func TestLongHeaderEnds(t *testing.T) {
	a, b := net.Pipe()
	var logged bytes.Buffer
	done := make(chan error)
	go func() { done <- New(Options{Log: &logged}).Serve(context.Background(), b, &protocol.Handler{}) }()
	go func() { a.Write(bytes.Repeat([]byte("X"), 1<<20)); a.Close() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("server still running")
	}
	var fe *FramingError
	if want := "message headers longer than 4096 bytes"; !errors.As(err, &fe) || !strings.Contains(err.Error(), want) || len(err.Error()) > 1024 {
		t.Errorf("Serve = %.300v, want a FramingError under 1 KiB saying %q", err, want)
	}
	if logged.Len() > 0 {
		t.Errorf("logged %q besides", logged.String())
	}
}

// answers reads n responses from conn, each its id followed by what
// errText says of its error, or by ok.
func answers(t *testing.T, conn net.Conn, n int, errText func(*jsonrpc2.Error) string, ok string) []string {
	t.Helper()
	r := bufio.NewReader(conn)
	var got []string
	for range n {
		var m struct {
			ID    json.RawMessage
			Error *jsonrpc2.Error
		}
		if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &m); err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		s := string(m.ID) + ok
		if m.Error != nil {
			s = string(m.ID) + errText(m.Error)
		}
		got = append(got, s)
	}
	return got
}

// Whatever bytes arrive, the frame reader returns without panicking and
// never holds more than what arrived.
func FuzzFrameCodec(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}Content-Length: 1\r\n\r\nx"))
	f.Add([]byte("Content-Length: 4000000000\r\n\r\n"))
	f.Add([]byte("Content-Length: -1\r\nA: b\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		for range len(in) + 1 {
			var body frame
			err := (frameCodec{}).ReadObject(r, &body)
			if len(body) > len(in) {
				t.Fatalf("%d-byte body from %d bytes", len(body), len(in))
			}
			if err != nil {
				return
			}
		}
	})
}

// TestExitWithoutShutdown: exit after shutdown ends Serve with nil; exit
// without it ends Serve with ErrExitWithoutShutdown, which pilotage lsp
// turns into status 1, as the LSP specification asks.
func TestExitWithoutShutdown(t *testing.T) {
	for _, c := range []struct {
		bodies []string
		want   error
	}{
		{[]string{`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`}, nil},
		{[]string{`{"jsonrpc":"2.0","method":"exit"}`}, ErrExitWithoutShutdown},
	} {
		a, b := net.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- New(Options{}).Serve(context.Background(), b, &protocol.Handler{
				Shutdown: func(*glsp.Context) error { return nil }, Exit: func(*glsp.Context) error { return nil }})
		}()
		go func() {
			for _, body := range c.bodies {
				fmt.Fprintf(a, "Content-Length: %d\r\n\r\n%s", len(body), body)
			}
		}()
		go func() { _, _ = io.Copy(io.Discard, a) }()
		select {
		case err := <-done:
			if err != c.want {
				t.Errorf("%v: Serve = %v, want %v", c.bodies, err, c.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: server still running", c.bodies)
		}
		a.Close()
	}
}
