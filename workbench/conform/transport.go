package conform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/bearer"
	"github.com/pilotage-dev/pilotage/internal/base/report"
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

// DeleteGrace bounds the wait for the answer to the DELETE that ends an
// HTTP session (the go-sdk waits 5 s): the request is a courtesy, and a
// server that hangs on it must not hold conform's end, a timeout's
// included, past --timeout by more than this.
const DeleteGrace = time.Second

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
	return &child{cmd: cmd, msgs: newMsgWatch()}
}

// explainer is a transport that can say why its connection failed in the
// terms of its carrier, or nil when it knows nothing better than err,
// the go-sdk's error; lost is true when that reason ends the connection.
// awaited is " initialize" while connecting, "" after.
type explainer interface {
	failure(awaited string, err error) (why error, lost bool)
}

// child runs the server and watches its output and its end.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// stdout is the read end of the child's standard output: a pipe of
	// conform's own rather than cmd.StdoutPipe, which cmd.Wait closes
	// once the child is reaped, losing a line the child wrote just
	// before it exited if no read had taken it yet.
	stdout *os.File
	out    lineWatch
	// drained is closed once copyOut has read stdout to its end (or
	// Close gave up on it).
	drained chan struct{}
	stop    sync.Once
	mu      sync.Mutex
	ended   bool
	end     error // cmd.Wait's error once ended: nil for exit status 0
	msgs    *msgWatch
}

func (c *child) watch() *msgWatch { return c.msgs }

func (c *child) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c.cmd.Stdout = pw
	if c.stdin, err = c.cmd.StdinPipe(); err == nil {
		err = c.cmd.Start()
	}
	// The child has its own copy of the write end; conform's would keep
	// the output from ever ending.
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	c.stdout, c.out.r, c.drained = pr, pr, make(chan struct{})
	toSDK, fromChild := io.Pipe()
	go c.copyOut(fromChild)
	return (&mcp.IOTransport{Reader: toSDK, Writer: c}).Connect(ctx)
}

// copyOut passes the child's output through lineWatch to the go-sdk, and
// reads it to its end even once the go-sdk has stopped reading (the
// connection closed): so lineWatch sees every line the child wrote, the
// last one before it exited included, whichever of its exit, a write to
// it and the read of its output comes first. Each message is checked
// before the go-sdk is handed any of it, so a check that ends as soon as
// a message is answered (initialize, when conform asks nothing after
// it) has its findings, and a response with the id null is kept from
// the go-sdk (see msgWatch.received). The go-sdk gets a line once it is
// whole, held at most MaxMessageBytes by messageLines; a last line
// without its newline at the end of the output is handed on as it is.
func (c *child) copyOut(to *io.PipeWriter) {
	feed := &sdkFeed{w: to, out: &c.out}
	lines := &messageLines{each: func(line []byte, whole bool) {
		t := bytes.TrimSpace(line)
		switch {
		case !whole:
		case len(t) == 0:
			feed.pass(line, true)
		default:
			if t = c.msgs.received(t); t != nil {
				feed.pass(t, true)
			}
		}
	}}
	_, err := io.Copy(io.MultiWriter(feed, lines), &c.out)
	if !lines.over {
		feed.pass(lines.cur, false)
	}
	to.CloseWithError(err) // nil: the go-sdk reads the end of the output
	c.stdout.Close()
	close(c.drained)
}

// sdkFeed writes lines to the go-sdk's end of the pipe, w, until a write
// fails (the go-sdk closed its end) or out has read a line that ends
// the connection, then drops what follows. Its Write sees each chunk of
// the output as read, and ends the go-sdk's input as soon as out has
// read the start of a line that cannot be a JSON-RPC message (the
// go-sdk would stop reading at it; a banner without a newline never
// ends) or a line past MaxMessageBytes, ended or not: the go-sdk would
// refuse that line at its own bound and stop reading the output, leaving
// the connection open and every later request to fail on its own, each
// with the go-sdk's words; the rest of the line is read and dropped,
// never held. child.failure says what the line was.
type sdkFeed struct {
	w      *io.PipeWriter
	out    *lineWatch
	failed bool
}

func (d *sdkFeed) Write(p []byte) (int, error) {
	if d.failed {
		return len(p), nil
	}
	switch w := d.out.state(); {
	case w.bad != "":
		d.w.CloseWithError(errNotJSON)
		d.failed = true
	case w.long:
		d.w.CloseWithError(errLineTooLong)
		d.failed = true
	}
	return len(p), nil
}

// pass hands the go-sdk line, and its newline if ended.
func (d *sdkFeed) pass(line []byte, ended bool) {
	if !d.failed && len(line) > 0 {
		_, err := d.w.Write(line)
		d.failed = err != nil
	}
	if !d.failed && ended {
		_, err := d.w.Write([]byte{'\n'})
		d.failed = err != nil
	}
}

// errLineTooLong and errNotJSON end the go-sdk's input at a line past
// MaxMessageBytes and at one that cannot be a JSON-RPC message.
var (
	errLineTooLong = fmt.Errorf("a line longer than %d bytes", MaxMessageBytes)
	errNotJSON     = errors.New("a line that is not a JSON-RPC message")
)

// settle waits, at most StopGrace, until the child's output has been
// read to its end: once the child has ended or closed its input, what it
// wrote before may still be in the pipe.
func (c *child) settle() {
	select {
	case <-c.drained:
	case <-time.After(StopGrace):
	}
}

// Write writes to the child's standard input. A broken pipe means the
// child closed it, most often by exiting, which the go-sdk may learn
// from this write before it reads the end of the output.
func (c *child) Write(p []byte) (int, error) {
	n, err := c.stdin.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		c.out.gone()
	}
	return n, err
}

// Close ends the connection the way the MCP stdio transport asks: close
// the child's standard input, wait StopGrace for it to exit, then send
// SIGTERM, wait as long again, and kill it. It returns once the child
// has been reaped.
func (c *child) Close() error {
	c.stop.Do(func() {
		// The child's output gets StopGrace from now, alongside the
		// child itself.
		outGrace := time.Now().Add(StopGrace)
		c.out.stopping()
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
			// latest, cmd.WaitDelay later if its children hold its input.
			c.cmd.Process.Kill()
			err = <-done
		}
		// The output ends with the child, unless a process it started
		// (a daemon) holds it open: that one gets what is left of the
		// grace, then conform stops reading, so no goroutine is left
		// behind. What the child wrote is all in the pipe by now, and a
		// tenth of the grace is ages for copyOut to read it, should the
		// child have used the whole grace to exit.
		select {
		case <-c.drained:
		case <-time.After(max(time.Until(outGrace), StopGrace/10)):
			c.stdout.Close()
			<-c.drained
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
// that cannot be JSON-RPC, or ended; both end the connection. Failing
// that, err (the go-sdk's) gets the start of the last line the child
// wrote, which is most often the message the go-sdk could not read (a
// JSON log line, an error response).
func (c *child) failure(awaited string, err error) (error, bool) {
	w := c.out.state()
	if w.gone && w.bad == "" && c.drained != nil {
		// The child ended, or closed its input (a broken pipe on a
		// write): the line it wrote before, if any, may not have been
		// read yet, and it says more than the end does.
		c.settle()
		w = c.out.state()
	}
	if w.bad != "" {
		return fmt.Errorf("the server wrote %q on its standard output before answering%s; that is not a JSON-RPC message: a stdio MCP server writes only JSON-RPC messages there, one per line, and its logs to standard error", report.Clip(w.bad), awaited), true
	}
	if w.long {
		return &pastBound{c.msgs.pending(), fmt.Sprintf("the server wrote a line of more than %d bytes on its standard output, the most one message may take; it starts %q", MaxMessageBytes, w.longStart)}, true
	}
	if w.gone {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.ended {
			return fmt.Errorf("the server closed its standard output or input without answering%s", awaited), true
		}
		status := "exit status 0"
		if c.end != nil {
			status = c.end.Error()
		}
		return fmt.Errorf("the server ended (%s) without answering%s", status, awaited), true
	}
	if w.last != "" && err != nil {
		return fmt.Errorf("%w (the last line the server wrote on its standard output starts %q)", err, report.Clip(w.last)), false
	}
	return nil, false
}

// pastBound is a message of the server past MaxMessageBytes: an answer,
// unlike a connection that fails or a timeout, so a finding even in the
// handshake (see Check).
type pastBound struct{ op, what string }

func (e *pastBound) Error() string { return e.what }

// badLineMax bounds the start of a line lineWatch keeps for a message.
const badLineMax = 120

// lineWatch passes the child's standard output through, keeping the
// start of its first line that cannot be a JSON-RPC message (one that
// does not start with '{' or '['; the banner or log line a server
// wrongly writes there), of its first line past MaxMessageBytes and of
// its last line, and whether the output ended before conform stopped the
// child. It copies at most badLineMax bytes of a line, so it costs
// little on long messages.
type lineWatch struct {
	r  io.Reader
	mu sync.Mutex
	// cur is the start of the line being read; started: past its
	// leading blanks; n counts its bytes, the blanks included (the
	// go-sdk's bound counts them).
	cur     []byte
	started bool
	n       int
	seen    watchState
	// stopped: conform is stopping the child, so the end of its output
	// is no longer the child's doing.
	stopped bool
}

func (w *lineWatch) stopping() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

// watchState is what lineWatch saw.
type watchState struct {
	bad, last string
	// long: a line grew past MaxMessageBytes; longStart is its start.
	long      bool
	longStart string
	// gone: the child closed its output (or its input, see child.Write)
	// before conform stopped it: it ended on its own.
	gone bool
}

func (w *lineWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	for rest := p[:n]; len(rest) > 0; {
		nl := bytes.IndexByte(rest, '\n')
		line := rest
		if nl >= 0 {
			line = rest[:nl]
		}
		w.n += len(line)
		if !w.started {
			if line = bytes.TrimLeft(line, " \t\r"); len(line) > 0 {
				w.started, w.cur = true, w.cur[:0]
			}
		}
		w.cur = append(w.cur, line[:min(len(line), badLineMax-len(w.cur))]...)
		if w.n > MaxMessageBytes && !w.seen.long {
			w.seen.long, w.seen.longStart = true, string(w.cur)
		}
		if nl < 0 {
			break
		}
		if w.started {
			w.seen = w.current()
		}
		w.started, w.n, rest = false, 0, rest[nl+1:]
	}
	if err == io.EOF && !w.stopped {
		w.seen.gone = true
	}
	return n, err
}

// gone records that the child closed its input before conform stopped it.
func (w *lineWatch) gone() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen.gone = w.seen.gone || !w.stopped
}

// current is what was seen, the line being read included.
func (w *lineWatch) current() watchState {
	s := w.seen
	if !w.started {
		return s
	}
	s.last = string(bytes.TrimRight(w.cur, "\r"))
	if s.bad == "" && w.cur[0] != '{' && w.cur[0] != '[' {
		s.bad = s.last
	}
	return s
}

func (w *lineWatch) state() watchState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.current()
}

// HTTP is the streamable-HTTP transport to url, sending
// "Authorization: Bearer token" when token is not empty.
func HTTP(url, token string) mcp.Transport {
	w := &watched{next: bearer.Bearer{Token: token}, token: token != "", msgs: newMsgWatch()}
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

// failure is an answer past MaxMessageBytes, which ends the connection
// (the go-sdk reports it as "request terminated without response"), or
// else the last answer that was not MCP's, which the go-sdk reports as
// the error of one call, not of the connection.
func (t *httpTransport) failure(string, error) (error, bool) { return t.answers.failure() }

func (t *httpTransport) watch() *msgWatch { return t.answers.msgs }

// watched records the last HTTP exchange that could not carry MCP, and
// forgets it at the next one that could; bounds each answer's body to
// MaxMessageBytes, recording the first past it; and hands the messages
// of the answers that carry MCP to msgs.
type watched struct {
	next  http.RoundTripper
	token bool // a bearer token is sent
	mu    sync.Mutex
	last  error
	past  *pastBound
	msgs  *msgWatch
}

func (w *watched) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		return w.deleteSession(r)
	}
	resp, err := w.next.RoundTrip(r)
	if err == nil {
		// An event stream carries one message an event, a stream that
		// may be long as --timeout lets it; another body is one message.
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		events := mt == "text/event-stream"
		resp.Body = &limitedBody{ReadCloser: resp.Body, events: events, over: w.overBound(r, events)}
	}
	var why error
	switch {
	case err != nil:
		why = fmt.Errorf("%s %s: %w", r.Method, r.URL, err)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		// An MCP endpoint that wants a token (binding.md: the caller's
		// authority over HTTP is a bearer token).
		hint := "the server wants a bearer token: give it with --token"
		if w.token {
			hint = "the server does not accept the --token given"
		}
		why = fmt.Errorf("%s %s was answered %s: %s", r.Method, r.URL, resp.Status, hint)
	case resp.StatusCode == http.StatusNotFound && !strings.HasSuffix(r.URL.Path, "/mcp"):
		// The first guess of many is the server's root; MCP servers,
		// pilotage serve --http among them, commonly answer at /mcp.
		why = fmt.Errorf("%s %s was answered %s, not an MCP response (did you mean %s?)", r.Method, r.URL, resp.Status, r.URL.JoinPath("mcp"))
	case resp.StatusCode/100 != 2:
		why = fmt.Errorf("%s %s was answered %s, not an MCP response", r.Method, r.URL, resp.Status)
	case resp.StatusCode != http.StatusAccepted && !mcpMediaType(resp.Header.Get("Content-Type")):
		why = fmt.Errorf("%s %s was answered %s with Content-Type %q, not an MCP response (application/json or text/event-stream)", r.Method, r.URL, resp.Status, report.Clip(resp.Header.Get("Content-Type")))
	default:
		w.messages(resp)
	}
	w.mu.Lock()
	w.last = why
	w.mu.Unlock()
	return resp, err
}

// messages has the body of resp, an answer carrying MCP, checked and
// filtered as the go-sdk reads it (filterBody). The body of a 202, which
// carries none, is left as it is.
func (w *watched) messages(resp *http.Response) {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" || mt == "text/event-stream" {
		resp.Body = &filterBody{ReadCloser: resp.Body, w: w.msgs, events: mt == "text/event-stream"}
	}
}

// deleteSession sends the DELETE that ends the session, waiting at most
// DeleteGrace for its answer, which carries no MCP and is not judged:
// the go-sdk only closes its body.
func (w *watched) deleteSession(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(r.Context(), DeleteGrace)
	resp, err := w.next.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelBody ends its request's context once the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// overBound is what a body of the answer to r calls when it, or with
// events one event of it, grows past MaxMessageBytes: the first such
// answer is kept, with the request it answers (the one conform waits
// for).
func (w *watched) overBound(r *http.Request, events bool) func() {
	what := "with more than"
	if events {
		what = "with an event of more than"
	}
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.past == nil {
			w.past = &pastBound{w.msgs.pending(), fmt.Sprintf("%s %s was answered %s %d bytes, the most one message may take", r.Method, r.URL, what, MaxMessageBytes)}
		}
	}
}

func (w *watched) failure() (error, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.past != nil {
		return w.past, true
	}
	return w.last, false
}

// mcpMediaType reports whether a Content-Type is one a streamable-HTTP
// server answers a POST with.
func mcpMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || mt == "text/event-stream")
}

// limitedBody fails a response body that grows past MaxMessageBytes,
// or with events one event of which does (the message it carries, as a
// line over stdio), instead of reading it into memory, and calls over.
// An event ends at a blank line, its lines at "\n", "\r\n" or "\r"
// (the text/event-stream format).
type limitedBody struct {
	io.ReadCloser
	events bool
	// n counts the bytes of the message read so far; line those of the
	// line read so far, and cr is whether the last byte was "\r".
	n, line int64
	cr      bool
	over    func()
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.n > MaxMessageBytes {
		l.over()
		return 0, fmt.Errorf("a message of the server is larger than %d bytes", MaxMessageBytes)
	}
	if room := MaxMessageBytes - l.n; !l.events && int64(len(p)) > room {
		// One byte past the bound is enough to know.
		p = p[:room+1]
	}
	n, err := l.ReadCloser.Read(p)
	if !l.events {
		l.n += int64(n)
		return n, err
	}
	for i, b := range p[:n] {
		switch {
		case b == '\n' && l.cr:
			// The end of a "\r\n" the "\r" ended.
		case b == '\n' || b == '\r':
			if l.line == 0 {
				l.n = 0 // a blank line: the event ends
			}
			l.line = 0
		default:
			l.line++
		}
		l.cr = b == '\r'
		if l.n++; l.n > MaxMessageBytes {
			return i + 1, err
		}
	}
	return n, err
}
