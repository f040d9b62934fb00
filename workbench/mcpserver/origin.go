package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// The MCP streamable HTTP transport requires a server to validate the
// Origin header of every incoming connection and to answer an invalid one
// with 403 Forbidden: otherwise a web page a browser shows could drive a
// server on the user's machine (a page posting to localhost, or a DNS
// rebinding of its own name to 127.0.0.1; the go-sdk's Host check covers
// the latter only). A request without Origin comes from no browser (MCP
// clients, curl) and passes; an origin on the loopback interface
// (localhost, 127.0.0.0/8, ::1: the MCP Inspector, a local tool) passes;
// any other only when Options.AllowOrigins lists it. docs/serve.md
// ("Origins") documents this.

// ParseOrigin checks an allow-list entry and returns it in the form
// origins are compared in: scheme and host lower-cased.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Opaque != "" || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin: give scheme://host[:port], such as https://app.example.com (http or https, no path)", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// checkOrigin answers 403 to a request whose Origin is neither loopback
// nor in allowed (lower-cased origins), and passes the rest to next.
func checkOrigin(allowed map[string]bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origins := r.Header.Values("Origin")
		if len(origins) == 0 || (len(origins) == 1 && (allowed[strings.ToLower(origins[0])] || loopbackOrigin(origins[0]))) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, fmt.Sprintf("Forbidden: Origin %s is not allowed; pilotage serve admits loopback origins and those given with --allow-origin", report.Quote(strings.Join(origins, ", "))), http.StatusForbidden)
	})
}

// loopbackOrigin reports whether origin is an http or https origin on the
// loopback interface.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
