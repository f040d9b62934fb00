package conform

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// twice makes every "protocolVersion" member of a message two: the
// initialize result's, which go-sdk, reading the last, accepts. The
// server's name, "twice", is made two for a client that discovers the
// server without initialize (the 2026-07-28 protocol, which go-sdk
// speaks to go-sdk's servers over stdio).
var twice = regexp.MustCompile(`"protocolVersion":"[^"]*"|"name":"twice"`)

// A tool result whose text block gives a member name twice is malformed
// where the name is given the second time, though encoding/json reads
// it (and the last of the two agrees with structuredContent): the
// fixture of message-json.
func TestMalformedTextBlock(t *testing.T) {
	f := newFake(t, cleanSnapshot)
	f.answer = func(_ context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
		if tool == binding.DiscoverTool {
			text := res.Content[0].(*mcp.TextContent).Text
			res.Content = []mcp.Content{&mcp.TextContent{Text: `{"languages": [],` + text[1:]}}
		}
		return res, nil
	}
	dir := t.TempDir()
	rep := check(t, inMemory(t, f.server()), Options{Dir: dir})
	ruleFixture(t, rep, dir, RuleMessageJSON)
	for _, fd := range rep.Findings {
		if fd.Rule == RuleResultChannel {
			t.Errorf("the text block agrees with structuredContent as encoding/json reads it: %s", fd.Message)
		}
	}
}

// dupWriter writes what it is given with twice's members doubled.
type dupWriter struct{ http.ResponseWriter }

func (d dupWriter) Write(p []byte) (int, error) {
	if _, err := d.ResponseWriter.Write(twice.ReplaceAll(p, []byte("$0,$0"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (d dupWriter) Flush() { d.ResponseWriter.(http.Flusher).Flush() }

// Over streamable HTTP every message is read whole before the go-sdk
// decodes it: an initialize result with protocolVersion twice, which
// the go-sdk reads as the last, is a finding at the second, naming
// initialize.
func TestMalformedMessageOverHTTP(t *testing.T) {
	ref := reference(t, homeflow(t), "").HTTPHandler(map[string]string{"owner-token": "owner"})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref.ServeHTTP(dupWriter{w}, r)
	}))
	defer hs.Close()
	rep := check(t, HTTP(hs.URL, "owner-token"), Options{})
	wantMalformed(t, rep, "initialize", "protocolVersion")
}

// Over stdio too: the server is a child process (TestMain) that writes
// protocolVersion twice.
func TestMalformedMessageOverStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rep := check(t, Command(context.Background(), "env", []string{twiceChildEnv + "=1", self}, io.Discard), Options{Timeout: 20 * time.Second})
	wantMalformed(t, rep, "server/discover", "name")
}

// wantMalformed wants rep to have one message-json finding on the
// answer to op, at the member name (over stdio every result of the
// server carries its name).
func wantMalformed(t *testing.T, rep *report.Report, op, name string) {
	t.Helper()
	var got []report.Finding
	for _, f := range rep.Findings {
		if f.Rule == RuleMessageJSON && f.File == op {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Line != 1 || got[0].Column < 2 ||
		!strings.HasPrefix(got[0].Message, "the server's message is malformed at 1:") || !strings.Contains(got[0].Message, `duplicate member name "`+name+`"`) {
		t.Errorf("want one message-json finding on %s's %s:\n%s", op, name, findings(rep))
	}
}

const twiceChildEnv = "PILOTAGE_CONFORM_TEST_TWICE_CHILD"

// twiceChild is a stdio server declaring the Pilotage extension whose
// messages carry protocolVersion twice (see twice).
func twiceChild() {
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(binding.ExtensionID, binding.ExtensionSettings())
	s := mcp.NewServer(&mcp.Implementation{Name: "twice", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	_ = s.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: dupStdout{}})
	os.Exit(0)
}

type dupStdout struct{}

func (dupStdout) Write(p []byte) (int, error) {
	if _, err := os.Stdout.Write(twice.ReplaceAll(p, []byte("$0,$0"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (dupStdout) Close() error { return os.Stdout.Close() }

// dupPrefix opens a message whose member "a" is given twice: checked,
// it is malformed.
const dupPrefix = `{"jsonrpc":"2.0","method":"m","a":1,"a":2`

// readBody reads body as the go-sdk does an answer's, through the
// bound (limitedBody) and the check (filterBody) of the HTTP transport.
func readBody(w *msgWatch, body string, events bool) (string, error) {
	r := &filterBody{ReadCloser: &limitedBody{ReadCloser: io.NopCloser(strings.NewReader(body)), events: events, over: func() {}}, w: w, events: events}
	got, err := io.ReadAll(r)
	return string(got), err
}

// An event of a text/event-stream whose data lines, each within
// MaxMessageBytes, join past it fails the stream at the bound, as a line
// past it does over stdio: the event is not held past the bound, nor
// checked, nor handed on; the event before it is, "\r\n" endings and
// all.
func TestSSEEventPastBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads events of 24 MiB; run without -short")
	}
	w := newMsgWatch()
	half := strings.Repeat("x", MaxMessageBytes/2)
	first := "id: 1\r\ndata: " + dupPrefix + "}\r\n\r\n"
	got, err := readBody(w, first+
		"data: "+dupPrefix+`,"x":"`+half+"\"\n"+
		`data: ,"y":"`+half+"\"\n"+
		`data: ,"z":"`+half+"\"}\n\n", true)
	if err == nil || got != first {
		t.Errorf("read %q, %v; want the first event and an error", got[:min(len(got), 200)], err)
	}
	if len(w.bad) != 1 {
		t.Errorf("want the first event only malformed, got %d malformed", len(w.bad))
	}
}

// An application/json body past MaxMessageBytes is not checked, though
// its ends are a malformed message: it fails at the bound.
func TestJSONBodyPastBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a body of 16 MiB; run without -short")
	}
	w := newMsgWatch()
	if _, err := readBody(w, dupPrefix[:len(dupPrefix)-6]+strings.Repeat(" ", MaxMessageBytes)+dupPrefix[len(dupPrefix)-6:]+"}", false); err == nil {
		t.Error("a body past the bound was read")
	}
	if len(w.bad) != 0 {
		t.Errorf("a body past the bound was checked: %d malformed", len(w.bad))
	}
}

// The initialize result is checked as every later message is, also when
// conform asks nothing after it (a server that is not a Pilotage server
// and declares no tools): the message was checked only after the go-sdk
// had read it, so a check that ended at once reported it or not by
// chance (about one run in two). A member given twice and a byte that
// is not UTF-8, each run four times (once with -short).
func TestMalformedInitializeOverStdio(t *testing.T) {
	t.Parallel()
	runs := 4
	if testing.Short() {
		runs = 1
	}
	for _, tc := range []struct{ name, result, want string }{
		{"duplicate member", strings.Replace(plainInit, `"capabilities"`, `"protocolVersion":"2025-11-25","capabilities"`, 1), `duplicate member name "protocolVersion"`},
		{"invalid UTF-8", strings.Replace(plainInit, `"name":"sh"`, `"name":"s\377h"`, 1), "invalid UTF-8 byte 0xff in string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range runs {
				rep := shCheck(t, `handshake '`+tc.result+`'; drain`, 20*time.Second)
				if got := ruleFindings(rep, RuleMessageJSON); !strings.HasPrefix(got, "initialize:1:") || !strings.Contains(got, tc.want) {
					t.Fatalf("want a message-json finding on initialize (%s); findings:\n%s", tc.want, findings(rep))
				}
			}
		})
	}
}

// A member given twice that the go-sdk cannot read past (the version
// tag "jsonrpc" written "2.0", then "1.0": encoding/json keeps the last)
// ended the check as a connection failure, exit 2, in the go-sdk's
// words, with no message-json finding
// (/tmp/rev1/repro/conform-dup-member-handshake). The server answered:
// its malformed answer is the message-json finding, and the handshake
// that failed on it one of operation-answers, with nothing else asked.
func TestMalformedHandshakeAnswerBreaksTheSDK(t *testing.T) {
	t.Parallel()
	rep := shCheck(t, `read -r l; printf '{"jsonrpc":"2.0","jsonrpc":"1.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$(id)"; drain`, 20*time.Second)
	got := findings(rep)
	for _, want := range []string{
		`server/discover:1:18: error: the server's message is malformed at 1:18: duplicate member name "jsonrpc"`,
		`server/discover: error: the handshake failed on the server's malformed message: `,
		`invalid message version tag "1.0"`,
		"2 errors, 0 warnings",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}

// What the go-sdk reads of an event stream: an event as the server
// wrote it, unless its data (its data lines joined) is a response the
// go-sdk cannot decode, dropped, its other lines kept; or a batch
// holding one, whose other messages go on one event each.
func TestFilterBodyEvents(t *testing.T) {
	const null = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
	const note = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	for _, c := range []struct{ in, want string }{
		{"id: 7\r\ndata: " + null[:17] + "\r\ndata:" + null[17:] + "\r\n\r\n: ok\n\n", "id: 7\r\n\n: ok\n\n"},
		{"event: message\ndata: [" + null + "," + note + "," + note + "]\n\n", "event: message\ndata: " + note + "\n\ndata: " + note + "\n\n"},
		{"data: " + note + "\r\n\r\ndata: " + note, "data: " + note + "\r\n\r\ndata: " + note + "\n\n"},
	} {
		if got, err := readBody(newMsgWatch(), c.in, true); got != c.want || err != nil {
			t.Errorf("%q: read %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
