package conform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// TestMain lets the test binary play a stdio server that dies mid-check
// (see TestServerDiesMidCheck) or one whose messages are malformed
// (TestMalformedMessageOverStdio): a real child process, as conform
// meets it.
func TestMain(m *testing.M) {
	if os.Getenv(dyingChildEnv) != "" {
		dyingChild()
		return
	}
	if os.Getenv(twiceChildEnv) != "" {
		twiceChild()
		return
	}
	// Every message the go-sdk decodes takes a fresh 32 KiB buffer
	// (segmentio/encoding's Decoder), some 12 MB a check, over a live
	// heap of a few MB: at the default pace the collector ran several
	// times a check, a third of this package's CPU. Tests here measure
	// no memory.
	debug.SetGCPercent(400)
	os.Exit(m.Run())
}

const dyingChildEnv = "PILOTAGE_CONFORM_TEST_DYING_CHILD"

// dyingChild answers initialize as a Pilotage server, then, asked for
// the manifest, prints a Go panic on its standard output, as a crashing
// server whose runtime writes there would, and exits 2.
func dyingChild() {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(binding.ExtensionID, binding.ExtensionSettings())
	s := mcp.NewServer(&mcp.Implementation{Name: "dying", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	object := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: binding.DiscoverTool, InputSchema: object, OutputSchema: object},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Println("panic: runtime error: invalid memory address or nil pointer dereference")
			os.Exit(2)
			return nil, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

// plainServer is an MCP server that knows nothing of Pilotage, as the MCP
// project's example servers (everything, memory): a tool of its own when
// tools is set, and the extensions given.
func plainServer(tools bool, extensions ...string) *mcp.Server {
	caps := &mcp.ServerCapabilities{}
	for _, id := range extensions {
		caps.AddExtension(id, map[string]any{})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	if tools {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, nil
			})
	}
	return s
}

// A server that does not declare the extension (binding.md) and has no
// pilotage_discover tool is not a Pilotage server: one finding says so,
// naming what was looked for, and conform asks nothing else (no discover
// call failing, no cascade of Pilotage findings). A server that forgot
// the declaration but publishes the discover tool is checked on, and one
// that declares the extension with settings that are not an object too.
func TestNotAPilotageServer(t *testing.T) {
	const want = `want "dev.pilotage/pilotage": {"discover":"pilotage_discover","version":"1.1"}`
	for _, tc := range []struct {
		name     string
		server   func(t *testing.T) *mcp.Server
		requests int
		findings string
	}{
		{"plain tools server", func(*testing.T) *mcp.Server { return plainServer(true) }, 1,
			"initialize: error: not a Pilotage server: the initialize result does not declare the Pilotage extension in capabilities.extensions (" + want + "; it declares none), and tools/list lists no tool pilotage_discover; nothing else was checked [binding-extension binding.md]\n" +
				"  at /capabilities/extensions/dev.pilotage~1pilotage\n\n" +
				"1 error, 0 warnings in 1 file (checked 1 request, 20 rules)\n"},
		{"no tools, other extensions", func(*testing.T) *mcp.Server { return plainServer(false, "io.example/b", "io.example/a") }, 0,
			"initialize: error: not a Pilotage server: the initialize result does not declare the Pilotage extension in capabilities.extensions (" + want + "; it declares only io.example/a, io.example/b), and it declares no tools capability; nothing else was checked [binding-extension binding.md]\n" +
				"  at /capabilities/extensions/dev.pilotage~1pilotage\n\n" +
				"1 error, 0 warnings in 1 file (checked 0 requests, 20 rules)\n"},
		{"undeclared Pilotage server", func(t *testing.T) *mcp.Server {
			f := newFake(t, cleanSnapshot)
			f.extension = nil
			return f.server()
		}, 18, "initialize: error: the initialize result does not declare the Pilotage extension in capabilities.extensions (" + want + "), though tools/list lists pilotage_discover; checked as a Pilotage server [binding-extension binding.md]\n"},
		{"settings not an object", func(t *testing.T) *mcp.Server {
			f := newFake(t, cleanSnapshot)
			f.extension = true
			return f.server()
		}, 18, "initialize: error: the extension's settings are true, not an object (want {\"discover\":\"pilotage_discover\",\"version\":\"1.1\"}) [binding-extension binding.md]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, inMemory(t, tc.server(t)), Options{})
			got := findings(rep)
			if !strings.HasPrefix(got, tc.findings) || (tc.requests < 2 && got != tc.findings) {
				t.Errorf("findings:\n%s\nwant (first):\n%s", got, tc.findings)
			}
			if n := len(rep.Findings); n != 1 {
				t.Errorf("%d findings, want 1", n)
			}
			if n := rep.Summary.Checked["requests"]; n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if tc.name == "plain tools server" {
				// docs/conform.md shows this report, indented in its list.
				shown := regexp.MustCompile(`(?m)^(.)`).ReplaceAllString(got, "  $1")
				if !strings.Contains(string(readFile(t, "../../docs/conform.md")), shown) {
					t.Errorf("docs/conform.md (\"Servers that are not Pilotage servers\") does not show the report, which is:\n%s", shown)
				}
			}
		})
	}
}

// A discover answered with a tool error carrying only text (what a plain
// MCP server says of a tool it lacks) is one finding that quotes the
// text, not also an empty "a request error" finding.
func TestDiscoverAnsweredWithTextOnly(t *testing.T) {
	f := newFake(t, cleanSnapshot)
	f.answer = func(_ context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
		if tool == binding.DiscoverTool {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Tool pilotage_discover not found"}}}, nil
		}
		return res, nil
	}
	rep := check(t, inMemory(t, f.server()), Options{})
	want := `tools/call pilotage_discover: error: the result has no structuredContent; the binding carries the response there (its text: "Tool pilotage_discover not found") [request-error-channel §8]` + "\n" +
		"  at /structuredContent\n\n"
	if got := findings(rep); !strings.HasPrefix(got, want) || len(rep.Findings) != 1 {
		t.Errorf("findings:\n%s\nwant only:\n%s", got, want)
	}
}

// connectFailure runs conform on tr and returns its connection failure.
func connectFailure(t *testing.T, tr mcp.Transport) string {
	t.Helper()
	return wantConnectError(t, checkConnect(t.TempDir(), tr))
}

// checkConnect runs conform on tr, saving into dir, for a test that
// expects it to fail to connect; it may run on any goroutine.
func checkConnect(dir string, tr mcp.Transport) error {
	_, err := Check(context.Background(), tr, Options{Dir: dir, Timeout: 20 * time.Second})
	return err
}

// wantConnectError returns the message of err, a connection failure.
func wantConnectError(t *testing.T, err error) string {
	t.Helper()
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a connection failure", err)
	}
	return err.Error()
}

// A stdio server that fails in the handshake is reported in its own
// terms, naming the request it left unanswered (server/discover, the
// go-sdk's first, or initialize): the line it wrote on standard output that cannot be JSON-RPC
// (quoted, at most badLineMax bytes), or its exit status; not the
// go-sdk's error chain ("calling "initialize": client is closing: EOF").
func TestStdioServerFailsBeforeInitialize(t *testing.T) {
	const rule = "a stdio MCP server writes only JSON-RPC messages there, one per line, and its logs to standard error"
	cases := []struct {
		name, script, want string
		// suffix: want ends the message, after the go-sdk's error
		suffix bool
	}{
		{"exits at once", "exit 3", "connecting: the server ended (exit status 3) without answering server/discover", false},
		{"exits 0 silently", "exit 0", "connecting: the server ended (exit status 0) without answering server/discover", false},
		{"banner on stdout", `echo "Starting server..."; exec sleep 60`,
			`connecting: the server wrote "Starting server..." on its standard output before answering server/discover; that is not a JSON-RPC message: ` + rule, false},
		{"html after blank lines", `printf '\n  \n<html><body>hi</body></html>\n'; exit 1`,
			`connecting: the server wrote "<html><body>hi</body></html>" on its standard output before answering server/discover; that is not a JSON-RPC message: ` + rule, false},
		{"banner without newline", `printf 'Starting'; exec sleep 60`,
			`connecting: the server wrote "Starting" on its standard output before answering server/discover; that is not a JSON-RPC message: ` + rule, false},
		{"long line", `printf '%0300d\n' 0; exit 1`,
			`connecting: the server wrote "` + strings.Repeat("0", badLineMax) + `" on its standard output before answering server/discover; that is not a JSON-RPC message: ` + rule, false},
		// The request named is the one left unanswered: initialize once
		// server/discover is answered (with "method not found" by a
		// server of an earlier MCP). It was always initialize.
		{"banner after server/discover", `read -r l; printf '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}\n'; read -r l; echo Starting; exec sleep 60`,
			`connecting: the server wrote "Starting" on its standard output before answering initialize; that is not a JSON-RPC message: ` + rule, false},
		// A JSON log line is no JSON-RPC message either; the go-sdk says
		// what it could not read, and conform adds the line. The server
		// is stopped by conform, not ended on its own, so no exit status
		// is named.
		{"JSON log line", `echo '{"level":30,"msg":"listening"}'; exec sleep 60`,
			` (the last line the server wrote on its standard output starts "{\"level\":30,\"msg\":\"listening\"}")`, true},
	}
	// The children that sleep ignore their closed input: conform waits
	// out StopGrace, then stops them with SIGTERM. All cases are checked
	// at once, so the sleepers wait once; as parallel subtests they
	// would wait in turn, -parallel (the number of CPUs) at a time. The
	// test itself waits alongside TestOutputHeldByGrandchild.
	t.Parallel()
	type result struct {
		err  error
		took time.Duration
	}
	results := make([]chan result, len(cases))
	for i, tc := range cases {
		if testing.Short() && strings.Contains(tc.script, "sleep") {
			continue
		}
		results[i] = make(chan result, 1)
		dir := t.TempDir()
		go func() {
			start := time.Now()
			err := checkConnect(dir, Command(context.Background(), "sh", []string{"-c", tc.script}, io.Discard))
			results[i] <- result{err, time.Since(start)}
		}()
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if results[i] == nil {
				t.Skip("the server ignores its closed input, so conform waits out StopGrace before stopping it; run without -short")
			}
			r := <-results[i]
			got := wantConnectError(t, r.err)
			if got != tc.want && !(tc.suffix && strings.HasSuffix(got, tc.want) && !strings.Contains(got, "ended")) {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if r.took > 30*time.Second {
				t.Errorf("took %v", r.took)
			}
		})
	}
}

// A stdio server that dies after initialize ends the check with one
// operation-answers finding naming what it wrote, and conform asks
// nothing more. The child is this test binary (TestMain), a real
// process, as a crashing server is.
func TestServerDiesMidCheck(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr := Command(context.Background(), "env", []string{dyingChildEnv + "=1", self}, io.Discard)
	rep := check(t, tr, Options{Timeout: 20 * time.Second})
	want := `tools/call pilotage_discover: error: discover: the connection closed (the server wrote "panic: runtime error: invalid memory address or nil pointer dereference" on its standard output before answering; that is not a JSON-RPC message: a stdio MCP server writes only JSON-RPC messages there, one per line, and its logs to standard error); conform stopped asking [operation-answers §6]`
	if got := findings(rep); !strings.HasPrefix(got, want+"\n") || len(rep.Findings) != 1 {
		t.Errorf("findings:\n%s\nwant only:\n%s", got, want)
	}
}

// lineWatch keeps the start of the first line that cannot be JSON-RPC
// and of the last line, and sees the end of the output, however the
// reads split it, and passes every byte through.
func TestLineWatch(t *testing.T) {
	long := "{\"x\":\"" + strings.Repeat("y", 5000) + "\"}"
	for _, tc := range []struct {
		out  string
		want watchState
	}{
		{"{\"jsonrpc\":\"2.0\"}\n[1]\n", watchState{last: "[1]", gone: true}},
		{"{\"a\":1}\n  {\"b\":2}\r\n\nnot json\r\nlater junk\n", watchState{bad: "not json", last: "later junk", gone: true}},
		{long + "\nboom", watchState{bad: "boom", last: "boom", gone: true}},
		{long + "\n", watchState{last: long[:badLineMax], gone: true}},
		{strings.Repeat("z", 500), watchState{bad: strings.Repeat("z", badLineMax), last: strings.Repeat("z", badLineMax), gone: true}},
		{" \n\t\n", watchState{gone: true}},
		{"", watchState{gone: true}},
	} {
		for name, r := range map[string]func(io.Reader) io.Reader{
			"whole":    func(r io.Reader) io.Reader { return r },
			"one byte": iotest.OneByteReader,
			"halves":   iotest.HalfReader,
		} {
			w := &lineWatch{r: r(strings.NewReader(tc.out))}
			got, err := io.ReadAll(w)
			if err != nil || !bytes.Equal(got, []byte(tc.out)) {
				t.Errorf("%s %.20q: read %.20q, %v", name, tc.out, got, err)
			}
			if s := w.state(); s != tc.want {
				t.Errorf("%s %.20q: saw %+v, want %+v", name, tc.out, s, tc.want)
			}
		}
	}
	// Before the end of the output, a line being read counts.
	w := &lineWatch{r: strings.NewReader("{}\nStarting")}
	if _, err := w.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if s := w.state(); s != (watchState{bad: "Starting", last: "Starting"}) {
		t.Errorf("saw %+v", s)
	}
}

// --http at a URL that is no MCP endpoint says what it answered: an
// HTML page, a 404, or nothing at all (the connection refused); at one
// that wants a bearer token, that --token is missing or refused.
func TestHTTPNotMCP(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>Welcome</body></html>")
	}))
	defer html.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer locked.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	for _, tc := range []struct{ url, token, want string }{
		{locked.URL + "/mcp", "", `connecting: POST ` + locked.URL + `/mcp was answered 401 Unauthorized: the server wants a bearer token: give it with --token`},
		{locked.URL + "/mcp", "t", `connecting: POST ` + locked.URL + `/mcp was answered 401 Unauthorized: the server does not accept the --token given`},
		{html.URL + "/mcp", "", `connecting: POST ` + html.URL + `/mcp was answered 200 OK with Content-Type "text/html; charset=utf-8", not an MCP response (application/json or text/event-stream)`},
		{missing.URL + "/mcp", "", `connecting: POST ` + missing.URL + `/mcp was answered 404 Not Found, not an MCP response`},
		// The server's root given: MCP endpoints are commonly at /mcp.
		{missing.URL, "", `connecting: POST ` + missing.URL + ` was answered 404 Not Found, not an MCP response (did you mean ` + missing.URL + `/mcp?)`},
		{missing.URL + "/api/", "", `connecting: POST ` + missing.URL + `/api/ was answered 404 Not Found, not an MCP response (did you mean ` + missing.URL + `/api/mcp?)`},
		{closed, "", `connecting: POST ` + closed + `: dial tcp `},
	} {
		if got := connectFailure(t, HTTP(tc.url, tc.token)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("got  %s\nwant %s…", got, tc.want)
		}
	}
}

// overLongScript is a stdio Pilotage server that answers tools/list
// with a log notification, then a line of n bytes, over MaxMessageBytes
// when n is, that starts as the answer would.
func overLongScript(n int) string {
	return fmt.Sprintf(`handshake '%s'
read -r l
echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"listing"}}'
printf '{"jsonrpc":"2.0","id":%%s,"result":{"tools":[],"x":"' "$(id)"
head -c %d /dev/zero | tr '\0' x
echo '"}}'
drain`, pilotageInit, n)
}

// A line past MaxMessageBytes after initialize is one operation-answers
// finding on the request it answers, saying the bound and quoting the
// line's start, and conform stops asking; it is read to its end without
// being held (TestConformOverLongLinePeakRSS holds conform to that).
// Before, it was the go-sdk's "inbound JSON-RPC frame exceeded the
// configured maximum line length" on that request and on each later
// one, the connection being left open.
func TestOverLongLineAfterInitialize(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 17 MiB line; run without -short")
	}
	t.Parallel()
	rep := shCheck(t, overLongScript(MaxMessageBytes+1<<20), 20*time.Second)
	start := `{"jsonrpc":"2.0","id":3,"result":{"tools":[],"x":"`
	start += strings.Repeat("x", badLineMax-len(start))
	want := fmt.Sprintf(`tools/list: error: the connection closed (the server wrote a line of more than 16777216 bytes on its standard output, the most one message may take; it starts %q); conform stopped asking [operation-answers §6]`, start)
	if got := findings(rep); !strings.HasPrefix(got, want+"\n") || len(rep.Findings) != 1 {
		t.Errorf("findings:\n%s\nwant only:\n%s", got, want)
	}
}

// A line past MaxMessageBytes answering initialize is the server's
// answer, past the bound: one operation-answers finding on initialize,
// nothing else asked (exit 1 in the CLI), not a failure to connect.
func TestOverLongInitialize(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 16 MiB line; run without -short")
	}
	t.Parallel()
	rep := shCheck(t, fmt.Sprintf(`read -r l; printf '{"jsonrpc":"2.0","id":%%s,"error":{"code":-32601,"message":"no"}}\n' "$(id)"
read -r l; printf '{"jsonrpc":"2.0","id":%%s,"result":{"x":"' "$(id)"
head -c %d /dev/zero | tr '\0' x
echo '"}}'
drain`, MaxMessageBytes), 20*time.Second)
	want := `initialize: error: the answer is past the bound of one message: the server wrote a line of more than 16777216 bytes on its standard output, the most one message may take; it starts "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"x\":\"xxx`
	if got := findings(rep); !strings.HasPrefix(got, want) || !strings.Contains(got, `"; nothing else was checked [operation-answers §6]`) || len(rep.Findings) != 1 {
		t.Errorf("findings:\n%s\nwant only:\n%s…", got, want)
	}
}

// TestServerInfoShownVisible: conform's status line quotes the server's
// name and version, which the server chooses, as text reports quote
// input: clipped, and with controls and bidirectional characters
// escaped, so a name holding ESC [2J cannot clear the terminal.
func TestServerInfoShownVisible(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "evil\x1b[2J" + strings.Repeat("n", 10000), Version: "1\u202e"}, nil)
	var status bytes.Buffer
	if _, err := Check(context.Background(), inMemory(t, s), Options{Dir: t.TempDir(), Timeout: 10 * time.Second, Status: &status}); err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(status.String(), "\n")
	if !strings.HasPrefix(line, `pilotage conform: connected to evil\x1b[2Jnnn`) || !strings.HasSuffix(line, `… 1\u202e`) || len(line) > 300 {
		t.Errorf("status line of %d bytes: %.300q", len(line), line)
	}
}

// TestNotAPilotageServerWhoseToolsListFails: a server that declares
// tools but whose tools/list fails is not said to list no discover tool,
// which conform never saw: the finding says tools/list did not answer.
func TestNotAPilotageServerWhoseToolsListFails(t *testing.T) {
	s := plainServer(true)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				return nil, errors.New("tools are down")
			}
			return next(ctx, method, req)
		}
	})
	got := findings(check(t, inMemory(t, s), Options{}))
	if !strings.Contains(got, "and tools/list did not answer, so whether it lists pilotage_discover is unknown; nothing else was checked [binding-extension") ||
		strings.Contains(got, "lists no tool") {
		t.Errorf("findings:\n%s", got)
	}
}
