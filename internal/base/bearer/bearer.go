// Package bearer is the client's side of the MCP binding's authority
// over streamable HTTP. It is a package of its own so that what imports
// the binding's names (internal/model/binding: the compiler, the
// engine, the checkers) does not link net/http and crypto/tls with it.
package bearer

import "net/http"

// Bearer is the client's side of the binding's authority over streamable
// HTTP (binding.md, "Session and caller"): an http.RoundTripper that adds
// "Authorization: Bearer Token" to every request (nothing when Token is
// empty) and sends it with http.DefaultTransport.
type Bearer struct{ Token string }

// RoundTrip implements http.RoundTripper.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.Token != "" {
		r.Header.Set("Authorization", "Bearer "+b.Token)
	}
	return http.DefaultTransport.RoundTrip(r)
}
