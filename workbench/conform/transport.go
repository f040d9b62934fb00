package conform

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/workbench/binding"
)

// MaxMessageBytes bounds one message from the server. Over stdio the
// go-sdk reader bounds each line to mcp.DefaultMaxLineLength; over HTTP a
// JSON response body is read whole, so HTTP gets the same bound here.
const MaxMessageBytes = mcp.DefaultMaxLineLength

// Command is the transport to a server started as a child process that
// speaks MCP on its standard input and output; its standard error goes to
// stderr.
func Command(name string, args []string, stderr io.Writer) mcp.Transport {
	cmd := exec.Command(name, args...)
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd}
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
