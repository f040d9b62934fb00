package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
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
	if strings.Contains(s, "*") {
		return "", fmt.Errorf("%s is not an origin: there is no wildcard; give each origin as scheme://host[:port], such as https://app.example.com", report.Quote(s))
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Opaque != "" || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" ||
		!originHost(u.Hostname()) || !originPort(u.Host, u.Port()) {
		return "", fmt.Errorf("%s is not an origin: give scheme://host[:port], such as https://app.example.com (http or https, a host name or IP address, a port from 1 to 65535, no path)", report.Quote(s))
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// originHost reports whether h can be the host of a browser's Origin: an
// IP address, or a DNS name of letters, digits, hyphens and dots.
func originHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// originPort reports whether port, the port of host, is absent or a
// number from 1 to 65535 ("x:" and "x:99999" are not).
func originPort(host, port string) bool {
	if port == "" {
		return !strings.HasSuffix(host, ":")
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535 && port[0] != '0'
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
