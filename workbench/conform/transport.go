package conform

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/workbench/binding"
)

// MaxMessageBytes bounds one message from the server. Over stdio the
// go-sdk reader bounds each line to mcp.DefaultMaxLineLength; over HTTP a
// JSON response body is read whole, so HTTP gets the same bound here.
const MaxMessageBytes = mcp.DefaultMaxLineLength

// StopGrace is how long a child server gets to exit after conform closes
// its standard input, and again after it is sent SIGTERM, before it is
// killed: long enough for a server to finish a write, short enough that
// the end of a check, a timeout or Ctrl-C never waits long for one that
// ignores both.
const StopGrace = 2 * time.Second

// Command is the transport to a server started as a child process that
// speaks MCP on its standard input and output; its standard error goes to
// stderr. When ctx ends (the CLI ends it on SIGINT and SIGTERM), the
// child is sent SIGTERM at once and killed StopGrace later, whatever
// conform is waiting for; when the check ends, closing the connection
// stops it the same way, after first closing its standard input.
func Command(ctx context.Context, name string, args []string, stderr io.Writer) mcp.Transport {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = StopGrace
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: StopGrace}
}

// HTTP is the streamable-HTTP transport to url, sending
// "Authorization: Bearer token" when token is not empty.
func HTTP(url, token string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bounded{binding.Bearer{Token: token}}}}
}

// bounded fails a response body that grows past MaxMessageBytes, instead
// of reading it all into memory.
type bounded struct{ next http.RoundTripper }

func (b bounded) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{ReadCloser: resp.Body, left: MaxMessageBytes}
	return resp, nil
}

type limitedBody struct {
	io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("a response of the server is larger than %d bytes", MaxMessageBytes)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left+1]
	}
	n, err := l.ReadCloser.Read(p)
	l.left -= int64(n)
	return n, err
}
