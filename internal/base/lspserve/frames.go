package lspserve

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/textproto"
	"strconv"
	"sync/atomic"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/sourcegraph/jsonrpc2"
)

// resync is jsonrpc2's buffered stream with LSP's Content-Length
// framing, read a whole frame at a time: a body that is not JSON is
// answered with a parse error and one that is JSON but no JSON-RPC
// message with an invalid-request error (both with id null, JSON-RPC
// 2.0 §5.1), and the server reads on at the next frame, where jsonrpc2's
// own codec would have lost its place and ended the connection.
// A stream whose framing breaks ends the connection as the stream's end
// does, and broken keeps why, for Serve to return.
// Each valid body passes through hold (nil: none) before jsonrpc2
// reads it.
func resync(rwc io.ReadWriteCloser, logger *log.Logger, broken *atomic.Pointer[FramingError], hold func([]byte) []byte) jsonrpc2.ObjectStream {
	return resyncStream{jsonrpc2.NewBufferedStream(rwc, frameCodec{}), logger, broken, hold}
}

type resyncStream struct {
	jsonrpc2.ObjectStream
	log    *log.Logger
	broken *atomic.Pointer[FramingError]
	hold   func([]byte) []byte
}

// FramingError is Serve's error when the stream broke LSP's framing: a
// header that does not read, a Content-Length that is no number, a
// stream that ends inside a message. Where the next message starts is
// unknown, so the server stops; pilotage lsp exits 2, as every verb does
// on input it cannot use.
type FramingError struct{ Err error }

func (e *FramingError) Error() string {
	// The error quotes the line that broke the framing, which may be as
	// long as the stream: clipped. A client that writes bare JSON, as
	// over MCP's stdio, gets how LSP frames a message.
	return "unreadable message framing, closing the connection: " + report.Clip(e.Err.Error()) +
		" (hint: LSP sends each message as a Content-Length: N header, a blank line, then N bytes of JSON)"
}

func (e *FramingError) Unwrap() error { return e.Err }

func (s resyncStream) ReadObject(v any) error {
	for {
		var body frame
		err := s.ObjectStream.ReadObject(&body)
		var big tooLarge
		switch {
		case errors.As(err, &big):
			// Skipped whole, so the next frame is found.
		case err == io.EOF:
			return err
		case err != nil:
			// Broken framing: where the next message starts is unknown.
			// jsonrpc2 ends the connection quietly at io.EOF; Serve
			// reports why.
			s.broken.CompareAndSwap(nil, &FramingError{err})
			return io.EOF
		}
		code, msg := int64(jsonrpc2.CodeParseError), "parse error: the message body is not JSON"
		switch {
		case big > 0:
			code, msg = jsonrpc2.CodeInvalidRequest, big.Error()
		case json.Valid(body):
			if s.hold != nil {
				body = s.hold(body)
			}
			err := json.Unmarshal(body, v)
			if err == nil {
				return nil
			}
			code, msg = jsonrpc2.CodeInvalidRequest, "invalid request: "+err.Error()
		}
		s.log.Printf("answered a %d-byte message with %q", len(body), msg)
		if err := s.ObjectStream.WriteObject(nullIDError{"2.0", nil, jsonrpc2.Error{Code: code, Message: msg}}); err != nil {
			return err
		}
	}
}

// nullIDError is the answer to a message whose id cannot be read;
// jsonrpc2.Response has no null id.
type nullIDError struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      *int           `json:"id"`
	Error   jsonrpc2.Error `json:"error"`
}

// frame is a message body as it arrived, JSON or not.
type frame []byte

// MaxHeaderBytes bounds a message's headers: LSP sends two short ones,
// and textproto would otherwise gather a header line of any length (and
// quote all of it in its error).
const MaxHeaderBytes = 4 << 10

// MaxMessageBytes bounds a message body the server reads into memory:
// twice the largest PDL file (32 MiB), more than any document an editor
// sends. A longer body is skipped unread and answered with an error, so
// the server reads on at the next frame.
const MaxMessageBytes = 64 << 20

// tooLarge is the Content-Length of a body over MaxMessageBytes, skipped.
type tooLarge uint64

func (n tooLarge) Error() string {
	return fmt.Sprintf("invalid request: a message of %d bytes, more than the %d MiB this server reads; the message was skipped", uint64(n), MaxMessageBytes>>20)
}

// frameCodec writes as jsonrpc2's VS Code codec does and reads the
// headers (MIME-style, as LSP's base protocol defines them) and then
// exactly Content-Length bytes, whatever they hold.
type frameCodec struct{ jsonrpc2.VSCodeObjectCodec }

func (frameCodec) ReadObject(r *bufio.Reader, v any) error {
	// textproto reads the headers through a reader of at most
	// MaxHeaderBytes that takes one byte at a time from r, so nothing of
	// the body is read ahead into a buffer r does not see.
	lim := &byteLimiter{r: r, left: MaxHeaderBytes}
	h, err := textproto.NewReader(bufio.NewReaderSize(lim, 16)).ReadMIMEHeader()
	if err != nil && lim.left == 0 {
		return fmt.Errorf("message headers longer than %d bytes", MaxHeaderBytes)
	}
	if err == io.EOF && lim.left < MaxHeaderBytes {
		// Bytes of headers, then the end: a message cut short, not the
		// end of the stream between messages.
		return fmt.Errorf("the stream ended inside a message's headers: %w", io.ErrUnexpectedEOF)
	}
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(h.Get("Content-Length"), 10, 32)
	if err != nil {
		return fmt.Errorf("Content-Length header: %w", err)
	}
	if n > MaxMessageBytes {
		if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
			return fmt.Errorf("a message of %d bytes, more than the %d MiB this server reads, and the stream ended inside it: %w", n, MaxMessageBytes>>20, err)
		}
		return tooLarge(n)
	}
	body, err := readBody(r, int(n))
	*v.(*frame) = body
	return err
}

// readBody reads n bytes of r into a buffer that doubles as they
// arrive, from at most 1 MiB to n: a huge length announced on a short
// stream costs no memory up front, and a large body is not copied as
// often as io.ReadAll's growth by a quarter copied it (four times its
// size in garbage).
func readBody(r io.Reader, n int) ([]byte, error) {
	body := make([]byte, 0, min(n, 1<<20))
	for len(body) < n {
		if len(body) == cap(body) {
			body = append(make([]byte, 0, min(n, 2*cap(body))), body...)
		}
		m, err := r.Read(body[len(body):min(cap(body), n)])
		body = body[:len(body)+m]
		if err == io.EOF && len(body) < n {
			return body, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return body, err
		}
	}
	return body, nil
}

// byteLimiter reads one byte at a time from r, at most left bytes.
type byteLimiter struct {
	r    *bufio.Reader
	left int
}

func (l *byteLimiter) Read(p []byte) (int, error) {
	if l.left == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	c, err := l.r.ReadByte()
	if err != nil {
		return 0, err
	}
	l.left--
	p[0] = c
	return 1, nil
}
