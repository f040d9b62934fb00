package mcpserver

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is the stdio transport of ServeIO: go-sdk's own
// (mcp.IOTransport) with the guarded reader in front of it, so that each
// line is read and decoded once. go-sdk's IOTransport reads its input
// through a json.Decoder, copies each message out of the decoder's
// buffer, tries it as a batch, then decodes it (jsonrpc.DecodeMessage):
// behind a reader that has already framed, checked and decoded the line
// (lineReader), that is three more copies of every message, the
// decoder's buffer kept at the size of the largest for the Session's
// life. lineConn hands go-sdk the message the reader decoded with the
// same function. Everything else stays go-sdk's: its connection writes
// every answer (its encoder and its batch answers), and reads the
// requests of the batches of the MCP versions that have them
// (incoming.inBatch).
type lineTransport struct {
	in  *lineReader
	out *lineWriter
}

func (t *lineTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	batches, feed := io.Pipe()
	// The reader bounds every line, so go-sdk's own bound, which ends the
	// Session, is left off.
	inner, err := (&mcp.IOTransport{Reader: batches, Writer: t.out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &lineConn{inner: inner, feed: feed, in: t.in, incoming: make(chan read), closed: make(chan struct{})}
	go c.readLines()
	return c, nil
}

// lineConn is the mcp.Connection of lineTransport.
type lineConn struct {
	inner mcp.Connection // go-sdk's stdio connection: every write, and batches' requests
	feed  *io.PipeWriter // what inner reads: batches of requests, nothing else
	in    *lineReader    // the lines, framed, checked and decoded
	// inBatch is what is left to give of the last batch: its messages
	// in order, nil for one inner gives (incoming.inBatch).
	inBatch []jsonrpc.Message
	// incoming carries what readLines read to Read; closed ends both.
	incoming  chan read
	closed    chan struct{}
	closeOnce sync.Once
}

// read is one result of the line reader.
type read struct {
	in  incoming
	err error
}

// readLines reads the input in a goroutine of its own, as go-sdk's
// connection does, so that Close unblocks a Read waiting for a line.
func (c *lineConn) readLines() {
	for {
		in, err := c.in.next()
		if err == nil && in.batch != nil {
			// go-sdk's connection reads the batch, so that it answers the
			// batch's requests in one array as JSON-RPC asks. A batch is
			// an array, which its decoder reads to the end without
			// waiting for a byte after it.
			if _, werr := c.feed.Write(in.batch); werr != nil {
				err = werr
			}
		}
		select {
		case c.incoming <- read{in, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read is go-sdk's only reader: it reads one message at a time.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if len(c.inBatch) == 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-c.incoming:
			if r.err != nil {
				return nil, r.err
			}
			if r.in.inBatch == nil {
				return r.in.msg, nil
			}
			c.inBatch = r.in.inBatch
		case <-c.closed:
			return nil, io.EOF
		}
	}
	msg := c.inBatch[0]
	c.inBatch = c.inBatch[1:]
	if msg == nil {
		return c.inner.Read(ctx)
	}
	return msg, nil
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	return c.inner.Write(ctx, coded(msg))
}

// coded gives a JSON-RPC code to an error answer of go-sdk's that has
// none (codeOf). The message stays go-sdk's.
func coded(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return msg
	}
	var wire *jsonrpc.Error
	if errors.As(resp.Error, &wire) && wire.Code != 0 {
		return msg
	}
	e := &jsonrpc.Error{Code: codeOf(resp.Error.Error()), Message: resp.Error.Error()}
	if wire != nil {
		e.Data = wire.Data
	}
	answer := *resp
	answer.Error = e
	return &answer
}

// Close closes go-sdk's connection and the input (standard input, when
// it can be closed), and unblocks Read.
func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		c.feed.Close()
		err = errors.Join(c.inner.Close(), c.in.Close())
	})
	return err
}

func (c *lineConn) SessionID() string { return "" }

// codeOf is the JSON-RPC code of go-sdk's error answer of message when
// go-sdk gives it none: it answers some requests with a plain Go error,
// which its encoder writes with code 0, a code JSON-RPC does not define.
// A request other than initialize or ping before initialize (go-sdk's
// server.go, "invalid during session initialization") is an Invalid
// Request (-32600): the request is not valid in the Session's state; any
// other is an Internal error (-32603).
func codeOf(message string) int64 {
	if strings.HasSuffix(message, " is invalid during session initialization") {
		return jsonrpc.CodeInvalidRequest
	}
	return jsonrpc.CodeInternalError
}
