package mcpserver

import (
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
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
func (s *Server) authenticated(tokens map[string]string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.opts.Logger, SessionTimeout: SessionIdleTimeout, MaxRequestBodyBytes: s.maxMessage()})
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
