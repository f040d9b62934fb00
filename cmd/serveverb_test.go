package cmd_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
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
// 5 s, and serve waited them out (TestConformServe took 5 s one run in
// ten).
func TestServeStopsBesideSilentConnection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveverb.Serve(ctx, serveParams(serveverb.Params{HTTP: "127.0.0.1:0"}), verb.Streams{In: strings.NewReader(""), Out: io.Discard, Err: &urlWriter{url: url}})
	}()
	var addr string
	select {
	case u := <-url:
		addr = strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	case err := <-done:
		t.Fatalf("serve ended before it listened: %v", err)
	}
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

// urlWriter is a served server's standard error: it sends the endpoint
// of the "listening on" line on url.
type urlWriter struct {
	url  chan<- string
	line []byte
}

func (w *urlWriter) Write(p []byte) (int, error) {
	w.line = append(w.line, p...)
	for {
		line, rest, ok := bytes.Cut(w.line, []byte("\n"))
		if !ok {
			return len(p), nil
		}
		if _, u, ok := strings.Cut(string(line), "listening on "); ok {
			w.url <- u
		}
		w.line = rest
	}
}
