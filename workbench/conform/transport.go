package conform

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/workbench/binding"
)

// MaxMessageBytes bounds one message from the server. Over stdio the
// go-sdk reader bounds each line to mcp.DefaultMaxLineLength; over HTTP a
// JSON response body is read whole, so HTTP gets the same bound here.
const MaxMessageBytes = mcp.DefaultMaxLineLength

// StopGrace is how long a child server gets to exit after conform closes
// its standard input, and again after it is sent SIGTERM, before it is
// killed: long enough for a server to finish a write, short enough that
// the end of a check, a timeout or Ctrl-C never waits long for one that
// ignores both.
const StopGrace = 2 * time.Second

// Command is the transport to a server started as a child process that
// speaks MCP on its standard input and output; its standard error goes to
// stderr. When ctx ends (the CLI ends it on SIGINT and SIGTERM), the
// child is sent SIGTERM at once and killed StopGrace later, whatever
// conform is waiting for; when the check ends, closing the connection
// stops it the same way, after first closing its standard input.
//
// It is the go-sdk's own line transport over the child's pipes, not
// mcp.CommandTransport, so that conform sees the child's output and its
// end: a server that fails is then reported as "it wrote this line"
// or "it exited with status 3", not as the go-sdk's error chain.
func Command(ctx context.Context, name string, args []string, stderr io.Writer) mcp.Transport {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = StopGrace
	return &child{cmd: cmd}
}

// explainer is a transport that can say why its connection failed in the
// terms of its carrier, or nil when it knows nothing better than the
// go-sdk's error; lost is true when that reason ends the connection.
// awaited is " initialize" while connecting, "" after.
type explainer interface {
	failure(awaited string) (why error, lost bool)
}

// child runs the server and watches its output and its end.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   lineWatch
	stop  sync.Once
	mu    sync.Mutex
	ended bool
	end   error // cmd.Wait's error once ended: nil for exit status 0
}

func (c *child) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	c.out.r = stdout
	return (&mcp.IOTransport{Reader: io.NopCloser(&c.out), Writer: c}).Connect(ctx)
}

func (c *child) Write(p []byte) (int, error) { return c.stdin.Write(p) }

// Close ends the connection the way the MCP stdio transport asks: close
// the child's standard input, wait StopGrace for it to exit, then send
// SIGTERM, wait as long again, and kill it. It returns once the child
// has been reaped.
func (c *child) Close() error {
	c.stop.Do(func() {
		c.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		wait := func() (error, bool) {
			select {
			case err := <-done:
				return err, true
			case <-time.After(StopGrace):
				return nil, false
			}
		}
		err, ok := wait()
		if !ok {
			c.cmd.Process.Signal(syscall.SIGTERM)
			err, ok = wait()
		}
		if !ok {
			// Wait returns once the killed child is reaped and, at the
			// latest, cmd.WaitDelay later if its children hold the pipes.
			c.cmd.Process.Kill()
			err = <-done
		}
		c.mu.Lock()
		c.ended, c.end = true, err
		c.mu.Unlock()
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.end
}

// failure says what the child did instead of answering: wrote a line
// that is not JSON-RPC, or ended.
func (c *child) failure(awaited string) (error, bool) {
	if line := c.out.bad(); line != "" {
		return fmt.Errorf("the server wrote %q on its standard output before answering%s; that is not a JSON-RPC message: a stdio MCP server writes only JSON-RPC messages there, one per line, and its logs to standard error", line, awaited), true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		return nil, false
	}
	status := "exit status 0"
	if c.end != nil {
		status = c.end.Error()
	}
	return fmt.Errorf("the server ended (%s) without answering%s", status, awaited), true
}

// badLineMax bounds the start of a bad line lineWatch keeps for a message.
const badLineMax = 120

// lineWatch passes the child's standard output through and keeps the
// start of its first line that cannot be a JSON-RPC message (one that
// does not start with '{' or '['): the banner or log line a server
// wrongly writes there. It looks at no more than each line's start, so
// it costs nothing on long messages.
type lineWatch struct {
	r io.Reader
	// midLine: the start of the current line has been seen; keep: that
	// start is bad and still being kept.
	midLine, keep bool
	mu            sync.Mutex
	first         []byte
	done          bool
}

func (w *lineWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	for rest := p[:n]; len(rest) > 0 && !w.done; {
		if w.midLine {
			nl := bytes.IndexByte(rest, '\n')
			if w.keep {
				line := rest
				if nl >= 0 {
					line = rest[:nl]
				}
				w.first = append(w.first, line[:min(len(line), badLineMax-len(w.first))]...)
			}
			if nl < 0 {
				break
			}
			w.midLine, rest = false, rest[nl+1:]
			w.done = w.keep
			continue
		}
		switch rest[0] {
		case ' ', '\t', '\r', '\n':
			rest = rest[1:]
		default:
			w.midLine, w.keep = true, rest[0] != '{' && rest[0] != '['
		}
	}
	return n, err
}

// bad is the start of the first bad line, "" when there was none.
func (w *lineWatch) bad() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.first)
}

// HTTP is the streamable-HTTP transport to url, sending
// "Authorization: Bearer token" when token is not empty.
func HTTP(url, token string) mcp.Transport {
	w := &watched{next: bounded{binding.Bearer{Token: token}}}
	return &httpTransport{StreamableClientTransport: &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: w}}, answers: w}
}

// httpTransport keeps the last answer that was not MCP's, to say why a
// connection failed: a URL that is no MCP endpoint answers 404 or an
// HTML page, which the go-sdk reports as a chain of its own calls.
type httpTransport struct {
	*mcp.StreamableClientTransport
	answers *watched
}

// failure is the last answer that was not MCP's; the go-sdk reports
// such an answer as the error of one call, not of the connection.
func (t *httpTransport) failure(string) (error, bool) { return t.answers.failure(), false }

// watched records the last HTTP exchange that could not carry MCP, and
// forgets it at the next one that could.
type watched struct {
	next http.RoundTripper
	mu   sync.Mutex
	last error
}

func (w *watched) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(r)
	var why error
	switch {
	case err != nil:
		why = fmt.Errorf("%s %s: %w", r.Method, r.URL, err)
	case resp.StatusCode/100 != 2:
		why = fmt.Errorf("%s %s was answered %s, not an MCP response", r.Method, r.URL, resp.Status)
	case resp.StatusCode != http.StatusAccepted && !mcpMediaType(resp.Header.Get("Content-Type")):
		why = fmt.Errorf("%s %s was answered %s with Content-Type %q, not an MCP response (application/json or text/event-stream)", r.Method, r.URL, resp.Status, resp.Header.Get("Content-Type"))
	}
	w.mu.Lock()
	w.last = why
	w.mu.Unlock()
	return resp, err
}

func (w *watched) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// mcpMediaType reports whether a Content-Type is one a streamable-HTTP
// server answers a POST with.
func mcpMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || mt == "text/event-stream")
}

// bounded fails a response body that grows past MaxMessageBytes, instead
// of reading it all into memory.
type bounded struct{ next http.RoundTripper }

func (b bounded) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{ReadCloser: resp.Body, left: MaxMessageBytes}
	return resp, nil
}

type limitedBody struct {
	io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("a response of the server is larger than %d bytes", MaxMessageBytes)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left+1]
	}
	n, err := l.ReadCloser.Read(p)
	l.left -= int64(n)
	return n, err
}
