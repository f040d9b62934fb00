package lspserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

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
	r := bufio.NewReader(a)
	var got []string
	for range 5 {
		var m struct {
			ID     json.RawMessage
			Error  *jsonrpc2.Error
			Result json.RawMessage
		}
		if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &m); err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		code := int64(0)
		if m.Error != nil {
			code = m.Error.Code
		}
		got = append(got, fmt.Sprintf("%s:%d", m.ID, code))
	}
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
