package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// DrainTimeout bounds how long end of input waits for answers still being
// computed (a Run is bounded by its own time limit, usually far less).
const DrainTimeout = time.Minute

// drain pairs the stdio reader and writer so that end of input waits for
// the answers to the requests already read. go-sdk ends the session as
// soon as a read returns EOF, which would drop those answers: a client
// that writes its requests and closes stdin (`printf … | pilotage serve`)
// would get nothing back.
type drain struct {
	mu        sync.Mutex
	answered  *sync.Cond
	requests  int // requests read (messages with an id and a method)
	responses int // responses written (messages with an id and no method)
	partial   []byte
}

func newDrain() *drain {
	d := &drain{}
	d.answered = sync.NewCond(&d.mu)
	return d
}

// message is the part of a JSON-RPC message that tells a request from a
// response.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// count classifies one line (a message or a batch of them) read from the
// client. The line is decoded, so that what go-sdk will reject as a
// message is not waited for.
func count(line []byte) (requests, responses int) {
	line = bytes.TrimSpace(line)
	var msgs []message
	if len(line) > 0 && line[0] == '[' {
		if json.Unmarshal(line, &msgs) != nil {
			return 0, 0
		}
	} else {
		var m message
		if json.Unmarshal(line, &m) != nil {
			return 0, 0
		}
		msgs = []message{m}
	}
	for _, m := range msgs {
		switch {
		case len(m.ID) == 0 || string(m.ID) == "null":
		case m.Method != "":
			requests++
		default:
			responses++
		}
	}
	return requests, responses
}

// countWritten counts the responses in what go-sdk writes: a message or a
// batch, always valid JSON from its encoder, which never escapes the
// ASCII member names "id" and "method". Responses carry whole plans and
// traces (binding.md sends them twice, as structuredContent and text), so
// instead of decoding them this scan only follows nesting and strings to
// find each message's top-level members — a fraction of a decode's cost
// on every answer (docs/performance.md, "serve").
func countWritten(p []byte) (responses int) {
	p = bytes.TrimSpace(p)
	msgDepth := 1 // the depth of each message's members
	if len(p) > 0 && p[0] == '[' {
		msgDepth = 2
	}
	depth := 0
	hasID, hasMethod, atKey := false, false, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '{':
			depth++
			if depth == msgDepth {
				hasID, hasMethod, atKey = false, false, true
			}
		case '[':
			depth++
		case '}':
			if depth == msgDepth && hasID && !hasMethod {
				responses++
			}
			depth--
		case ']':
			depth--
		case ',':
			atKey = depth == msgDepth
		case '"':
			end := stringEnd(p, i)
			if end == len(p) {
				return responses
			}
			if atKey && depth == msgDepth {
				atKey = false
				switch string(p[i+1 : end]) {
				case "id":
					hasID = !bytes.HasPrefix(bytes.TrimLeft(p[end+1:], " \t\r\n:"), []byte("null"))
				case "method":
					hasMethod = true
				}
			}
			i = end
		}
	}
	return responses
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

type drainReader struct {
	r io.Reader
	d *drain
}

func (dr drainReader) Read(p []byte) (int, error) {
	n, err := dr.r.Read(p)
	d := dr.d
	d.mu.Lock()
	d.partial = append(d.partial, p[:n]...)
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 {
			break
		}
		req, _ := count(d.partial[:i])
		d.requests += req
		d.partial = d.partial[i+1:]
	}
	if err == io.EOF {
		req, _ := count(d.partial)
		d.requests += req
		d.partial = nil
		deadline := time.AfterFunc(DrainTimeout, func() {
			d.mu.Lock()
			d.responses = d.requests
			d.mu.Unlock()
			d.answered.Broadcast()
		})
		for d.responses < d.requests {
			d.answered.Wait()
		}
		deadline.Stop()
	}
	d.mu.Unlock()
	return n, err
}

func (dr drainReader) Close() error {
	if c, ok := dr.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type drainWriter struct {
	w io.Writer
	d *drain
}

// Write counts the responses in data; go-sdk writes each message (or
// batch) with one call ending in a newline.
func (dw drainWriter) Write(p []byte) (int, error) {
	n, err := dw.w.Write(p)
	resp := countWritten(p)
	dw.d.mu.Lock()
	dw.d.responses += resp
	dw.d.mu.Unlock()
	dw.d.answered.Broadcast()
	return n, err
}

// Close leaves the underlying writer (standard output) open.
func (dw drainWriter) Close() error { return nil }
