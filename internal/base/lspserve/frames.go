package lspserve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/textproto"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// resync is jsonrpc2's buffered stream with LSP's Content-Length
// framing, read a whole frame at a time: a body that is not JSON is
// answered with a parse error and one that is JSON but no JSON-RPC
// message with an invalid-request error (both with id null, JSON-RPC
// 2.0 §5.1), and the server reads on at the next frame, where jsonrpc2's
// own codec would have lost its place and ended the connection.
func resync(rwc io.ReadWriteCloser, logger *log.Logger) jsonrpc2.ObjectStream {
	return resyncStream{jsonrpc2.NewBufferedStream(rwc, frameCodec{}), logger}
}

type resyncStream struct {
	jsonrpc2.ObjectStream
	log *log.Logger
}

func (s resyncStream) ReadObject(v any) error {
	for {
		var body frame
		if err := s.ObjectStream.ReadObject(&body); err != nil {
			// Broken headers: where the next message starts is unknown.
			if err != io.EOF {
				s.log.Printf("unreadable message header, closing the connection: %v", err)
			}
			return err
		}
		code, msg := int64(jsonrpc2.CodeParseError), "parse error: the message body is not JSON"
		if json.Valid(body) {
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

// frameCodec writes as jsonrpc2's VS Code codec does and reads the
// headers (MIME-style, as LSP's base protocol defines them) and then
// exactly Content-Length bytes, whatever they hold.
type frameCodec struct{ jsonrpc2.VSCodeObjectCodec }

func (frameCodec) ReadObject(r *bufio.Reader, v any) error {
	h, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(h.Get("Content-Length"), 10, 32)
	if err != nil {
		return fmt.Errorf("Content-Length header: %w", err)
	}
	// ReadAll grows with what arrives: a huge length announced on a
	// short stream costs no memory up front.
	body, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err == nil && uint64(len(body)) < n {
		err = io.ErrUnexpectedEOF
	}
	*v.(*frame) = body
	return err
}
