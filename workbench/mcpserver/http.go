package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionIdleTimeout closes an HTTP session no request has touched for
// this long, so a client that vanishes without DELETE still ends its
// Session (and its retention "session" runs) eventually.
const SessionIdleTimeout = 30 * time.Minute

// HTTPHandler serves streamable HTTP. tokens maps a bearer token to the
// principal it authenticates as; a request without a known token is
// answered 401 before MCP sees it. The token's principal also pins the
// Mcp-Session-Id, so one principal cannot continue another's session.
// With no tokens at all (a definition without principals) nothing is
// authenticated and every caller is Options.Principal. Before any of
// that, a request from a browser page of a foreign origin is answered 403
// (origin.go).
func (s *Server) HTTPHandler(tokens map[string]string) http.Handler {
	allowed := map[string]bool{}
	for _, o := range s.opts.AllowOrigins {
		allowed[strings.ToLower(o)] = true
	}
	return checkOrigin(allowed, s.authenticated(tokens))
}

// authenticated is the MCP handler behind the bearer check of tokens.
// go-sdk's own bound on a body is off: guardBodies reads every body
// before it, to the bound of the moment (SetMaxMessageBytes), and hands
// it on as read, so go-sdk never reads more than that.
func (s *Server) authenticated(tokens map[string]string) http.Handler {
	h := s.guardBodies(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.opts.Logger, SessionTimeout: SessionIdleTimeout, MaxRequestBodyBytes: -1}))
	if len(tokens) == 0 {
		return h
	}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		principal, ok := lookupToken(tokens, token)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: principal}, nil
	}
	// Tokens here are static PDL secrets with no expiry of their own.
	check := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the check's own answers go through tokenHint: MCP gets w
		// itself, whose Flusher its event streams need.
		pass := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })
		check(pass).ServeHTTP(&tokenHint{ResponseWriter: w}, r)
	})
}

// guardBodies reads the body of a POST, the JSON-RPC message (or batch)
// over HTTP, before next, go-sdk's handler, reads it, and answers for
// it as the stdio reader does for a line: one larger than
// Options.MaxMessageBytes with 413 Request Entity Too Large, and one
// weigh refuses with 400 Bad Request, each with a JSON-RPC error naming
// the message's id when it has one: Parse error for a body that is not
// JSON as every reader of the project reads it (go-sdk's decoder would
// let a member name given twice through, keeping the last), Invalid
// Request for one whose values would cost more than the tree budget once
// decoded. Any other body goes to next as read.
func (s *Server) guardBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		limit := s.maxMessage()
		body, err := readBody(r, limit)
		if errors.Is(err, errTooLarge) {
			s.refuseBody(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is more than the %d bytes this server reads", limit))
			return
		}
		if err != nil {
			http.Error(w, "failed to read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		msg := bytes.TrimSpace(body)
		if code, bad := weigh(msg); bad != "" {
			s.refuseBody(w, http.StatusBadRequest, requestID(msg), code, bad)
			return
		}
		// A POST without a session id opens one (initialize).
		if r.Header.Get("Mcp-Session-Id") == "" {
			if n, max := s.openSessions(); n >= max {
				s.refuseBody(w, http.StatusServiceUnavailable, requestID(msg), codeServerBusy,
					fmt.Sprintf("this server has %d sessions open, the most it keeps (serve --max-sessions); end one (DELETE with its Mcp-Session-Id) or retry once an idle one closes, after %v", n, SessionIdleTimeout))
				return
			}
		}
		r.Body = &readOnce{rest: body}
		next.ServeHTTP(w, r)
	})
}

// codeServerBusy is the JSON-RPC error of a session refused for the
// bound: one of the codes -32000 to -32099 JSON-RPC leaves to servers.
const codeServerBusy = -32000

// openSessions is the number of MCP sessions open and the most kept.
func (s *Server) openSessions() (n, max int) {
	for range s.mcp.Sessions() {
		n++
	}
	return n, cmp.Or(s.opts.MaxSessions, DefaultMaxSessions)
}

// readOnce is a body already read, handed on: once it is read to its
// end it lets go of the bytes, which go-sdk copies (it reads a body whole
// into its own buffer and keeps that), so that a large message is not
// held twice for the request's life.
type readOnce struct{ rest []byte }

func (r *readOnce) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		r.rest = nil
		return 0, io.EOF
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

func (r *readOnce) Close() error { return nil }

// errTooLarge is a request body over the bound.
var errTooLarge = errors.New("request body too large")

// readBody reads the body of r, of at most limit bytes (errTooLarge
// otherwise), into a slice of its size when r says its length.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge
	}
	if r.ContentLength >= 0 {
		body := make([]byte, r.ContentLength)
		_, err := io.ReadFull(r.Body, body)
		return body, err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if int64(len(body)) > limit {
		return nil, errTooLarge
	}
	return body, err
}

// refuseBody answers a request body with status and a JSON-RPC error of
// id and code saying why (bad), and logs it.
func (s *Server) refuseBody(w http.ResponseWriter, status int, id any, code int, bad string) {
	s.opts.Logger.Warn("request body is not a JSON-RPC message this server reads; answered with a JSON-RPC error", "status", status, "problem", bad, "code", code)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(errorReply(id, code, bad))
}

// tokenHintText ends go-sdk's 401 body ("no bearer token", "invalid
// token"), which says what is wrong but not where a token comes from.
const tokenHintText = ` (hint: tokens are declared in the PDL, principal NAME token="…"; send one as Authorization: Bearer TOKEN)`

// tokenHint adds tokenHintText to the body of a 401 answer.
type tokenHint struct {
	http.ResponseWriter
	status int
}

func (t *tokenHint) WriteHeader(code int) {
	t.status = code
	t.ResponseWriter.WriteHeader(code)
}

func (t *tokenHint) Write(p []byte) (int, error) {
	if t.status != http.StatusUnauthorized {
		return t.ResponseWriter.Write(p)
	}
	msg := strings.TrimSuffix(string(p), "\n")
	if _, err := io.WriteString(t.ResponseWriter, msg+tokenHintText+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

// lookupToken compares against every token in constant time, so response
// timing does not reveal how much of a guessed token was right.
func lookupToken(tokens map[string]string, token string) (string, bool) {
	found, principal := 0, ""
	for t, p := range tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			found, principal = 1, p
		}
	}
	return principal, found == 1
}

// undeliverable ends the warning go-sdk logs when a list_changed
// notification finds no stream to carry it to a streamable HTTP Session:
// its client did not open the optional GET stream for server messages,
// or closed it (MCP streamable HTTP: the server MAY send on that stream).
// Such a client chose not to hear notifications, and go-sdk notifies
// every Session with no way to pick the ones that can hear, so each
// reload under serve --http --watch logged a warning per such Session and
// notification. go-sdk says it only in this text.
const undeliverable = ": rejected by transport: undelivered message: stream not connected or already closed"

// quietLogs is log without go-sdk's warning of a notification no stream
// could carry (undeliverable). Any other failure to notify, such as to a
// closed Session, is still logged.
func quietLogs(log *slog.Logger) *slog.Logger {
	return slog.New(quietHandler{log.Handler()})
}

type quietHandler struct{ slog.Handler }

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn && strings.HasPrefix(r.Message, "calling notifications/") && strings.HasSuffix(r.Message, undeliverable) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as)}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name)}
}
