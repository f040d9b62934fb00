package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// duplicateNames are messages with a member name given twice, each with
// the id and the words of the Parse error that answers it: the place of
// the second name in the message, and its id when the message gives it
// once. Every reader of the project refuses such JSON (docs/json.md);
// go-sdk alone would read the last of the two.
var duplicateNames = []struct {
	name, msg string
	id        string // the answer's id, as JSON
	says      string // its message, after "line N: " on stdio
}{
	{"method", `{"jsonrpc":"2.0","id":2,"method":"tools/list","method":"ping"}`, "2",
		`not JSON at column 47: duplicate member name "method"; a member name appears once in an object`},
	{"id", `{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}`, "null",
		`not JSON at column 25: duplicate member name "id"; a member name appears once in an object`},
	{"id written with escapes", `{"jsonrpc":"2.0","id":2,"\u0069d":3,"method":"ping"}`, "null",
		`not JSON at column 25: duplicate member name "id"; a member name appears once in an object`},
	{"a name in params", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1,"x":2}}`, "2",
		`not JSON at column 57: duplicate member name "x"; a member name appears once in an object`},
	{"a name in params._meta", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"progressToken":1,"progressToken":2}}}`, "2",
		`not JSON at column 78: duplicate member name "progressToken"; a member name appears once in an object`},
	{"a name in capabilities", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{},"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}`, "1",
		`not JSON at column 115: duplicate member name "roots"; a member name appears once in an object`},
	{"an argument the tool does not declare", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo_v1_execute","arguments":{"program":{"steps":["lights.on"]},"note":1,"note":2}}}`, "2",
		`not JSON at column 138: duplicate member name "note"; a member name appears once in an object`},
	{"an argument the tool declares", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo_v1_execute","arguments":{"program":{"steps":["lights.on"]},"program":{"steps":["doors.open"]}}}}`, "2",
		`not JSON at column 129: duplicate member name "program"; a member name appears once in an object`},
	{"a name in a message of a batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping","id":4}]`, "null",
		`not JSON at column 83: duplicate member name "id"; a member name appears once in an object`},
}

// Over stdio each message is answered with its Parse error and the
// Session goes on: the next line is answered, and nothing reached the
// service. A message that names one name in several objects is answered.
func TestNameTwiceIsNotJSON(t *testing.T) {
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range duplicateNames {
		lines := []string{initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, c.msg, `{"jsonrpc":"2.0","id":9,"method":"ping"}`}
		at := 3
		if strings.Contains(c.msg, `"initialize"`) {
			lines, at = append([]string{c.msg}, lines...), 1
		}
		f := newFake()
		var out bytes.Buffer
		if err := newServer(t, f, "alice").ServeIO(context.Background(), strings.NewReader(strings.Join(lines, "\n")), &out); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32700,"message":%q}}`, c.id, fmt.Sprintf("line %d: %s", at, c.says))
		if !strings.Contains(out.String(), "\n"+want+"\n") && !strings.HasPrefix(out.String(), want+"\n") {
			t.Errorf("%s: answered\n%s\nwant the line\n%s", c.name, out.String(), want)
		}
		if !strings.Contains(out.String(), `{"jsonrpc":"2.0","id":9,"result":{}}`) {
			t.Errorf("%s: the Session did not go on to the next line:\n%s", c.name, out.String())
		}
		if f.next != 0 {
			t.Errorf("%s: the service ran %d programs, want none", c.name, f.next)
		}
	}
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"id":1,"method":"x","params":{"id":1},"_meta":{"id":1,"method":"y"}}}`
	if err := newServer(t, newFake(), "alice").ServeIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("a ping naming id and method in several objects: answered %s", got)
	}
}

// Over HTTP each message is refused with 400 and the same Parse error,
// without the line, before go-sdk reads it; in a body of several lines
// the place names the line. A body that is fine is served.
func TestHTTPNameTwiceIsNotJSON(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	post := func(body, wantID, wantSays string) {
		t.Helper()
		resp := postMessage(t, srv.URL, body)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32700,"message":%q}}`, wantID, wantSays)
		if resp.StatusCode != http.StatusBadRequest || string(got) != want || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%.60s…: status %d, %s\n%s\nwant 400 and\n%s", body, resp.StatusCode, resp.Header.Get("Content-Type"), got, want)
		}
	}
	for _, c := range duplicateNames {
		post(c.msg, c.id, c.says)
	}
	post("{\"jsonrpc\": \"2.0\", \"id\": 2,\n  \"method\": \"ping\",\n  \"method\": \"tools/list\"}", "2",
		`not JSON at line 3, column 3: duplicate member name "method"; a member name appears once in an object`)
	resp := postMessage(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("an initialize without a name twice: status %d, want 200", resp.StatusCode)
	}
}

// TestHTTPOverlongNamesClipped: over HTTP too the guard answers an
// overlong method or tool name itself, with the name clipped
// (TestOverlongNamesClipped is the stdio side).
func TestHTTPOverlongNamesClipped(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	srv := httptest.NewServer(s.HTTPHandler(nil))
	defer srv.Close()
	long := strings.Repeat("x", 512<<10)
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":2,"method":"` + long + `"}`:                                `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found: \"` + strings.Repeat("x", 117) + `…\""}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + long + `"}}`: `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool \"` + strings.Repeat("x", 117) + `…\""}}`,
	} {
		resp := postMessage(t, srv.URL, body)
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || string(got) != want {
			t.Errorf("%.60s…: status %d, %.300s\nwant 400 and\n%s", body, resp.StatusCode, got, want)
		}
	}
}
