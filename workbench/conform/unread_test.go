package conform

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Once a request goes unanswered (a timeout) or the connection is gone
// (the server exits, or writes a line that breaks the go-sdk's reader),
// conform reports that, and lints only what it read: before, the guides
// it never fetched were linted as guides without a body, the catalog it
// never read as one of catalog_version null, and the resources it never
// listed as missing, 4 errors and 2 warnings of things never read
// beside the one true finding (/tmp/rev1/repro/conform-cascade: drop5,
// exit, exitmid, nullid, noid). The server is the clean fake; at the
// request named it hangs (drop) or closes the session (the exit of a
// stdio server, or its broken line, closes the go-sdk's connection the
// same way).
func TestNothingUnreadIsLinted(t *testing.T) {
	t.Parallel()
	guideFetch := func(tool string, args map[string]any) bool {
		return tool == "homeflow_v1_learn" && args["id"] != nil && args["id"] != absent
	}
	for _, tc := range []struct {
		name string
		at   func(tool string, args map[string]any) bool
		// close closes the session at the request, empty answers {};
		// neither hangs.
		close, empty bool
		want         string
	}{
		{"a guide fetch times out", guideFetch, false, false,
			`tools/call homeflow_v1_learn: error: learn "core" of homeflow/v1: no answer within 300ms (--timeout); conform stopped asking [operation-answers §6]`},
		{"the connection closes at a guide fetch", guideFetch, true, false,
			`tools/call homeflow_v1_learn: error: learn "core" of homeflow/v1: the connection closed`},
		{"the connection closes at the learn index", func(tool string, args map[string]any) bool {
			return tool == "homeflow_v1_learn" && args["id"] == nil
		}, true, false, `tools/call homeflow_v1_learn: error: learn index of homeflow/v1: the connection closed`},
		{"the first lookup page times out", func(tool string, args map[string]any) bool {
			return tool == "homeflow_v1_lookup" && args["verb"] == "list"
		}, false, false, `tools/call homeflow_v1_lookup: error: lookup list of homeflow/v1: no answer within 300ms`},
		{"the connection closes at the second lookup page", func(tool string, args map[string]any) bool {
			return tool == "homeflow_v1_lookup" && args["cursor"] == "2"
		}, true, false, `tools/call homeflow_v1_lookup: error: lookup list of homeflow/v1: the connection closed`},
		// A guide answered without its guide is not read either, and
		// said so: it was kept as its index entry, linted without body.
		{"a guide fetch answers without the guide", func(tool string, args map[string]any) bool {
			return tool == "homeflow_v1_learn" && args["id"] == "core"
		}, false, true,
			`tools/call homeflow_v1_learn: error: learn "core" of homeflow/v1: the answer has no guide [operation-answers §6]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, cleanSnapshot)
			ct, st := mcp.NewInMemoryTransports()
			server := &keptConn{Transport: st}
			f.answer = func(ctx context.Context, tool string, args map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if !tc.at(tool, args) {
					return res, nil
				}
				if tc.empty {
					return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{}`), Content: []mcp.Content{&mcp.TextContent{Text: `{}`}}}, nil
				}
				if tc.close {
					server.conn.Close()
				}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			if _, err := f.server().Connect(context.Background(), server, nil); err != nil {
				t.Fatal(err)
			}
			rep := check(t, ct, Options{Timeout: 300 * time.Millisecond})
			got := findings(rep)
			if rep.Summary.Errors != 1 || rep.Summary.Warnings != 0 || !strings.Contains(got, tc.want) {
				t.Errorf("want the one finding %q, got:\n%s", tc.want, got)
			}
		})
	}
}

// keptConn keeps the connection its transport opens, so a test can close
// it under a server as a process's exit closes its pipes.
type keptConn struct {
	mcp.Transport
	conn mcp.Connection
}

func (k *keptConn) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := k.Transport.Connect(ctx)
	k.conn = conn
	return conn, err
}
