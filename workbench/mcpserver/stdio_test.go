package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Requests read before end of input are answered before the Session
// closes, and the Session then ends in the service.
func TestServeIOAnswersBeforeEOF(t *testing.T) {
	f := newFake()
	s := newServer(t, f, "alice")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo_v1_execute","arguments":{"program":{"steps":["lights.on"]}}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"demo_v1_validate","arguments":{"program":{"steps":["doors.open"]}}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"pilotage_discover"}}`,
	}, "\n") // no final newline: the last line ends with the input
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`, `"id":"three","result"`, `"id":4,"result"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %s in\n%s", want, out.String())
		}
	}
	if got := strings.Count(out.String(), "\n"); got != 4 {
		t.Errorf("%d lines written, want 4", got)
	}
	if len(f.endedSessions()) != 1 {
		t.Errorf("ended sessions %v, want the one stdio Session", f.endedSessions())
	}
}

func TestCountMessages(t *testing.T) {
	for _, c := range []struct {
		line      string
		req, resp int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 1, 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, 0},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, 1},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, 0},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"},{"jsonrpc":"2.0","method":"n"}]`, 2, 0},
		{`not json`, 0, 0},
		{``, 0, 0},
	} {
		req, resp := count([]byte(c.line))
		if req != c.req || resp != c.resp {
			t.Errorf("count(%s) = %d, %d; want %d, %d", c.line, req, resp, c.req, c.resp)
		}
	}
}
