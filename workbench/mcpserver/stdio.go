package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DrainTimeout bounds how long end of input waits for answers still being
// computed (a Run is bounded by its own time limit, usually far less).
const DrainTimeout = time.Minute

// ServeIO serves one Session of newline-delimited JSON-RPC (the stdio
// framing) on r and w, between guards go-sdk's own stdio transport
// lacks:
//
//   - a line that is not a JSON-RPC 2.0 message (a stray log line, a typo
//     in a hand-written request) would end the whole Session and drop the
//     answers still being computed; JSON-RPC 2.0 §5.1 instead answers it
//     with Parse error or Invalid Request and carries on, so the reader
//     writes that answer itself, logs where the line went wrong, and
//     passes only messages on;
//   - a line longer than go-sdk's frame limit would end the Session too;
//     the reader answers a line longer than Options.MaxMessageBytes with
//     Invalid Request, reads past the rest of it without holding it, and
//     carries on;
//   - a line with two members of one name anywhere in it would be read
//     by go-sdk as the last of them; the reader checks it first as every
//     JSON reader of the project does and answers it with Parse error at
//     the second name (weigh);
//   - a line within the bound can still cost many times its size once
//     decoded (a million one-character values in 2 MB); the reader
//     checks it first without decoding and answers one whose values
//     would take more than the budget every JSON reader of the project
//     holds to with Invalid Request (weigh);
//   - end of input would end the Session at once, so a client that writes
//     its requests and closes stdin (`printf … | pilotage serve`) would
//     get nothing back; the reader holds end of input until every request
//     read has been answered (or DrainTimeout passes);
//   - go-sdk queues every request it reads for its handler, without
//     bound, and a client can write requests faster than they are
//     answered (a pipe of validates of distinct programs: 120,000 held
//     325 MB, most of it the queue); the reader reads no further line
//     while maxPending requests are unanswered, so the client's writes
//     wait in the pipe instead.
//
// Each line is read once: the reader frames it and decodes a message
// with go-sdk's own jsonrpc.DecodeMessage, and hands go-sdk the decoded
// message (lineConn), where go-sdk's stdio transport would read the line
// again through a JSON decoder of its own, copy it out, try it as a
// batch and decode it.
func (s *Server) ServeIO(ctx context.Context, r io.Reader, w io.Writer) error {
	d := &drain{}
	d.answered = sync.NewCond(&d.mu)
	out := &lineWriter{w: w, d: d}
	in := &lineReader{in0: r, in: bufio.NewReaderSize(r, readBuffer), out: out, d: d, log: s.opts.Logger, max: s.maxMessage}
	err := s.run(ctx, &lineTransport{in: in, out: out})
	s.WaitSessions()
	return err
}

// readBuffer is the reader's buffer: a line longer than it is read in
// fragments of its size.
const readBuffer = 64 << 10

// DefaultMaxMessageBytes is the largest JSON-RPC message (or batch) the
// server reads, a stdio line or an HTTP request body, unless
// Options.MaxMessageBytes says otherwise: go-sdk's stdio frame limit, as
// large as a Language's default memory limit (§10.1). pilotage serve
// gives its own, the largest request its Languages take
// (serveverb.MessageBound).
const DefaultMaxMessageBytes = mcp.DefaultMaxLineLength

// maxMessage is the largest message the server reads now.
func (s *Server) maxMessage() int64 { return s.maxBytes.Load() }

// SetMaxMessageBytes sets the largest message the server reads from the
// next one on, in every Session (0 is DefaultMaxMessageBytes): pilotage
// serve --watch sets it to the largest request of the Languages it has
// just loaded, whose limits may have changed.
func (s *Server) SetMaxMessageBytes(n int64) {
	if n <= 0 {
		n = DefaultMaxMessageBytes
	}
	s.maxBytes.Store(n)
}

// run serves one Session on t until it ends or ctx is done, as go-sdk's
// Server.Run does, but connected by Connect so it hears the Notices.
func (s *Server) run(ctx context.Context, t mcp.Transport) error {
	ss, err := s.Connect(ctx, t)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-ended
		return ctx.Err()
	case err := <-ended:
		return err
	}
}

// maxPending is how many requests read and not yet answered the reader
// lets go-sdk hold before it reads the next line. Each holds at most a
// message and its decoding; the requests go-sdk runs at once are far
// fewer on a stdio Session, so a client that sends ahead loses nothing.
const maxPending = 64

// drain counts the requests read and the responses written.
type drain struct {
	mu        sync.Mutex
	answered  *sync.Cond
	requests  int  // requests read (messages with an id and a method)
	responses int  // responses written (messages with an id and no method)
	closed    bool // the Session's connection closed: nothing waits for room
}

// room blocks while maxPending requests read are unanswered, until the
// connection closes. A request waiting for the client would wait for
// nothing here: the server sends the client no request of its own.
func (d *drain) room() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for !d.closed && d.requests-d.responses >= maxPending {
		d.answered.Wait()
	}
}

// wait blocks until every request read has been answered, or DrainTimeout.
func (d *drain) wait() {
	d.mu.Lock()
	defer d.mu.Unlock()
	deadline := time.AfterFunc(DrainTimeout, func() {
		d.mu.Lock()
		d.responses = d.requests
		d.mu.Unlock()
		d.answered.Broadcast()
	})
	defer deadline.Stop()
	for d.responses < d.requests {
		d.answered.Wait()
	}
}

// lineReader passes go-sdk the lines of in that are JSON-RPC messages,
// answers the others, and counts requests for the drain.
type lineReader struct {
	in0  io.Reader // what in reads, for Close
	in   *bufio.Reader
	out  *lineWriter
	d    *drain
	log  interface{ Warn(string, ...any) }
	line int          // lines read, for the log
	max  func() int64 // the longest line read now, without its line end
	// protocol is the MCP version the client's initialize asked for:
	// go-sdk ends the Session on a batch under 2025-06-18 and later, so
	// the reader answers such a batch itself.
	protocol string
	err      error // the reader's error, returned once its last line is handed on
}

// next reads lines until one go-sdk can take, answering the others, and
// returns it; at end of input it first waits until every request read
// has been answered.
func (lr *lineReader) next() (incoming, error) {
	for lr.err == nil {
		lr.d.room()
		line, size, limit, err := lr.readLine()
		lr.err = err
		switch {
		case int64(size) > limit:
			lr.line++
			lr.refuse(line, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is %d bytes, more than the %d this server reads in one line", size, limit))
		case len(bytes.TrimSpace(line)) > 0: // go-sdk skips blank lines
			lr.line++
			if in, ok := lr.admit(line); ok {
				return in, nil
			}
		}
	}
	if errors.Is(lr.err, io.EOF) {
		lr.d.wait()
	}
	return incoming{}, lr.err
}

// idPrefix is how much of a line too long to read is kept, to name its
// id in the answer when the id comes early, as it usually does.
const idPrefix = 4 << 10

// readLine reads the next line with its line end; size is its length
// without the line end, limit the bound it was read under: the bound of
// the moment its first bytes came (a reload may change it while the
// reader waits for them), for the whole line. A line longer than limit
// is read to its
// end but only its first idPrefix bytes are kept, so memory stays bounded
// whatever the client sends. A line within the bound is made once at its
// size from copies of the reader's fragments: grown by doubling, a line
// allocated four times its size on the way and kept up to twice it.
func (lr *lineReader) readLine() (line []byte, size int, limit int64, err error) {
	var parts [][]byte // copies of the fragments of a line within the bound
	var frag []byte
	over := false
	for {
		frag, err = lr.in.ReadSlice('\n')
		if size == 0 {
			limit = lr.max()
		}
		size += len(frag)
		switch {
		case !over && int64(size) <= limit+int64(len("\r\n")):
			parts = append(parts, bytes.Clone(frag))
		case !over:
			// Too long: keep its start, whatever the fragments, to name its id.
			over = true
			for _, p := range append(parts, frag) {
				line = append(line, p[:min(len(p), idPrefix-len(line))]...)
			}
			parts = nil
		default:
			line = append(line, frag[:min(len(frag), idPrefix-len(line))]...)
		}
		if err != bufio.ErrBufferFull {
			break
		}
	}
	if !over {
		line = parts[0]
		if len(parts) > 1 {
			line = slices.Concat(parts...)
		}
	}
	return line, size - (len(frag) - len(bytes.TrimRight(frag, "\r\n"))), limit, err
}

// Close closes the underlying reader when it can be closed, and lets a
// reader waiting for room go on to find it closed.
func (lr *lineReader) Close() error {
	lr.d.mu.Lock()
	lr.d.closed = true
	lr.d.mu.Unlock()
	lr.d.answered.Broadcast()
	if c, ok := lr.in0.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// incoming is what the reader hands go-sdk: a message it decoded, or
// the messages of a batch in order, of which go-sdk's own connection
// reads the requests, as batch, so that it answers them in one array.
// go-sdk's connection waits for an answer to every message of a batch
// it reads, notifications too (and ends the Session on two of them, of
// one empty id), so it reads only the requests and the reader hands over
// the rest, decoded: inBatch holds them in their place, and nil where
// go-sdk's connection gives the next request.
type incoming struct {
	msg     jsonrpc.Message
	batch   []byte
	inBatch []jsonrpc.Message
}

// admit decides whether go-sdk can take the line, decoding it with the
// function go-sdk uses (jsonrpc.DecodeMessage), and counts its requests;
// a line go-sdk would refuse, or that would cost more than its size
// allows once decoded, is answered here.
func (lr *lineReader) admit(line []byte) (incoming, bool) {
	msg := bytes.TrimSpace(line)
	// A line nested past the carrier's depth is answered for its depth:
	// a scan would stop at its own, deeper bound and call it "not JSON".
	if depth := nesting(msg); depth > carrierDepth {
		lr.refuse(msg, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message nests %d levels deep; this server reads messages up to %d levels", depth, carrierDepth))
		return incoming{}, false
	}
	// Scanned before anything decodes it, for its syntax and for what its
	// values would take.
	if code, bad := weigh(msg); bad != "" {
		lr.refuse(msg, code, bad)
		return incoming{}, false
	}
	var msgs []json.RawMessage
	bad := ""
	if msg[0] == '[' {
		if json.Unmarshal(msg, &msgs) == nil && len(msgs) == 0 {
			bad = "an empty batch"
		}
	} else {
		msgs = []json.RawMessage{msg}
	}
	if bad == "" && msg[0] == '[' && lr.protocol >= noBatches {
		bad = "JSON-RPC batches are not part of MCP " + noBatches + " and later"
	}
	var decoded jsonrpc.Message
	var inBatch []jsonrpc.Message
	var requests [][]byte
	for _, m := range msgs {
		if bad != "" {
			break
		}
		var err error
		if decoded, err = decodeScanned(m); err != nil {
			bad = messageProblem(m, err)
			break
		}
		if req, ok := decoded.(*jsonrpc.Request); !ok || !req.IsCall() {
			inBatch = append(inBatch, decoded)
		} else {
			inBatch, requests = append(inBatch, nil), append(requests, m)
			if _, number := req.ID.Raw().(int64); number {
				if id := fractionalID(m); id != nil {
					bad = fmt.Sprintf(`"id" %s has a fraction or an exponent; use an integer or a string (JSON-RPC 2.0 §4: numbers SHOULD NOT contain fractional parts)`, id)
					break
				}
			}
			if req.Method == "initialize" {
				lr.protocol = requestedProtocol(req.Params)
			}
		}
	}
	if msgs == nil && bad == "" {
		bad = "a message must be a JSON object"
	}
	if bad != "" {
		lr.refuse(msg, jsonrpc.CodeInvalidRequest, bad)
		return incoming{}, false
	}
	lr.d.mu.Lock()
	lr.d.requests += len(requests)
	lr.d.mu.Unlock()
	if msg[0] == '[' {
		in := incoming{inBatch: inBatch}
		if len(requests) > 0 {
			in.batch = append(append([]byte{'['}, bytes.Join(requests, []byte{','})...), ']')
		}
		return in, true
	}
	return incoming{msg: decoded}, true
}

// decodeScanned is jsonrpc.DecodeMessage of msg, a message the reader
// has scanned (valid JSON, no deeper than go-sdk reads), but for where
// the params of a request and the result of a response are: go-sdk keeps
// them as raw JSON it does not read, copied out of the message after its
// decoder has copied the whole message into a buffer grown to its size
// (two to four times it allocated). So go-sdk's function decodes the
// message's other members, the few it reads, and the params or result
// are a view of msg itself. A message whose top-level member names are
// written with escapes, which a scan would not recognise, is decoded
// whole (FuzzDecodeScanned).
func decodeScanned(msg []byte) (jsonrpc.Message, error) {
	if len(msg) == 0 || msg[0] != '{' {
		return jsonrpc.DecodeMessage(msg)
	}
	envelope := []byte{'{'}
	var params, result []byte
	escaped := false
	scanMessages(msg, func(name, value []byte) {
		value = value[:valueEnd(value)]
		switch string(name) {
		case "params":
			params = value
		case "result":
			result = value
		case "jsonrpc", "id", "method", "error":
			if len(envelope) > 1 {
				envelope = append(envelope, ',')
			}
			envelope = append(append(append(append(envelope, '"'), name...), '"', ':'), value...)
		default:
			escaped = escaped || bytes.IndexByte(name, '\\') >= 0
		}
	}, func() {})
	if escaped {
		return jsonrpc.DecodeMessage(msg)
	}
	m, err := jsonrpc.DecodeMessage(append(envelope, '}'))
	switch m := m.(type) {
	case *jsonrpc.Request:
		m.Params = params
	case *jsonrpc.Response:
		m.Result = result
	}
	return m, err
}

// valueEnd is the length of the JSON value p starts with, p being valid
// JSON from there on (the rest of a scanned message).
func valueEnd(p []byte) int {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case '"':
			i = stringEnd(p, i)
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return i
			}
		}
	}
	return len(p)
}

// refuse answers the line msg, which go-sdk cannot take, with a JSON-RPC
// error of code saying why (bad), naming its id when it has one, and logs it.
func (lr *lineReader) refuse(msg []byte, code int, bad string) {
	lr.log.Warn("input line is not a JSON-RPC message; answered with a JSON-RPC error", "line", lr.line, "problem", bad, "code", code)
	lr.out.answer(append(errorReply(requestID(bytes.TrimSpace(msg)), code, fmt.Sprintf("line %d: %s", lr.line, bad)), '\n'))
}

// errorReply is a JSON-RPC error response to the request id (nil for
// JSON null) of code, saying msg.
func errorReply(id any, code int, msg string) []byte {
	reply, _ := json.Marshal(jsonrpcError{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: int64(code), Message: msg}})
	return reply
}

// noBatches is the first MCP version without JSON-RPC batches.
const noBatches = "2025-06-18"

// requestedProtocol is the protocolVersion of initialize params. An
// absent or unreadable one reads as noBatches: go-sdk then answers with
// its latest version, which has no batches either.
func requestedProtocol(params json.RawMessage) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(params, &p) != nil || p.ProtocolVersion == "" {
		return noBatches
	}
	return p.ProtocolVersion
}

// jsonrpcError is a JSON-RPC 2.0 error response (§5.1).
type jsonrpcError struct {
	JSONRPC string        `json:"jsonrpc"`
	ID      any           `json:"id"`
	Error   jsonrpc.Error `json:"error"`
}

// messageProblem says why raw, which go-sdk refused with err, is not a
// JSON-RPC 2.0 message, in the words of the JSON-RPC 2.0 specification
// (§4, §5). Only a refused message pays for the explanation.
func messageProblem(raw []byte, err error) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return "a message must be a JSON object"
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return `"jsonrpc" must be "2.0"`
	}
	if id, ok := m["id"]; ok && idValue(id) == nil && string(id) != "null" {
		if len(id) > 0 && (id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
			// A number past a float64's range (1e999999): JSON allows it,
			// the response could not carry it back.
			return `"id" is a number out of the range this server can echo (a 64-bit float); use a smaller number or a string`
		}
		return `"id" must be a string, a number or null`
	}
	var method string
	if raw, ok := m["method"]; ok && json.Unmarshal(raw, &method) != nil {
		return `"method" must be a string`
	}
	_, request := m["method"]
	_, result := m["result"]
	_, failure := m["error"]
	if !request && !result && !failure {
		return `a message needs "method" (a request or notification), or "result" or "error" (a response)`
	}
	return err.Error()
}

// carrierDepth is how deep go-sdk reads a JSON-RPC message (its
// internal defaultMaxDepth); TestServeHostilePrograms in cmd notices if
// it changes.
const carrierDepth = 1000

// nesting is how deeply the arrays and objects of msg nest, read like
// scanMessages reads: strings skipped, nothing decoded.
func nesting(msg []byte) (deepest int) {
	depth := 0
	for i := 0; i < len(msg); i++ {
		switch msg[i] {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		case '"':
			i = stringEnd(msg, i)
		}
	}
	return deepest
}

// requestID is the id of a message when it is a string or a number, so
// that an error answer can name it; nil (JSON null) otherwise, as
// JSON-RPC 2.0 §5 asks, and when the message gives "id" twice: which of
// the two it means is what readers disagree on (docs/json.md). The id is
// found by a scan, not a decode, so a message too deep or too broken to
// decode past its id is still named.
func requestID(msg []byte) (id any) {
	if len(msg) == 0 || msg[0] != '{' {
		return nil
	}
	ids := 0
	scanMessages(msg, func(written, value []byte) {
		if name, ok := memberName(written); !ok || name != "id" {
			return
		}
		if ids++; ids > 1 {
			id = nil
			return
		}
		if len(value) > 0 && value[0] == '"' {
			if end := stringEnd(value, 0); end < len(value) {
				id = idValue(value[:end+1])
			}
		} else if num := numberToken(value); len(num) > 0 {
			id = idValue(num)
		}
	}, func() {})
	return id
}

// memberName is the member name written between quotes as written,
// unescaped; ok is false when its escapes are not JSON's.
func memberName(written []byte) (name string, ok bool) {
	if bytes.IndexByte(written, '\\') < 0 {
		return string(written), true
	}
	return name, json.Unmarshal(append(append([]byte{'"'}, written...), '"'), &name) == nil
}

// idValue is raw when it is a string or a number (an id JSON-RPC allows
// besides null), nil otherwise.
func idValue(raw json.RawMessage) any {
	var id any
	if json.Unmarshal(raw, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return raw
	}
	return nil
}

// lineWriter lets the reader's answers and go-sdk's share the output a
// whole line at a time (go-sdk writes each message or batch with one
// Write ending in a newline), and counts the responses for the drain.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
	d  *drain
}

// Write is go-sdk's: its responses count for the drain.
func (lw *lineWriter) Write(p []byte) (int, error) {
	n, err := lw.answer(p)
	resp := countWritten(p)
	lw.d.mu.Lock()
	lw.d.responses += resp
	lw.d.mu.Unlock()
	lw.d.answered.Broadcast()
	return n, err
}

// answer writes p whole; the reader's own answers go here, uncounted, as
// they answer no request the drain counted.
func (lw *lineWriter) answer(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

// Close leaves the underlying writer (standard output) open.
func (lw *lineWriter) Close() error { return nil }

// countWritten counts the responses in what go-sdk writes: a message or a
// batch, always valid JSON from its encoder, which never escapes the
// ASCII member names "id" and "method". Responses carry whole plans and
// traces (binding.md sends them twice, as structuredContent and text), so
// instead of decoding them scanMessages only follows nesting and strings
// to find each message's top-level members — a fraction of a decode's
// cost on every answer (docs/performance.md, "serve").
func countWritten(p []byte) (responses int) {
	hasID, hasMethod := false, false
	scanMessages(p, func(name, value []byte) {
		switch string(name) {
		case "id":
			hasID = !bytes.HasPrefix(value, []byte("null"))
		case "method":
			hasMethod = true
		}
	}, func() {
		if hasID && !hasMethod {
			responses++
		}
		hasID, hasMethod = false, false
	})
	return responses
}

// fractionalID is the id of a message when it is a number with a fraction
// or an exponent, as written; nil otherwise. go-sdk keeps numeric ids as
// integers, so it would answer 1.5 as 1 and the client would never match
// the answer; JSON-RPC 2.0 §4 says such ids SHOULD NOT be used.
func fractionalID(msg []byte) (id []byte) {
	scanMessages(msg, func(name, value []byte) {
		if string(name) != "id" {
			return
		}
		id = nil // the last "id" is the one a decoder keeps
		if num := numberToken(value); bytes.ContainsAny(num, ".eE") {
			id = num
		}
	}, func() {})
	return id
}

// numberToken is the JSON number at the start of value, as written
// (empty when value does not start with one).
func numberToken(value []byte) []byte {
	n := 0
	for n < len(value) && bytes.IndexByte([]byte("+-0123456789.eE"), value[n]) >= 0 {
		n++
	}
	return value[:n]
}

// scanMessages follows the nesting and strings of a message or a batch of
// them without decoding it, and calls member for each top-level member of
// each message — its name as written and the input from its value on —
// and done at the end of each message.
func scanMessages(p []byte, member func(name, value []byte), done func()) {
	p = bytes.TrimSpace(p)
	msgDepth := 1 // the depth of each message's members
	if len(p) > 0 && p[0] == '[' {
		msgDepth = 2
	}
	depth, atKey := 0, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '{':
			depth++
			atKey = depth == msgDepth
		case '[':
			depth++
		case '}':
			if depth == msgDepth {
				done()
			}
			depth--
		case ']':
			depth--
		case ',':
			atKey = depth == msgDepth
		case '"':
			end := stringEnd(p, i)
			if end == len(p) {
				return
			}
			if atKey && depth == msgDepth {
				atKey = false
				member(p[i+1:end], bytes.TrimLeft(p[end+1:], " \t\r\n:"))
			}
			i = end
		}
	}
}

// stringEnd is the index of the quote that closes the string opening at
// p[start], or len(p) for an unterminated one.
func stringEnd(p []byte, start int) int {
	for i := start + 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(p)
}
