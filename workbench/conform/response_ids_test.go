package conform

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A response is the answer to one request the client sent, with its id
// (JSON-RPC 2.0 §5): a server answering tools/list twice, and answering
// an id conform never sent (999), passed; each is a finding now, the
// second response on the request it repeats an answer to. The server
// writes both after the answer conform reads, as conform stops: they
// are checked all the same. The fixture of response-ids.
func TestResponseIDs(t *testing.T) {
	t.Parallel()
	const list = `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n`
	rep := shCheck(t, `handshake '`+strings.Replace(plainInit, `{}`, `{"tools":{}}`, 1)+`'
read -r l; i=$(id)
printf '`+list+list+`{"jsonrpc":"2.0","id":999,"result":{}}\n' "$i" "$i"
drain`, 20*time.Second)
	ruleFixture(t, rep, "", RuleResponseIDs)
	if got := ruleFindings(rep, RuleResponseIDs); strings.Count(got, "error:") != 2 {
		t.Errorf("want 2 response-ids findings:\n%s", findings(rep))
	}
}

// The go-sdk pairs a response with its request by the id's number, so
// it takes "id":3.0 and "id":3e0 as the answer to request 3; conform
// paired ids by their text, and called that answer a response to an id
// it never sent, while the go-sdk had taken it as the answer
// (/tmp/rev1/repro/conform-id-3.0). It pairs them as the go-sdk does
// now, and says the answer spells the request's id otherwise: a client
// that compares ids as written drops it.
func TestResponseIDRespelled(t *testing.T) {
	t.Parallel()
	for _, spelling := range []string{"%s.0", "%se0"} {
		t.Run(spelling, func(t *testing.T) {
			t.Parallel()
			rep := shCheck(t, `handshake '`+strings.Replace(plainInit, `{}`, `{"tools":{}}`, 1)+`'
read -r l; printf '{"jsonrpc":"2.0","id":`+spelling+`,"result":{"tools":[]}}\n' "$(id)"
drain`, 20*time.Second)
			want := "tools/list: error: the response to request 3 gives its id as " + strings.Replace(spelling, "%s", "3", 1) +
				`: the id of a response is the request's (JSON-RPC 2.0 §5); the go-sdk reads it as the number 3, a client comparing ids as written drops the answer [response-ids binding.md]` + "\n\n"
			if got := ruleFindings(rep, RuleResponseIDs); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", findings(rep), want)
			}
			if rep.Summary.Errors != 2 { // and binding-extension's: not a Pilotage server
				t.Errorf("want 2 errors:\n%s", findings(rep))
			}
		})
	}
}

// A notification has no id (JSON-RPC 2.0 §4.1): a message with a method
// and an id is a request of the server, and a notifications/* method, or
// one MCP does not let a server ask a client, was passed silently
// (/tmp/rev1/repro/conform-notification-id, whose id even collides with
// conform's next request). A ping with an id is a request MCP allows;
// an id null is neither a notification's nor an MCP request's.
func TestNotificationWithID(t *testing.T) {
	t.Parallel()
	rep := shCheck(t, `handshake '`+strings.Replace(plainInit, `{}`, `{"tools":{}}`, 1)+`'
read -r l; i=$(id)
printf '{"jsonrpc":"2.0","id":3,"method":"notifications/message","params":{"level":"info","data":"x"}}\n'
printf '{"jsonrpc":"2.0","id":"p","method":"ping"}\n'
printf '{"jsonrpc":"2.0","id":null,"method":"notifications/message","params":{"level":"info","data":"x"}}\n'
printf '{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n'
printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$i"
drain`, 20*time.Second)
	want := `a message of the server: error: a message of method "notifications/message" with the id 3: a notification carries no id (JSON-RPC 2.0 §4.1), and a request of the server is one MCP lets a server send a client (ping, roots/list, sampling/createMessage, elicitation/create) [response-ids binding.md]

a message of the server: error: a message of method "notifications/message" with the id null: a notification carries no id (JSON-RPC 2.0 §4.1), and an MCP request's id is a string or an integer, never null [response-ids binding.md]

a message of the server: error: a message of method "tools/list" with the id 4: a notification carries no id (JSON-RPC 2.0 §4.1), and a request of the server is one MCP lets a server send a client (ping, roots/list, sampling/createMessage, elicitation/create) [response-ids binding.md]

`
	if got := ruleFindings(rep, RuleResponseIDs); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", findings(rep), want)
	}
}

// JSON-RPC gives the id null only to the error answering a request whose
// id could not be read (§5), and every request conform sends has one.
// Such an error, written before the real answer to tools/list, was left
// alone by conform and handed to the go-sdk, which cannot decode a
// response without an id: it stopped reading and failed the call that
// was answered properly (/tmp/rev3/repro/conform, proxy.py errnull:
// `discover: calling "tools/call": invalid request`). So did a response
// with no id at all, and an error with the id null inside a batch.
// Conform reports each under response-ids, keeps it from the go-sdk
// (the rest of a batch goes on to it) and reads the answer after it.
func TestNullIDResponse(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ line, want string }{
		"error": {`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			"an error response with the id null: the server could not read a request's id (JSON-RPC 2.0 §5), though every request conform sent had one; a client cannot pair it with a request"},
		"result": {`{"jsonrpc":"2.0","id":null,"result":{"tools":[]}}`,
			"a response that is no error with the id null: JSON-RPC 2.0 §5 gives that id only to an error, answering a request whose id could not be read, and every request conform sent had one; a client cannot pair it with a request"},
		"no id": {`{"jsonrpc":"2.0","error":{"code":-32600,"message":"invalid request"}}`,
			"a response with no id: a response carries the id of the request it answers, null only when that could not be read (JSON-RPC 2.0 §5); a client cannot pair it with a request"},
		"null id in a batch": {`[{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}},{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}]`,
			"an error response with the id null: the server could not read a request's id (JSON-RPC 2.0 §5), though every request conform sent had one; a client cannot pair it with a request"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := shCheck(t, `handshake '`+strings.Replace(plainInit, `{}`, `{"tools":{}}`, 1)+`'
read -r l
printf '%s\n' '`+c.line+`'
printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$(id)"
drain`, 20*time.Second)
			want := "a message of the server: error: " + c.want + " [response-ids binding.md]\n\n"
			if got := ruleFindings(rep, RuleResponseIDs); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", findings(rep), want)
			}
			if rep.Summary.Errors != 2 { // and binding-extension's: not a Pilotage server
				t.Errorf("want 2 errors:\n%s", findings(rep))
			}
		})
	}
}

// Over streamable HTTP an error with the id null, written before the
// first answer to discover, was reported but still handed to the go-sdk, which
// cannot decode it and ended the connection: the check stopped there.
// Conform keeps it from the go-sdk as over stdio, alone in an event, in
// a batch (whose other message goes on) or in an application/json body
// (a batch of it and the answer), and the clean fake's check runs to
// its end with this one finding.
func TestNullIDResponseOverHTTP(t *testing.T) {
	t.Parallel()
	const null = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
	for name, c := range map[string]struct {
		json bool
		wrap func(answer []byte) []byte
	}{
		"event": {wrap: func(a []byte) []byte { return append([]byte("event: message\ndata: "+null+"\n\n"), a...) }},
		"batch in an event": {wrap: func(a []byte) []byte {
			return append([]byte("id: 0\ndata: ["+null+`,{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}]`+"\n\n"), a...)
		}},
		"json body": {json: true, wrap: func(a []byte) []byte { return append(append([]byte("["+null+","), bytes.TrimSpace(a)...), ']') }},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, cleanSnapshot)
			s := f.server()
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: c.json})
			var once atomic.Bool
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if !bytes.Contains(body, []byte(`"name":"pilotage_discover"`)) || once.Swap(true) {
					h.ServeHTTP(w, r)
					return
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				maps.Copy(w.Header(), rec.Header())
				w.Header().Del("Content-Length")
				w.WriteHeader(rec.Code)
				w.Write(c.wrap(rec.Body.Bytes()))
			}))
			t.Cleanup(hs.Close)
			rep := check(t, HTTP(hs.URL, ""), Options{Timeout: 20 * time.Second})
			want := "a message of the server: error: an error response with the id null: the server could not read a request's id (JSON-RPC 2.0 §5), though every request conform sent had one; a client cannot pair it with a request [response-ids binding.md]\n\n"
			if got := ruleFindings(rep, RuleResponseIDs); got != want || len(rep.Findings) != 1 {
				t.Errorf("got:\n%s\nwant only:\n%s", findings(rep), want)
			}
		})
	}
}
