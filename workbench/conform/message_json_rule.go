package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleMessageJSON is the ID of the rule the checks cite as it. Its checks
// are here: each message of the server as the transport reads it
// (msgWatch, fed by transport.go), and the JSON texts conform decodes
// itself: a result's text block (conform.go, call) and the manifest
// resource (binding_resources_rule.go).
const RuleMessageJSON = "message-json"

var _ = registry.Register(&report.RuleInfo{ID: RuleMessageJSON, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: "Every message the server sends, and the JSON of a result's text block and of the manifest resource, is JSON every reader accepts: no object names a member twice, no string holds a byte that is not UTF-8 (docs/json.md)."})

// maxBadMessages bounds the malformed messages a check keeps a finding
// of; past it they are counted.
const maxBadMessages = 20

// malformed is why src, JSON that Go's encoding/json (and so the go-sdk)
// reads, is JSON no reader of pilotage accepts, or nil. encoding/json
// keeps the last of two members of one name and reads a byte that is not
// UTF-8 as U+FFFD, so what conform (or any Go client) reads is then not
// what the server said, and a client that keeps the first name reads
// another message (docs/json.md). JSON encoding/json refuses too is left
// to the check that reads it, which fails on it.
func malformed(src []byte) *jsonpos.SyntaxError {
	var se *jsonpos.SyntaxError
	if err := jsonpos.Check(src); errors.As(err, &se) && json.Valid(src) {
		return se
	}
	return nil
}

// badJSON reports src, the JSON text at pointer in the answer to op, when
// it is malformed; it returns whether src is well-formed.
func (c *checker) badJSON(op, pointer string, src []byte) bool {
	se := malformed(src)
	if se == nil {
		return true
	}
	c.findAt(RuleMessageJSON, op, pointer, se.Pos, "the JSON text is malformed at %d:%d: %s; %s", se.Pos.Line, se.Pos.Column, se.Msg, malformedWhy)
	return false
}

// malformedWhy ends a finding of the rule.
const malformedWhy = "encoding/json keeps the last of two names and reads a byte that is not UTF-8 as U+FFFD, other readers differ, so clients may read different values"

// msgWatch checks each message the server sends, read whole by a
// transport that sees its bytes (stdio, streamable HTTP) before the
// go-sdk decodes it, and keeps of each malformed one the operation it
// answers and the place.
type msgWatch struct {
	mu sync.Mutex
	// ops names the requests conform sent and that are not answered
	// yet, by their id's JSON; answered those answered (response-ids).
	ops, answered map[string]string
	// order holds the ids of the requests sent, oldest first, from the
	// oldest not answered on (pending drops the answered).
	order []string
	bad   []badMessage
	more  int // malformed messages past maxBadMessages
	// strays are the responses that answer no request waiting for one
	// (response-ids), strayMore those past maxBadMessages.
	strays    []strayResponse
	strayMore int
	// requests are the server's requests a client takes for none MCP
	// lets a server send it (a notification written with an id).
	requests []serverRequest
	// respelled are the answers whose id the go-sdk took as their
	// request's though it is written otherwise (3.0 for 3).
	respelled []respelledID
	// nullErrors and nullResults count the responses with the id null,
	// errors and others, and noIDs those with no id: kept from the
	// go-sdk (see received).
	nullErrors, nullResults, noIDs int
}

// serverRequest is a request of the server: its method and id (JSON).
type serverRequest struct{ method, id string }

// serverRequests are the requests MCP lets a server send its client.
var serverRequests = []string{"ping", "roots/list", "sampling/createMessage", "elicitation/create"}

// respelledID is the answer to op, request id, that gave it as written.
type respelledID struct{ id, written, op string }

type badMessage struct {
	op  string
	err *jsonpos.SyntaxError
}

// strayResponse is a response of id, the JSON of its id, to op, the
// request it answers again, or "" when conform never sent that id.
type strayResponse struct{ id, op string }

func newMsgWatch() *msgWatch {
	return &msgWatch{ops: map[string]string{}, answered: map[string]string{}}
}

// watcher is a transport with a msgWatch.
type watcher interface{ watch() *msgWatch }

// sent records the operation of a request conform sends, named as its
// findings name it: the method, with the tool of a tools/call and the
// URI of a resources/read.
func (w *msgWatch) sent(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return
	}
	id, err := json.Marshal(req.ID.Raw())
	if err != nil {
		return
	}
	op := req.Method
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	if json.Unmarshal(req.Params, &p) == nil && p.Name+p.URI != "" {
		op += " " + p.Name + p.URI
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ops[string(id)] = op
	w.order = append(w.order, string(id))
}

// pending is the operation of the oldest request not answered, or "":
// the one the server left unanswered, as conform waits for one answer
// at a time. (When the go-sdk's server/discover probe times out, it
// may send initialize all the same; the probe is what hung.)
func (w *msgWatch) pending() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.order) > 0 {
		if op, ok := w.ops[w.order[0]]; ok {
			return op
		}
		w.order = w.order[1:]
	}
	return ""
}

// anyAnswered reports whether the server answered a request.
func (w *msgWatch) anyAnswered() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.answered) > 0
}

// received checks one message of the server, a JSON-RPC message or
// batch, and returns what of it a transport hands the go-sdk: msg, or
// nil for a response with the id null or with no id, or a batch without
// those. The go-sdk cannot decode such a response, and stops reading
// the connection at one ("invalid request"), failing the call it waits
// for though the server may answer it next.
func (w *msgWatch) received(msg []byte) []byte {
	se := malformed(msg)
	w.mu.Lock()
	defer w.mu.Unlock()
	var batch []json.RawMessage
	if t := bytes.TrimSpace(msg); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &batch) != nil {
		op, held := w.one(msg)
		w.malformedAt(se, op)
		if held {
			return nil
		}
		return msg
	}
	kept := make([]json.RawMessage, 0, len(batch))
	for _, m := range batch {
		if _, held := w.one(m); !held {
			kept = append(kept, m)
		}
	}
	w.malformedAt(se, "")
	switch {
	case len(kept) == len(batch):
		return msg
	case len(kept) == 0:
		return nil
	}
	out, err := json.Marshal(kept)
	if err != nil {
		return nil
	}
	return out
}

// one checks one message of the server (of a batch, or alone), and
// returns the operation it answers, or "", and whether it is a response
// the go-sdk cannot decode (received), with the id null or with none.
func (w *msgWatch) one(msg []byte) (op string, held bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  json.RawMessage `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(msg, &m)
	op = m.Method // a request or notification of the server's
	if op != "" && len(m.ID) > 0 && (string(m.ID) == "null" || !slices.Contains(serverRequests, op)) && len(w.requests) < maxBadMessages {
		var id bytes.Buffer
		_ = json.Compact(&id, m.ID)
		w.requests = append(w.requests, serverRequest{report.Clip(op), report.Clip(id.String())})
	}
	switch {
	case op != "":
	case len(m.ID) == 0 && len(m.Error)+len(m.Result) == 0:
		// No JSON-RPC message (a log line): the go-sdk says what it
		// could not read, and the check ends (child.failure).
	case len(m.ID) == 0:
		// A result or an error without the id that pairs it with its
		// request.
		w.noIDs++
		held = true
	case string(m.ID) == "null":
		// JSON-RPC gives the id null only to the error answering a
		// request whose id could not be read (§5).
		held = true
		if len(m.Error) > 0 && string(m.Error) != "null" {
			w.nullErrors++
		} else {
			w.nullResults++
		}
	default:
		var id bytes.Buffer
		if json.Compact(&id, m.ID) == nil {
			op = w.response(idKey(id.Bytes()), id.String())
		}
	}
	return op, held
}

// malformedAt keeps se, the fault of a malformed message answering op
// (or "" when not known), unless it is nil.
func (w *msgWatch) malformedAt(se *jsonpos.SyntaxError, op string) {
	if se == nil {
		return
	}
	if op == "" {
		op = "a message of the server"
	}
	if len(w.bad) == maxBadMessages {
		w.more++
		return
	}
	w.bad = append(w.bad, badMessage{op, se})
}

// idKey is the id, as JSON, the go-sdk pairs a response of that id
// with: it reads a number as a float64 and keeps its integer part, so
// 3.0 and 3e0 answer request 3. Another id (a string) is its JSON.
func idKey(id []byte) string {
	var f float64
	if len(id) > 0 && id[0] != '"' && json.Unmarshal(id, &f) == nil {
		return strconv.FormatInt(int64(f), 10)
	}
	return string(id)
}

// response pairs a response of id (idKey of written, its JSON) with the
// request conform sent under it, and returns that request's operation;
// a response to an id never sent, or to a request answered already, is
// kept as a stray.
func (w *msgWatch) response(id, written string) string {
	op, waiting := w.ops[id]
	switch {
	case waiting:
		delete(w.ops, id)
		w.answered[id] = op
		if written != id && len(w.respelled) < maxBadMessages {
			w.respelled = append(w.respelled, respelledID{id, report.Clip(written), op})
		}
		return op
	case len(w.strays) == maxBadMessages:
		w.strayMore++
	default:
		w.strays = append(w.strays, strayResponse{report.Clip(written), w.answered[id]})
	}
	return w.answered[id]
}

// messages reports the malformed messages the transport saw, and the
// responses that answered no request waiting for one.
func (c *checker) messages() {
	x, ok := c.transport.(watcher)
	if !ok {
		return
	}
	w := x.watch()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.bad {
		c.findAt(RuleMessageJSON, b.op, "", b.err.Pos, "the server's message is malformed at %d:%d: %s; %s", b.err.Pos.Line, b.err.Pos.Column, b.err.Msg, malformedWhy)
	}
	if w.more > 0 {
		c.find(RuleMessageJSON, "a message of the server", "", "%d more malformed messages of the server", w.more)
	}
	for _, r := range w.strays {
		if r.op != "" {
			c.find(RuleResponseIDs, r.op, "", "a second response to request %s; a request is answered once, so a client takes one of the two, and which is the server's answer is not said (JSON-RPC 2.0 §5)", r.id)
		} else {
			c.find(RuleResponseIDs, "a message of the server", "", "a response to id %s, which conform never sent; a response carries the id of the request it answers (JSON-RPC 2.0 §5), and a client drops one that answers none", r.id)
		}
	}
	for _, r := range w.requests {
		if r.id == "null" {
			c.find(RuleResponseIDs, "a message of the server", "", "a message of method %q with the id null: a notification carries no id (JSON-RPC 2.0 §4.1), and an MCP request's id is a string or an integer, never null", r.method)
			continue
		}
		c.find(RuleResponseIDs, "a message of the server", "", "a message of method %q with the id %s: a notification carries no id (JSON-RPC 2.0 §4.1), and a request of the server is one MCP lets a server send a client (%s)", r.method, r.id, strings.Join(serverRequests, ", "))
	}
	for _, r := range w.respelled {
		c.find(RuleResponseIDs, r.op, "", "the response to request %s gives its id as %s: the id of a response is the request's (JSON-RPC 2.0 §5); the go-sdk reads it as the number %s, a client comparing ids as written drops the answer", r.id, r.written, r.id)
	}
	if w.nullErrors > 0 {
		c.find(RuleResponseIDs, "a message of the server", "", "%s with the id null: the server could not read a request's id (JSON-RPC 2.0 §5), though every request conform sent had one; a client cannot pair it with a request", nullCount(w.nullErrors, "an error response", "error responses"))
	}
	if w.nullResults > 0 {
		c.find(RuleResponseIDs, "a message of the server", "", "%s with the id null: JSON-RPC 2.0 §5 gives that id only to an error, answering a request whose id could not be read, and every request conform sent had one; a client cannot pair it with a request", nullCount(w.nullResults, "a response that is no error", "responses that are no error"))
	}
	if w.noIDs > 0 {
		c.find(RuleResponseIDs, "a message of the server", "", "%s with no id: a response carries the id of the request it answers, null only when that could not be read (JSON-RPC 2.0 §5); a client cannot pair it with a request", nullCount(w.noIDs, "a response", "responses"))
	}
	if w.strayMore > 0 {
		c.find(RuleResponseIDs, "a message of the server", "", "%d more responses answering no request waiting for one", w.strayMore)
	}
}

// watchedConn tells a msgWatch the requests conform sends.
type watchedConn struct {
	mcp.Connection
	w *msgWatch
}

func (c *watchedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.w.sent(msg)
	return c.Connection.Write(ctx, msg)
}

// messageLines hands each line written to it, whole, to each; a line
// longer than MaxMessageBytes, which the go-sdk does not read either, is
// handed on as cut (whole false) and not held.
type messageLines struct {
	each func(line []byte, whole bool)
	cur  []byte
	over bool
}

func (l *messageLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		nl := bytes.IndexByte(p, '\n')
		part := p
		if nl >= 0 {
			part = p[:nl]
		}
		if !l.over && len(l.cur)+len(part) > MaxMessageBytes {
			l.over, l.cur = true, nil
		}
		if !l.over {
			l.cur = append(l.cur, part...)
		}
		if nl < 0 {
			break
		}
		l.each(bytes.TrimSuffix(l.cur, []byte("\r")), !l.over)
		l.cur, l.over, p = l.cur[:0], false, p[nl+1:]
	}
	return n, nil
}

// filterBody is the body of an answer carrying MCP as the go-sdk reads
// it: each message is checked (msgWatch.received) once it is whole, and
// handed on only then, as received returns it. The go-sdk cannot decode
// a response with the id null or with none, and ends the connection at
// one, losing the rest of the check; nor can its streamable client
// decode a batch, so a batch received rewrites reaches it as one event
// a message. An event of an event stream ends at a blank line; another
// body (application/json) is one message, held to its end. What is
// held is bounded by the body it reads, a limitedBody: MaxMessageBytes
// an event, or the whole body.
type filterBody struct {
	io.ReadCloser
	w      *msgWatch
	events bool
	// in is what was read of the body and not yet checked: the start of
	// an event, or the whole body; the line being read starts at line,
	// and seen bytes of in were searched for its end (searching a long
	// line from its start at every read would be quadratic). out[off:]
	// is what was checked and not yet read, err the body's error,
	// returned once out is read.
	in         []byte
	line, seen int
	out        []byte
	off        int
	err        error
	data       []byte
}

func (b *filterBody) Read(p []byte) (int, error) {
	for b.off == len(b.out) && b.err == nil {
		b.out, b.off = b.out[:0], 0
		in := len(b.in)
		b.in = slices.Grow(b.in, 32<<10)
		n, err := b.ReadCloser.Read(b.in[in : in+32<<10])
		b.in = b.in[:in+n]
		if b.events {
			b.eventsRead()
		}
		if b.err = err; err == io.EOF && len(b.in) > 0 {
			b.atEnd()
		}
	}
	n := copy(p, b.out[b.off:])
	if b.off += n; b.off < len(b.out) {
		return n, nil
	}
	return n, b.err
}

// eventsRead hands on each event of in that a blank line has ended, and
// keeps the rest.
func (b *filterBody) eventsRead() {
	start := 0
	for {
		nl := bytes.IndexByte(b.in[b.seen:], '\n')
		if nl < 0 {
			b.seen = len(b.in)
			break
		}
		end := b.seen + nl
		line := bytes.TrimSuffix(b.in[b.line:end], []byte("\r"))
		b.line, b.seen = end+1, end+1
		if len(line) == 0 {
			b.event(b.in[start:b.line])
			start = b.line
		}
	}
	if start > 0 {
		// Only then: copying an event that has not ended onto itself at
		// every read would be quadratic in its size.
		b.in, b.line, b.seen = append(b.in[:0], b.in[start:]...), b.line-start, b.seen-start
	}
}

// atEnd checks what is left at the end of the body: the whole of a JSON
// body, or an event the stream ended before its blank line (the go-sdk
// reads it all the same).
func (b *filterBody) atEnd() {
	if b.events {
		if b.in[len(b.in)-1] != '\n' {
			b.in = append(b.in, '\n')
		}
		b.event(append(b.in, '\n'))
	} else if kept := b.w.received(b.in); bytes.Equal(kept, b.in) {
		b.out = b.in
	} else if msgs := split(kept); len(msgs) == 1 {
		b.out = msgs[0]
	} else {
		// An application/json body is one message: the go-sdk refuses a
		// batch, as it would have the one the server sent.
		b.out = kept
	}
	b.in = nil
}

// event hands on ev, one event ending at its blank line: as it is
// unless its data, its data lines joined, is a message received keeps
// from the go-sdk or rewrites; then its other lines (an id, a comment)
// go on, and each message kept as one data line of an event of its own.
func (b *filterBody) event(ev []byte) {
	// data is the one data line in ev, as most events have, or their
	// join in b.data.
	var data []byte
	n := 0
	for l := range bytes.Lines(ev) {
		v, ok := bytes.CutPrefix(l, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(bytes.TrimRight(v, "\r\n"), []byte(" "))
		switch n++; n {
		case 1:
			data = v
		case 2:
			b.data = append(append(append(b.data[:0], data...), '\n'), v...)
		default:
			b.data = append(append(b.data, '\n'), v...)
		}
	}
	switch n {
	case 0:
		b.out = append(b.out, ev...)
		return
	case 1:
	default:
		data = b.data
	}
	kept := b.w.received(data)
	if bytes.Equal(kept, data) {
		b.out = append(b.out, ev...)
		return
	}
	for l := range bytes.Lines(ev) {
		if t := bytes.TrimRight(l, "\r\n"); len(t) > 0 && !bytes.HasPrefix(t, []byte("data:")) {
			b.out = append(b.out, l...)
		}
	}
	for i, m := range split(kept) {
		if i > 0 {
			b.out = append(b.out, '\n')
		}
		b.out = append(append(append(b.out, "data: "...), m...), '\n')
	}
	b.out = append(b.out, '\n')
}

// split is the messages of kept, what msgWatch.received hands on: none,
// the messages of a batch, or one.
func split(kept []byte) []json.RawMessage {
	var batch []json.RawMessage
	switch t := bytes.TrimSpace(kept); {
	case len(t) == 0:
		return nil
	case t[0] == '[' && json.Unmarshal(t, &batch) == nil:
		return batch
	}
	return []json.RawMessage{kept}
}

// nullCount names n responses with the id null: one, or n and many.
func nullCount(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}
