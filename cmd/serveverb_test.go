package cmd_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/cmd/serveverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
)

func serveParams(p serveverb.Params) serveverb.Params {
	p.PDL, p.RetainMemory, p.WatchInterval = homeflow, "1MiB", 300*time.Millisecond
	return p
}

// TestServeStdio: homeflow answers an MCP initialize on stdio with the
// Pilotage extension (binding.md), and standard error names what is
// served and as whom; the end of input ends the server cleanly.
func TestServeStdio(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n"
	var out, errb bytes.Buffer
	err := serveverb.Serve(context.Background(), serveParams(serveverb.Params{Principal: "owner"}), verb.Streams{In: strings.NewReader(init), Out: &out, Err: &errb})
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), `"id":1,"result":{"capabilities":{"extensions":{"dev.pilotage/pilotage":{"discover":"pilotage_discover"`) {
		t.Errorf("initialize answered\n%s", out.String())
	}
	if want := "pilotage serve: serving homeflow/v1 from " + homeflow + " on stdio as principal owner\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

// TestServeRefuses: flags that contradict each other are refused before
// the PDL is compiled, exit 2 with the reason.
func TestServeRefuses(t *testing.T) {
	// A port another process listens on is said to be taken, not
	// ill-formed (the address given was well formed).
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name string
		p    serveverb.Params
		want string
	}{
		{"principal over http", serveverb.Params{HTTP: "127.0.0.1:0", Principal: "owner"}, "--principal is for stdio"},
		{"origin on stdio", serveverb.Params{AllowOrigins: []string{"http://a.example"}}, "--allow-origin is for --http"},
		{"interval alone", serveverb.Params{IntervalSet: true}, "add --watch"},
		{"principal unknown", serveverb.Params{Principal: "nobody"}, "nobody"},
		{"bad address", serveverb.Params{HTTP: "nohost"}, "--http nohost"},
		{"port taken", serveverb.Params{HTTP: taken.Addr().String()}, "another process listens there; stop it, or give another port"},
		{"a URL", serveverb.Params{HTTP: "http://127.0.0.1:8080/"}, "give HOST:PORT without a scheme, such as 127.0.0.1:8080"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := verbtest.Call(func(s verb.Streams) error { return serveverb.Serve(context.Background(), serveParams(tc.p), s) })
			if r.Code != verb.ExitUsage || !strings.Contains(r.Err, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.Code, r.Err, tc.want)
			}
		})
	}
}

// TestServeHTTPExposed: --http on an address other hosts can reach (all
// interfaces here) warns on standard error that the server is reachable
// from the network; a loopback address does not.
func TestServeHTTPExposed(t *testing.T) {
	const warning = "pilotage serve: warning: 0.0.0.0:0 listens on every network interface: other machines can reach this server; give 127.0.0.1:PORT to serve this machine only\n"
	for addr, warns := range map[string]bool{"0.0.0.0:0": true, "127.0.0.1:0": false} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errb := &stopWhenListening{stop: cancel}
		err := serveverb.Serve(ctx, serveParams(serveverb.Params{HTTP: addr}), verb.Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: errb})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\n%s", addr, err, errb.String())
		}
		if got := strings.Contains(errb.String(), "warning:"); got != warns || (warns && !strings.Contains(errb.String(), warning)) {
			t.Errorf("--http %s: standard error\n%s\nwant the warning: %v", addr, errb.String(), warns)
		}
	}
}

// stopWhenListening keeps a server's standard error and stops the server
// once it has written the "listening on" line, its last line of
// start-up, so a test of what start-up says waits for nothing more.
type stopWhenListening struct {
	bytes.Buffer
	stop context.CancelFunc
}

func (w *stopWhenListening) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.String(), "pilotage serve: listening on ") {
		w.stop()
	}
	return n, err
}

// TestServeStopsBesideSilentConnection: serve over HTTP stops at once
// while a client holds a connection it has sent nothing on, as Go's HTTP
// client leaves one when another connection takes the request it dialed
// for. http.Server.Shutdown counts such a connection busy for its first
// 5 s, and serve must not wait them out (TestConformServe would take 5 s
// one run in ten).
func TestServeStopsBesideSilentConnection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines := make(chan string, 16)
	done := make(chan error, 1)
	go func() {
		done <- serveverb.Serve(ctx, serveParams(serveverb.Params{HTTP: "127.0.0.1:0"}), verb.Streams{In: strings.NewReader(""), Out: io.Discard, Err: &lineWriter{lines: lines}})
	}()
	_, url, _ := strings.Cut(waitLine(t, lines, "pilotage serve: listening on "), "listening on ")
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The server has accepted it once it answers an HTTP request on
	// another connection.
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	start := time.Now()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Shutdown's wait is 5 s: a bound just below it tells the two apart
	// on a machine too loaded to stop in 3 s.
	if took := time.Since(start); took > 4500*time.Millisecond {
		t.Errorf("serve took %v to stop beside a connection that sent nothing", took)
	}
}

// TestServeStdioReloadKeepsItsClientsView: on stdio, serve acts for its
// one client as the principal it started with, so a --watch reload that
// drops that principal, or declares principals when serve has none,
// would show the client no entry at all. It is refused, said on standard
// error, and the previous definition stays.
func TestServeStdioReloadKeepsItsClientsView(t *testing.T) {
	home, err := os.ReadFile(homeflow)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(home, []byte("\nprincipal "))
	if at < 0 {
		t.Fatal("homeflow.pdl declares no principal")
	}
	none := home[:at+1]
	for _, c := range []struct {
		name, principal string
		from, to        []byte
		want            string
	}{
		{"its principal renamed", "guest", home, bytes.Replace(home, []byte("principal guest"), []byte("principal visitor"), 1),
			"reload: the PDL no longer declares principal guest, as whom serve acts for its client"},
		{"principals declared", "", none, home,
			"reload: the PDL now declares principals, and serve runs with no principal, so its client would see no entry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(filepath.Dir(homeflow))); err != nil {
				t.Fatal(err)
			}
			pdl := filepath.Join(dir, "homeflow.pdl")
			if err := os.WriteFile(pdl, c.from, 0o644); err != nil {
				t.Fatal(err)
			}
			stdin, feed := io.Pipe()
			lines := make(chan string, 16)
			done := make(chan error, 1)
			go func() {
				p := serveParams(serveverb.Params{Principal: c.principal, Watch: true})
				p.PDL, p.WatchInterval = pdl, 20*time.Millisecond
				done <- serveverb.Serve(context.Background(), p, verb.Streams{In: stdin, Out: io.Discard, Err: &lineWriter{lines: lines}})
			}()
			waitLine(t, lines, "pilotage serve: serving homeflow/v1")
			if err := os.WriteFile(pdl, c.to, 0o644); err != nil {
				t.Fatal(err)
			}
			waitLine(t, lines, "pilotage serve: "+c.want)
			feed.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// lineWriter is a served server's standard error, each line sent on
// lines (dropped once its buffer is full: a test waits for one line).
type lineWriter struct {
	lines chan<- string
	line  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.line = append(w.line, p...)
	for {
		line, rest, ok := bytes.Cut(w.line, []byte("\n"))
		if !ok {
			return len(p), nil
		}
		select {
		case w.lines <- string(line):
		default:
		}
		w.line = rest
	}
}

// waitLine waits for a line that starts with prefix and returns it.
func waitLine(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line %q on standard error", prefix)
			return ""
		}
	}
}

// TestServeReloadWarnsOfNonconformance: a --watch reload to a definition
// that compiles but that lint finds errors in is swapped in (serve is
// used against broken servers too), and standard error warns of it
// after the reload line, as it would at start.
func TestServeReloadWarnsOfNonconformance(t *testing.T) {
	const lang = `language "ok/v1" {
  capabilities {
    guides
    %s
  }
  guide core "Core" level=core {
    body "# Core"
  }
}
`
	pdl := filepath.Join(t.TempDir(), "ok.pdl")
	if err := os.WriteFile(pdl, []byte(strings.Replace(lang, "%s", "validate", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin, feed := io.Pipe()
	lines := make(chan string, 16)
	done := make(chan error, 1)
	go func() {
		p := serveParams(serveverb.Params{Watch: true})
		p.PDL, p.WatchInterval = pdl, 20*time.Millisecond
		done <- serveverb.Serve(context.Background(), p, verb.Streams{In: stdin, Out: io.Discard, Err: &lineWriter{lines: lines}})
	}()
	// A conformant definition gets no warning: the first line says what
	// is served.
	if l := waitLine(t, lines, "pilotage serve: "); !strings.HasPrefix(l, "pilotage serve: serving ok/v1") {
		t.Errorf("serve of a conformant definition began with %q", l)
	}
	if err := os.WriteFile(pdl, []byte(strings.Replace(lang, "%s", "trace_fetch", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitLine(t, lines, "pilotage serve: reloaded "+pdl)
	want := "pilotage serve: warning: ok/v1 does not conform to Part II: 2 lint errors (capability-floor, capability-dependencies); pilotage lint " + pdl + " lists them"
	if l := waitLine(t, lines, "pilotage serve: "); l != want {
		t.Errorf("after the reload\n%s\nwant\n%s", l, want)
	}
	feed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
