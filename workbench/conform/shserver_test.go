package conform

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// shPrelude defines what a stdio server written as a shell script needs
// to speak the handshake, so each test writes only what it breaks: id
// prints the id of the request last read, handshake answers the
// go-sdk's server/discover probe with "method not found" (so it falls
// back to initialize) and initialize with the result $1 (printed with
// printf %b, so \377 writes that byte), and reads the initialized
// notification. drain reads conform's input to its end, so
// the server exits when conform closes it.
const shPrelude = `id() { printf '%s' "$l" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p'; }
handshake() {
  read -r l; printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$(id)"
  read -r l; printf '{"jsonrpc":"2.0","id":%s,"result":%b}\n' "$(id)" "$1"
  read -r l
}
drain() { while read -r l; do :; done; }
`

// pilotageInit is an initialize result declaring the Pilotage extension
// and tools; plainInit declares neither, so conform checks that it is
// not a Pilotage server and asks nothing.
const (
	pilotageInit = `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"dev.pilotage/pilotage":{"version":"1.1","discover":"pilotage_discover"}},"tools":{}},"serverInfo":{"name":"sh","version":"1"}}`
	plainInit    = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}`
)

// shCheck runs conform on the stdio server script (after shPrelude), a
// real child process as conform meets one, with timeout.
func shCheck(t *testing.T, script string, timeout time.Duration) *report.Report {
	t.Helper()
	return check(t, Command(context.Background(), "sh", []string{"-c", shPrelude + script}, io.Discard), Options{Timeout: timeout})
}

// ruleFindings is the findings of rule in rep, as text.
func ruleFindings(rep *report.Report, rule string) string {
	only := &report.Report{Sources: rep.Sources}
	for _, f := range rep.Findings {
		if f.Rule == rule {
			only.Add(f)
		}
	}
	out := findings(only)
	return out[:strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1]
}
