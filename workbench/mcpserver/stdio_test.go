package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
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

// admit passes go-sdk the lines it can take, counting their calls for
// the drain, and answers the rest with a JSON-RPC error naming the line.
func TestAdmit(t *testing.T) {
	for _, c := range []struct {
		line     string
		calls    int    // requests counted when admitted
		code     string // the answer's error code when refused
		protocol string // the version initialize asked for
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 1, "", ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"},{"jsonrpc":"2.0","method":"n"}]`, 2, "", "2025-03-26"},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, 0, "-32600", "2025-06-18"},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, 0, "-32600", "2025-11-25"},
		{`not json`, 0, "-32700", ""},
		{`[]`, 0, "-32600", ""},
		{`42`, 0, "-32600", ""},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, 0, "-32600", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},{}]`, 0, "-32600", ""},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 0, "-32600", ""},
		{`{"jsonrpc":"2.0","id":2E1,"method":"ping"}`, 0, "-32600", ""},
		{`{"jsonrpc":"2.0","id":"1.5","method":"ping"}`, 1, "", ""},
		{`{"jsonrpc":"2.0","method":"ping","params":{"id":1.5},"id":3}`, 1, "", ""},
	} {
		var out bytes.Buffer
		d := &drain{}
		lr := &lineReader{out: &lineWriter{w: &out, d: d}, d: d, log: slog.New(slog.DiscardHandler), line: 7, protocol: c.protocol}
		_, admitted := lr.admit([]byte(c.line + "\n"))
		if admitted != (c.code == "") || d.requests != c.calls {
			t.Errorf("admit(%s) = %v counting %d calls; want %v, %d", c.line, admitted, d.requests, c.code == "", c.calls)
		}
		if want := `"code":` + c.code + `,"message":"line 7: `; c.code != "" && !strings.Contains(out.String(), want) {
			t.Errorf("admit(%s) answered %q, want %s", c.line, out.String(), want)
		}
		if c.code == "" && out.Len() > 0 {
			t.Errorf("admit(%s) answered %q for an admitted line", c.line, out.String())
		}
		if d.responses != 0 {
			t.Errorf("admit(%s): its own answer counted as a response", c.line)
		}
	}
}

// TestAdmitOutOfRangeID: an id that is a number past a float64's range
// is refused for what it is, not as "must be a string, a number or null",
// which it is.
func TestAdmitOutOfRangeID(t *testing.T) {
	for _, id := range []string{"1e999999", "-1e400", strings.Repeat("9", 400)} {
		var out bytes.Buffer
		d := &drain{}
		lr := &lineReader{out: &lineWriter{w: &out, d: d}, d: d, log: slog.New(slog.DiscardHandler), line: 7}
		if _, admitted := lr.admit([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")); admitted {
			t.Errorf("id %.20s admitted", id)
		}
		if got := out.String(); !strings.Contains(got, `"code":-32600,"message":"line 7: \"id\" is a number out of the range this server can echo`) {
			t.Errorf("id %.20s answered %s", id, got)
		}
	}
}

// A message nested past what go-sdk reads is answered Invalid Request in
// the server's words, naming its depth and the bound, at every depth —
// also past encoding/json's own bound of 10000, where it is still JSON.
func TestAdmitTooDeep(t *testing.T) {
	for _, depth := range []int{carrierDepth + 1, 5000, 20000} {
		deep := strings.Repeat(`[`, depth) + `"]"` + strings.Repeat(`]`, depth)
		line := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"a":` + deep + `}}}`
		var out bytes.Buffer
		d := &drain{}
		lr := &lineReader{out: &lineWriter{w: &out, d: d}, d: d, log: slog.New(slog.DiscardHandler), line: 1}
		if _, admitted := lr.admit([]byte(line + "\n")); admitted {
			t.Fatalf("depth %d: admitted", depth)
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"line 1: the message nests %d levels deep; this server reads messages up to %d levels"}}`, depth+3, carrierDepth)
		if got := strings.TrimSpace(out.String()); got != want {
			t.Errorf("depth %d: answered\n%s\nwant\n%s", depth, got, want)
		}
	}
	if lr := (&lineReader{d: &drain{}}); !admitted(lr, `{"jsonrpc":"2.0","method":"n","params":{"a":`+strings.Repeat(`[`, carrierDepth-3)+strings.Repeat(`]`, carrierDepth-3)+"}}\n") {
		t.Error("a message exactly at the bound was refused")
	}
}

// admitted reports whether lr.admit takes line.
func admitted(lr *lineReader, line string) bool {
	_, ok := lr.admit([]byte(line))
	return ok
}

// The version an initialize asks for decides whether batches are taken.
func TestAdmitRemembersProtocol(t *testing.T) {
	for params, want := range map[string]string{
		`{"protocolVersion":"2025-03-26","capabilities":{}}`: "2025-03-26",
		`{"capabilities":{}}`:                                noBatches,
		`{"protocolVersion":7}`:                              noBatches,
	} {
		d := &drain{}
		lr := &lineReader{out: &lineWriter{w: io.Discard, d: d}, d: d, log: slog.New(slog.DiscardHandler)}
		lr.admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + "}\n"))
		if lr.protocol != want {
			t.Errorf("initialize with %s: protocol %q, want %q", params, lr.protocol, want)
		}
	}
}

// countWritten must agree with a decode on every valid message or batch
// whose member names are written without escapes (go-sdk's encoder never
// escapes "id" or "method").
func TestCountWritten(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"{\"id\":1,\"method\":\"x\"}"}],"structuredContent":{"id":2,"method":"m","steps":[{"id":"s0"}]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"jsonrpc":"2.0","id" : null ,"error":{"code":-32700,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"y"}},{"jsonrpc":"2.0","method":"n"}]`,
		` {"result":[1,{"id":2}],"id":9} ` + "\n",
		`{"id":1,"id":null,"result":{}}`,
	} {
		if got, want := countWritten([]byte(line)), decodedResponses([]byte(line)); got != want {
			t.Errorf("countWritten(%s) = %d, a decode counts %d", line, got, want)
		}
	}
}

func FuzzCountWritten(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"\"id\""}}`))
	f.Add([]byte(`[{"id":1,"result":{}},{"method":"m","id":2}]`))
	f.Add([]byte(`{"id":{"method":1},"result":[]}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		got := countWritten(p) // never panics, whatever p is
		if !json.Valid(p) || bytes.Contains(p, []byte(`\u`)) {
			return
		}
		if want := decodedResponses(p); got != want {
			t.Errorf("countWritten(%q) = %d, a decode counts %d", p, got, want)
		}
	})
}

// decodedResponses is countWritten's reference: decode each message's
// members exactly (no case folding) and count those with a non-null id
// and no method.
func decodedResponses(p []byte) int {
	var msgs []map[string]json.RawMessage
	p = bytes.TrimSpace(p)
	if len(p) > 0 && p[0] == '[' {
		var raw []json.RawMessage
		if json.Unmarshal(p, &raw) != nil {
			return 0
		}
		for _, r := range raw {
			var m map[string]json.RawMessage
			if json.Unmarshal(r, &m) == nil {
				msgs = append(msgs, m)
			}
		}
	} else {
		var m map[string]json.RawMessage
		if json.Unmarshal(p, &m) != nil {
			return 0
		}
		msgs = append(msgs, m)
	}
	n := 0
	for _, m := range msgs {
		id, hasID := m["id"]
		_, hasMethod := m["method"]
		if hasID && string(id) != "null" && !hasMethod {
			n++
		}
	}
	return n
}

// fractionalID agrees with a decode on every valid message whose member
// names are written without escapes: the last top-level "id", when it is
// a number written with a fraction or an exponent.
func FuzzFractionalID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`))
	f.Add([]byte(`{"id":{"id":1.5},"method":"m"}`))
	f.Add([]byte(`{"id":1.5,"id":2}`))
	f.Add([]byte(`{"id":-0e0}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		got := fractionalID(p) // never panics, whatever p is
		var m map[string]json.RawMessage
		if bytes.Contains(p, []byte(`\u`)) || json.Unmarshal(p, &m) != nil {
			return
		}
		id := bytes.TrimSpace(m["id"])
		var want []byte
		if len(id) > 0 && (id[0] == '-' || id[0] >= '0' && id[0] <= '9') && bytes.ContainsAny(id, ".eE") {
			want = id
		}
		if !bytes.Equal(got, want) {
			t.Errorf("fractionalID(%q) = %q, a decode finds %q", p, got, want)
		}
	})
}

// requestID finds by a scan the id a decode finds, on every JSON object
// whose member names are written without escapes, and none when the
// object gives "id" twice.
func FuzzRequestID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
	f.Add([]byte(`{"id":"a\"b","params":{"id":3}}`))
	f.Add([]byte(`{"id":1,"id":"two"}`))
	f.Add([]byte(`{"id":null}`))
	f.Add([]byte(`{"id":[1]}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		got := requestID(p) // never panics, whatever p is
		var m map[string]json.RawMessage
		if bytes.Contains(p, []byte(`\u`)) || json.Unmarshal(p, &m) != nil {
			return
		}
		want := idValue(m["id"])
		if idsGiven(p) > 1 {
			want = nil
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("requestID(%q) = %s, a decode finds %s", p, got, want)
		}
	})
}

// idsGiven counts the members named "id" of the JSON object p, by a
// decode.
func idsGiven(p []byte) (n int) {
	dec := json.NewDecoder(bytes.NewReader(p))
	depth, atName := 0, false
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		switch {
		case tok == json.Delim('{') || tok == json.Delim('['):
			depth++
			atName = depth == 1
		case tok == json.Delim('}') || tok == json.Delim(']'):
			depth--
			atName = depth == 1
		case depth == 1 && atName:
			if tok == "id" {
				n++
			}
			atName = false
		default:
			atName = depth == 1
		}
	}
}

// A fractional id is answered with that id, so the client can match the
// error to its request (go-sdk would have answered as id 1).
func TestAdmitEchoesFractionalID(t *testing.T) {
	var out bytes.Buffer
	d := &drain{}
	lr := &lineReader{out: &lineWriter{w: &out, d: d}, d: d, log: slog.New(slog.DiscardHandler), line: 1}
	if admitted(lr, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`+"\n") {
		t.Fatal("admitted a request whose id has a fraction")
	}
	if !strings.HasPrefix(out.String(), `{"jsonrpc":"2.0","id":1.5,"error":{"code":-32600,`) {
		t.Errorf("answer %s, want an Invalid Request for id 1.5", out.String())
	}
}

// A line longer than DefaultMaxMessageBytes is answered with Invalid Request naming
// its id and the limit, read past without being held, and the Session
// goes on with the next line (it used to end the server).
func TestServeIOLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a line of 16 MiB; run without -short")
	}
	s := newServer(t, newFake(), "alice")
	long := `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + strings.Repeat("a", DefaultMaxMessageBytes) + `"}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		long,
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
	}, "\r\n")
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"line 3: the message is %d bytes, more than the %d this server reads in one line"}}`, len(long), DefaultMaxMessageBytes)
	if !strings.Contains(out.String(), want+"\n") || !strings.Contains(out.String(), `"id":6,"result":{}`) {
		t.Errorf("got\n%.2000s\nwant the answer %s and a result for id 6", out.String(), want)
	}
}

// Options.MaxMessageBytes (serve --max-message-bytes) moves the bound
// both ways: with 1 KiB, lines up to it are served and longer ones
// refused naming their id and the limit given, whether the line fits the
// reader's 4 KiB buffer at once (3 KiB) or spans it (6 KiB).
func TestServeIOMaxMessageBytes(t *testing.T) {
	s, err := New(context.Background(), newFake(), Options{Principal: "alice", Version: "test", MaxMessageBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ping := func(id, size int) string {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"x":"`, id)
		return head + strings.Repeat("a", size-len(head)-len(`"}}`)) + `"}}`
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		ping(2, 900),
		ping(3, 3<<10),
		ping(4, 1<<10),
		ping(5, 1<<10+1),
		ping(6, 6<<10),
	}, "\n")
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"line 4: the message is 3072 bytes, more than the 1024 this server reads in one line"}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"line 6: the message is 1025 bytes, more than the 1024 this server reads in one line"}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"line 7: the message is 6144 bytes, more than the 1024 this server reads in one line"}}`,
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("no answer %s in\n%.3000s", want, out.String())
		}
	}
}

// Two arguments of one name are refused as invalid_request, as every
// reader refuses a member name given twice (docs/json.md); read by
// encoding/json alone the last program would have run. encoding/json
// matches a member to a field regardless of case, so "Program" after
// "program" is the same argument given twice, though valid JSON (two
// "program"s are not, and the reader answers them before the handler:
// TestNameTwiceIsNotJSON).
func TestDuplicateArgumentIsRefused(t *testing.T) {
	for _, second := range []string{"Program", "PROGRAM"} {
		f := newFake()
		s := newServer(t, f, "alice")
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo_v1_execute","arguments":{"program":{"steps":["lights.on"]},"` + second + `":{"steps":["doors.open"]}}}}`,
		}, "\n")
		var out bytes.Buffer
		if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		want := `duplicate member name \\\"` + second + `\\\"`
		if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), `invalid_request`) {
			t.Errorf("%s after program: want an invalid_request naming the duplicate, got\n%s", second, out.String())
		}
		if f.next != 0 {
			t.Errorf("%s after program: the service ran %d programs, want none", second, f.next)
		}
	}
}

// A line over the bound is refused without holding it: a Session that
// reads past 8 MiB when the bound is 64 KiB allocates a small part of the
// line (only its first bytes are kept, to name its id), where decoding it
// would allocate several times its size.
func TestLongLineRefusedUnread(t *testing.T) {
	if testing.Short() {
		t.Skip("measures what a Session reading 8 MiB allocates; run without -short")
	}
	s, err := New(context.Background(), newFake(), Options{Principal: "alice", Version: "test", MaxMessageBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	long := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":[` + strings.Repeat("1,", 4<<20) + `1]}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		long,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	var err2 error
	alloc := memtest.Allocated(func() { err2 = s.ServeIO(context.Background(), strings.NewReader(in), &out) })
	if err2 != nil {
		t.Fatal(err2)
	}
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"line 3: the message is %d bytes, more than the 65536 this server reads in one line"}}`, len(long))
	if !strings.Contains(out.String(), want+"\n") || !strings.Contains(out.String(), `"id":3,"result":{}`) {
		t.Errorf("got\n%.2000s\nwant the answer %s and a result for id 3", out.String(), want)
	}
	t.Logf("a Session with a %d-byte line allocated %d bytes", len(long), alloc)
	// The Session itself takes about 0.8 MiB; decoding the line would
	// take over 50.
	if alloc > 2<<20 {
		t.Errorf("a Session refusing a %d-byte line allocated %d bytes, over 2 MiB", len(long), alloc)
	}
}

// decodeScanned, which decodes the members go-sdk reads and leaves the
// params or result a view of the message, gives what go-sdk's own
// jsonrpc.DecodeMessage gives on every message the reader admits to it:
// the same verdict, and the same message; and that message is the one
// the project's own reader reads (jsonpos.Decode): the reader admits no
// member name given twice, of which go-sdk would read the last.
func FuzzDecodeScanned(f *testing.F) {
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"}"}]}}}`,
		`{ "params" : [ 1 , 2 ] , "method" : "m" , "jsonrpc" : "2.0" }`,
		`{"jsonrpc":"2.0","id":2,"result":{"x":null}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"m","data":[1]}}`,
		`{"jsonrpc":"2.0","id":2,"result":7,"params":"p","method":"m"}`,
		`{"jsonrpc":"2.0","id":null,"method":"m","params":null}`,
		`{"jsonrpc":"2.0","id":true,"method":"m"}`,
		`{"jsonrpc":"1.0","method":"m"}`,
		`{"jsonrpc":"2.0","method":7}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","meth\u006fd":"m","params":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b","params":1,"params":2}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","meth\u006fd":"b"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","params":{"method":"b","id":2}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}`,
		`{}`,
	} {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		msg = bytes.TrimSpace(msg)
		if _, bad := weigh(msg); len(msg) == 0 || msg[0] != '{' || nesting(msg) > carrierDepth || bad != "" {
			return // answered by the reader before any decode
		}
		got, gotErr := decodeScanned(msg)
		want, wantErr := jsonrpc.DecodeMessage(msg)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%s: decodeScanned error %v, go-sdk's %v", msg, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decodeScanned gives\n%#v\ngo-sdk\n%#v", msg, got, want)
		}
		read, err := jsonpos.Decode(msg, func(text []byte) any { return string(text) })
		if err != nil {
			t.Fatalf("%s: admitted, but the project's reader refuses it: %v", msg, err)
		}
		if req, ok := want.(*jsonrpc.Request); ok && read.(map[string]any)["method"] != req.Method {
			t.Errorf("%s: go-sdk reads method %q, the project's reader %q", msg, req.Method, read.(map[string]any)["method"])
		}
	})
}

// Under an MCP version with batches, go-sdk's own connection reads each
// batch the reader admits and answers its requests in one array, between
// single messages the reader hands over decoded, in the order read.
func TestServeIOBatch(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`[{"jsonrpc":"2.0","id":5,"result":{}}]`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("no %s in\n%s", want, out.String())
		}
	}
}

// A batch that holds notifications (MCP before 2025-06-18) is answered
// for its requests, in one array, and the Session ends with its input.
// go-sdk's connection waits for an answer to every message of a batch it
// reads, notifications too, so such a batch was never answered and the
// Session waited out its drain at the end of the input; the reader hands
// go-sdk the batch's notifications itself, in their place, and the batch
// of its requests alone.
func TestServeIOBatchWithNotifications(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	start := time.Now()
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the Session took %s to end with its input", took)
	}
	for _, want := range []string{
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("no %s in\n%s", want, out.String())
		}
	}
	if lines := strings.Count(out.String(), "\n"); lines != 3 {
		t.Errorf("%d lines, want the answers to initialize, the batch and the ping:\n%s", lines, out.String())
	}
}

// TestOverlongNamesClipped: an unknown method, tool, prompt or resource
// URI of half a megabyte is answered as go-sdk answers an unknown one,
// -32601 and -32602, but with the name clipped, not echoed whole;
// ordinary unknown names still reach go-sdk, whose answers are left as
// they are.
func TestOverlongNamesClipped(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	long := strings.Repeat("x", 512<<10)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"` + long + `"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{},"name":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"` + strings.Repeat("y", 128) + `","arguments":{"name":"` + long + `"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"nope/` + strings.Repeat("z", 100) + `"}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"pilotage://` + long + `"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"pilotage://guides/nope"}}`,
	}, "\n")
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if len(got) > 8<<10 {
		t.Fatalf("%d bytes of answers, want the names clipped: %.600s", len(got), got)
	}
	for _, want := range []string{
		`"id":2,"error":{"code":-32601,"message":"line 3: method not found: \"xxx`,
		`"id":3,"error":{"code":-32602,"message":"line 4: unknown tool \"xxx`,
		`unknown tool \"` + strings.Repeat("y", 128) + `\"`,
		`zzz\""}`,
		`"id":6,"error":{"code":-32602,"message":"line 7: Resource not found: \"pilotage://xxx`,
		`"id":7,"error":{"code":-32602,"message":"line 8: unknown prompt \"xxx`,
		`"id":8,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"pilotage://guides/nope"}}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %.80s… in\n%s", want, got)
		}
	}
}

// A request before initialize is refused by go-sdk with a plain Go error,
// which its encoder writes with code 0; serve gives it Invalid Request
// (-32600), go-sdk's words kept, and the Session goes on.
func TestServeIORequestBeforeInitialize(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := s.ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"method \"tools/call\" is invalid during session initialization"}}`
	if !strings.Contains(out.String(), want+"\n") {
		t.Errorf("no\n%s\nin\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), `"id":2,"result"`) {
		t.Errorf("initialize after it not answered:\n%s", out.String())
	}
}

// Any other error answer go-sdk gives without a code is an Internal
// error; one with a code keeps it.
func TestCodedErrors(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(1))
	for _, c := range []struct {
		err  error
		want int64
	}{
		{errors.New(`method "tools/call" is invalid during session initialization`), jsonrpc.CodeInvalidRequest},
		{errors.New("something broke"), jsonrpc.CodeInternalError},
		{&jsonrpc.Error{Message: "no code"}, jsonrpc.CodeInternalError},
		{fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad"}), jsonrpc.CodeInvalidParams},
		{&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "nope"}, jsonrpc.CodeMethodNotFound},
	} {
		resp := coded(&jsonrpc.Response{ID: id, Error: c.err}).(*jsonrpc.Response)
		var wire *jsonrpc.Error
		if !errors.As(resp.Error, &wire) || wire.Code != c.want || resp.Error.Error() != c.err.Error() {
			t.Errorf("%v: answered %#v, want code %d and the message kept", c.err, resp.Error, c.want)
		}
	}
	ok := &jsonrpc.Response{ID: id, Result: []byte(`{}`)}
	if coded(ok) != ok {
		t.Error("a result was changed")
	}
}
