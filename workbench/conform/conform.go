// Package conform checks a running Pilotage server over MCP (binding.md,
// docs/conform.md): the binding and result channels it alone can show, and
// every lint and replay rule on what the server publishes and returns,
// with findings pointing into the files it saves or at the MCP operation.
package conform

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/replay"
)

// Defaults of the bounds; each has a flag in cmd/conform.go.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxItems = 100000
	DefaultMaxPages = 1000
	// DefaultMaxLanguages is far above the Languages one server publishes
	// in practice, far below the tens of thousands a 16 MiB manifest can
	// list.
	DefaultMaxLanguages = 100
)

// Options tune a check.
type Options struct {
	// Dir receives snapshot.json and, with a program, plan.json, run.json
	// and trace.json; findings point into these files. It is created when
	// missing.
	Dir string
	// Timeout bounds each MCP request, initialize included.
	Timeout time.Duration
	// MaxItems bounds the guides and catalog items read per Language;
	// MaxPages the lookup pages and tools/list or resources/list pages.
	MaxItems, MaxPages int
	// MaxLanguages bounds the Languages of the manifest conform reads and
	// checks: the first MaxLanguages; the others get no request and are
	// left out of the snapshot.
	MaxLanguages int
	// Program, when set, is validated (and with Execute, executed) in the
	// Language LanguageID ("" for the manifest's only Language).
	Program    *Program
	LanguageID string
	Execute    bool
	// Status receives progress lines; nil discards them.
	Status io.Writer
	// Version is the client version sent in initialize.
	Version string
	// Disabled rule IDs, of AllRules: conform's own rules' findings are
	// not reported, and lint and replay run without theirs, as with
	// their own --disable.
	Disabled map[string]bool
	// MaxPerRule bounds the lint and replay findings listed per rule and
	// saved file (report.Cap), as lint and replay bound them offline, so
	// a server gets the report its files would get; 0 means
	// report.DefaultMaxPerRule.
	MaxPerRule int
	// Report, with Execute, draws the Run's replay report: the plan with
	// the Run's traces over it and the replay findings on their steps,
	// as pilotage replay --format html draws it.
	Report RunReport
	// Deep, with Execute, re-decides the Run from its recorded values
	// with the program (deep replay), which also asks for a full trace.
	Deep *replay.Deep
}

// RunReport draws the replay of the Run conform executed. Watch sets the
// replay's watchers (replay.Options.OnStep, OnTrace) for the plan; Write
// gets the replay's findings once it ends and says what it wrote. The
// drawing is the caller's (pilotage conform draws with workbench/picture),
// so conform links no graph layout.
type RunReport interface {
	Watch(plan *replay.Plan, opt *replay.Options)
	Write(rep *report.Report) (string, error)
}

// Program is a program to run through the loop, with its input.
type Program struct {
	File  string
	Src   []byte
	Input json.RawMessage // nil when there is none
}

// ProgramError is a --program that is not JSON, for a Language that
// reads JSON programs: the finding validate gives it (its syntax
// diagnostic at the byte), in a report that quotes the program. No check
// of the program can run (exit 2 in the CLI, as for an input that does
// not read).
type ProgramError struct{ Report *report.Report }

func (e *ProgramError) Error() string {
	f := e.Report.Findings[0]
	return fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Column, f.Message)
}

// CheckJSON is the ProgramError of p read as a JSON program, nil when
// it is JSON. The CLI asks it before it starts the server of a program
// named *.json; for one named otherwise, Check asks it once discover
// says the Language reads JSON programs, and language, that Language,
// is said in the hint.
func (p *Program) CheckJSON(language string) *ProgramError {
	f := syntax.MalformedJSON(p.File, p.Src)
	if f == nil {
		return nil
	}
	if language != "" {
		f.Hint += fmt.Sprintf(" (Language %s locates programs by json-pointer)", report.Clip(language))
	}
	rep := &report.Report{Tool: "pilotage conform", Files: []string{p.File}, Sources: map[string][]byte{p.File: p.Src}}
	rep.Add(*f)
	rep.Summary.Files = 1
	return &ProgramError{Report: rep}
}

// ConnectError is a failure to reach or initialize the server: no check
// could run (exit 2 in the CLI).
type ConnectError struct{ Err error }

func (e *ConnectError) Error() string { return e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// Check connects through t, runs every check and returns the report. It
// fails with a *ConnectError when the server cannot be started, reached or
// initialized, with ctx's error when ctx ends first, and with another
// error when the program or the save directory is unusable or a
// Disabled ID names no rule; everything
// wrong with the server is a finding. A Report that cannot be written is
// a *ReportError returned with the report.
func Check(ctx context.Context, t mcp.Transport, opt Options) (*report.Report, error) {
	if err := CheckDisabled(opt.Disabled); err != nil {
		// Before the server is started: nothing would be checked.
		return nil, err
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.MaxItems <= 0 {
		opt.MaxItems = DefaultMaxItems
	}
	if opt.MaxPages <= 0 {
		opt.MaxPages = DefaultMaxPages
	}
	if opt.MaxLanguages <= 0 {
		opt.MaxLanguages = DefaultMaxLanguages
	}
	if opt.Status == nil {
		opt.Status = io.Discard
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "pilotage-conform", Version: opt.Version}, nil)
	cs, err := connect(ctx, client, t, opt.Timeout)
	c := &checker{ctx: ctx, cs: cs, opt: opt, transport: t,
		rep: &report.Report{Tool: "pilotage conform", Sources: map[string][]byte{}}}
	if err != nil {
		var past *pastBound
		why, _ := explain(t, " "+handshakeOp(t), err)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("the server did not answer %s within %v (--timeout); a server slow to start needs a longer --timeout", handshakeRequest(t), opt.Timeout)
		case errors.As(why, &past):
			// The server answered, past the bound of a message: a
			// finding about the server, as is a server that is not a
			// Pilotage server, with nothing else asked.
			c.find(RuleOperationAnswers, cmp.Or(past.op, opInitialize), "", "the answer is past the bound of one message: %v; nothing else was checked", past)
			c.messages()
			return c.finish(), nil
		case malformedAnswer(t) != "":
			// The server answered with a message that is not JSON every
			// reader accepts (a member named twice), which the go-sdk
			// read otherwise than the server meant: the message-json
			// finding says why, and the go-sdk's words what it made of
			// the message.
			c.find(RuleOperationAnswers, malformedAnswer(t), "", "the handshake failed on the server's malformed message: %v; nothing else was checked", cmp.Or(why, err))
			c.messages()
			return c.finish(), nil
		case why != nil:
			err = why
		}
		return nil, &ConnectError{fmt.Errorf("connecting: %w", err)}
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info != nil {
		// The server chooses both: quoted as text reports quote input.
		c.status("connected to %s %s", report.Visible(report.Clip(info.Name)), report.Visible(report.Clip(info.Version)))
	}
	if err := c.run(); err != nil {
		return nil, err
	}
	// Closed before the messages are reported: what the server wrote
	// after the last answer conform waited for (a second response) is
	// read by then, a stdio server's output to its end.
	cs.Close()
	c.messages()
	if err := ctx.Err(); err != nil {
		// Interrupted: the requests since failed for that reason, not the
		// server's, so there is no report to give.
		return nil, err
	}
	if c.unwritten != nil {
		return c.finish(), c.unwritten
	}
	return c.finish(), nil
}

// handshakeOp names the request of the MCP handshake the server left
// unanswered: the go-sdk opens a session with server/discover (MCP
// 2026-07-28) and sends initialize only once that is answered. A server
// may fail before the go-sdk sent its first (a line it wrote at once
// ends the connection before the write): that one is server/discover.
func handshakeOp(t mcp.Transport) string {
	if x, ok := t.(watcher); ok {
		w := x.watch()
		if op := w.pending(); op != "" {
			return op
		}
		if !w.anyAnswered() {
			return opDiscover
		}
	}
	return opInitialize
}

// handshakeRequest is handshakeOp said for a timeout.
func handshakeRequest(t mcp.Transport) string {
	op := handshakeOp(t)
	if op == opDiscover {
		op += " (the request that opens a session, before initialize)"
	}
	return op
}

// malformedAnswer is the operation the first malformed message of the
// server answers, or "" when there is none.
func malformedAnswer(t mcp.Transport) string {
	if x, ok := t.(watcher); ok {
		w := x.watch()
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.bad) > 0 {
			return w.bad[0].op
		}
	}
	return ""
}

// connect initializes the session within the timeout. The go-sdk stops
// waiting for the answer when the context ends, but not a write the peer
// never reads (a child that never reads its standard input, a full OS
// pipe). So on a timeout connect closes the connection itself: that ends
// the write, stops a child process (the go-sdk closes its standard input,
// then signals and kills it) and lets Connect return, and connect waits
// for it, so a failed check leaves no goroutine and no process behind.
func connect(ctx context.Context, client *mcp.Client, t mcp.Transport, timeout time.Duration) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		cs  *mcp.ClientSession
		err error
	}
	ct := &closableTransport{Transport: t}
	done := make(chan result, 1)
	go func() {
		cs, err := client.Connect(ctx, ct, nil)
		done <- result{cs, err}
	}()
	select {
	case r := <-done:
		return r.cs, r.err
	case <-ctx.Done():
		ct.close()
		if r := <-done; r.cs != nil {
			// initialize was answered as the time ran out; too late.
			r.cs.Close()
		}
		return nil, ctx.Err()
	}
}

// explain is what t knows of why its connection failed, or nil, and
// whether the connection is lost for sure.
func explain(t mcp.Transport, awaited string, err error) (why error, lost bool) {
	if x, ok := t.(explainer); ok {
		return x.failure(awaited, err)
	}
	return nil, false
}

// closableTransport keeps the connection its transport opens, so connect
// can close it while the go-sdk is still blocked on it.
type closableTransport struct {
	mcp.Transport
	mu     sync.Mutex
	conn   mcp.Connection
	closed bool
}

func (t *closableTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		// The time ran out while the transport was connecting.
		conn.Close()
		return nil, errors.New("connection closed at the timeout")
	}
	if x, ok := t.Transport.(watcher); ok {
		conn = &watchedConn{Connection: conn, w: x.watch()}
	}
	t.conn = conn
	return conn, nil
}

// close closes the connection, or the one the transport is still opening.
func (t *closableTransport) close() {
	t.mu.Lock()
	conn := t.conn
	t.closed = true
	t.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// checker holds one conform run.
type checker struct {
	ctx       context.Context
	cs        *mcp.ClientSession
	transport mcp.Transport // to explain a closed connection
	opt       Options
	rep       *report.Report
	requests  int
	// stopped is the reason the server can no longer be asked (a timeout,
	// a closed connection); later calls fail with it and add no finding.
	stopped error
	// unwritten is the Run's report that could not be written.
	unwritten *ReportError
	// ruleIDs counts the rules that ran, lint's and replay's included.
	infos []report.RuleInfo
	// files lists the files and operations findings point at, in order.
	files []string
}

func (c *checker) status(format string, args ...any) {
	fmt.Fprintf(c.opt.Status, "pilotage conform: "+format+"\n", args...)
}

// find adds a finding of one of conform's own rules about an operation.
func (c *checker) find(rule, op, pointer, format string, args ...any) {
	c.findAt(rule, op, pointer, jsonpos.Pos{}, format, args...)
}

// findAt is find with the place inside the operation's message or text.
func (c *checker) findAt(rule, op, pointer string, at jsonpos.Pos, format string, args ...any) {
	if c.opt.Disabled[rule] {
		return
	}
	r := ruleInfo(rule)
	c.file(op)
	c.rep.Add(report.Finding{Rule: rule, Section: r.Section, Severity: r.Severity, File: op, Pointer: pointer,
		Line: at.Line, Column: at.Column, Message: fmt.Sprintf(format, args...)})
}

// file records a file or operation the report covers.
func (c *checker) file(name string) {
	for _, f := range c.files {
		if f == name {
			return
		}
	}
	c.files = append(c.files, name)
}

func (c *checker) finish() *report.Report {
	for _, r := range Rules() {
		if !c.opt.Disabled[r.ID] {
			c.rep.Rules = append(c.rep.Rules, r)
		}
	}
	c.rep.Rules = append(c.rep.Rules, c.infos...)
	c.rep.Files = c.files
	c.rep.Summary.Files = len(c.files)
	c.rep.Summary.Checked = map[string]int{"rules": len(c.rep.Rules), "requests": c.requests}
	c.rep.Sort()
	return c.rep
}

// save writes a file into the save directory and returns the name
// findings carry.
func (c *checker) save(name string, data []byte) (string, error) {
	path := filepath.ToSlash(filepath.Join(c.opt.Dir, name))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	c.file(path)
	return path, nil
}

// answer is a tool call's result, as conform reads it.
type answer struct {
	op string
	// raw is the result's JSON: the text block as the server wrote it
	// when it agrees with structuredContent (it keeps the server's member
	// order for the saved files), structuredContent otherwise.
	raw     json.RawMessage
	isError bool
	// err is a carrier failure or a timeout; raw is then nil.
	err error
}

// call calls a tool and checks the result's channel shape (binding.md):
// one text block with the same JSON as structuredContent, which for a
// request error is the error envelope.
func (c *checker) call(name string, args any) answer {
	a := answer{op: "tools/call " + report.Clip(name)}
	res, err := c.request(func(ctx context.Context) (*mcp.CallToolResult, error) {
		return c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	})
	if err != nil {
		a.err = err
		return a
	}
	a.isError = res.IsError
	rule := RuleResultChannel
	if res.IsError {
		rule = RuleRequestErrorChannel
	}
	structured, serr := json.Marshal(res.StructuredContent)
	first := firstText(res.Content)
	var text *mcp.TextContent // the only content block, when it is text
	if len(res.Content) == 1 {
		text = first
	}
	if text != nil {
		c.badJSON(a.op, "/content/0/text", []byte(text.Text))
	}
	switch {
	case res.StructuredContent == nil || serr != nil:
		// The text is all the server said; quoting it shows what went
		// wrong (a "tool not found" text, a stack trace).
		said := ""
		if first != nil {
			said = fmt.Sprintf(" (its text: %q)", report.Clip(compact([]byte(first.Text))))
		}
		c.find(rule, a.op, "/structuredContent", "the result has no structuredContent; the binding carries the response there%s", said)
	case text == nil:
		c.find(rule, a.op, "/content", "the result has %d content blocks (or one that is not text); the binding wants exactly one text block with the JSON", len(res.Content))
	case !sameJSON(structured, []byte(text.Text)):
		c.find(rule, a.op, "/content/0/text", "the text block is not the same JSON as structuredContent")
	default:
		a.raw = json.RawMessage(text.Text)
	}
	if a.raw == nil && serr == nil && res.StructuredContent != nil {
		a.raw = structured
	}
	if a.raw != nil && string(a.raw) != "null" && a.raw[0] != '{' {
		c.find(rule, a.op, "/structuredContent", "structuredContent is not a JSON object")
	} else if a.raw != nil && a.isError {
		c.envelope(a.op, a.raw)
	}
	return a
}

// request runs one MCP request under the timeout. A timeout or a lost
// connection stops the run: asking again would wait again for nothing.
func (c *checker) request(do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if c.stopped != nil {
		return nil, errStopped
	}
	c.requests++
	ctx, cancel := context.WithTimeout(c.ctx, c.opt.Timeout)
	defer cancel()
	res, err := do(ctx)
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		c.stopped = fmt.Errorf("no answer within %v (--timeout); conform stopped asking", c.opt.Timeout)
		return nil, c.stopped
	}
	why, lost := explain(c.transport, "", err)
	switch {
	case lost:
		// The go-sdk may report the line that broke the connection as
		// this call's error, and only the next call as a closed one.
		err = why
	case errors.Is(err, io.EOF):
		// The end of the server's output, which the go-sdk reports as
		// this call's error, and only the next call as a closed one.
	case !errors.Is(err, mcp.ErrConnectionClosed):
		return nil, err
	case why != nil:
		err = why
	}
	c.stopped = fmt.Errorf("the connection closed (%v); conform stopped asking", err)
	return nil, c.stopped
}

// errStopped answers every request after the one that stopped the run;
// its finding has been reported once already.
var errStopped = errors.New("conform stopped asking")

// fail reports a failed request, unless it failed only because an
// earlier one stopped the run.
func (c *checker) fail(rule, op, pointer string, err error, format string, args ...any) {
	if errors.Is(err, errStopped) {
		return
	}
	c.find(rule, op, pointer, format+"%v", append(args, err)...)
}

// expect reports an answer that should be a processed result and is not;
// it returns whether the answer can be used.
func (c *checker) expect(a answer, what string) bool {
	return c.expectAs(RuleOperationAnswers, a, what, "")
}

// expectAs is expect with the finding under rule, and why appended to a
// request error's message.
func (c *checker) expectAs(rule string, a answer, what, why string) bool {
	switch {
	case a.err != nil:
		c.fail(rule, a.op, "", a.err, "%s: ", what)
	case a.raw == nil:
		// the shape finding has been reported by call.
	case a.isError:
		c.find(rule, a.op, "/structuredContent/error", "%s: a request error: %s%s", what, compact(a.raw), why)
	default:
		return true
	}
	return false
}

// firstText is the first content block when it is text, or nil.
func firstText(content []mcp.Content) *mcp.TextContent {
	if len(content) == 0 {
		return nil
	}
	t, _ := content[0].(*mcp.TextContent)
	return t
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// count is "1 page", "2 pages".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// compact shortens JSON for a message.
func compact(raw []byte) string {
	const max = 200
	s := string(raw)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
