package conform

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/lint/golden"
	"github.com/pilotage-dev/pilotage/workbench/binding"
)

const cleanSnapshot = "../../docs/examples/snapshot.json"

// A server that breaks the binding and the channels in known ways gets a
// finding for each, naming the MCP operation and the value's pointer
// (golden file; -update rewrites it).
func TestBindingViolations(t *testing.T) {
	f := newFake(t, cleanSnapshot)
	f.extension = map[string]any{"version": "1.1", "discover": "discover_it"}
	f.skip["homeflow_v1_validate"] = true
	f.noOutput["homeflow_v1_learn"] = true
	f.noManifestResource = true
	f.arrayResult = true
	f.answer = func(_ context.Context, tool string, args map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
		switch {
		case tool == "homeflow_v1_lookup" && args["verb"] == "list" && args["cursor"] == "2":
			// The text block says something else than structuredContent.
			res.Content = []mcp.Content{&mcp.TextContent{Text: `{"items": []}`}}
		case tool == "homeflow_v1_lookup" && args["verb"] == "get":
			// An unknown entry answered as if it were found.
			return &mcp.CallToolResult{StructuredContent: map[string]any{"entry": map[string]any{}}, Content: []mcp.Content{&mcp.TextContent{Text: `{"entry":{}}`}}}, nil
		case tool == "homeflow_v1_learn" && args["id"] == absent:
			raw := `{"error":{"kind":"missing","message":"no such guide"}}`
			return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: raw}}}, nil
		case tool == "homeflow_v1_trace":
			// Two text blocks, no structuredContent.
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not"}, &mcp.TextContent{Text: "found"}}}, nil
		}
		return res, nil
	}
	dir := t.TempDir()
	rep := check(t, inMemory(t, f.server()), Options{Dir: dir})
	golden.Check(t, "testdata/binding-violations.golden", []byte(strings.ReplaceAll(findings(rep), dir, "DIR")))
}

// A server declaring a newer major version must not be used (§11.1):
// conform reports it and asks nothing more.
func TestNewerMajorStops(t *testing.T) {
	f := newFake(t, cleanSnapshot)
	f.extension = map[string]any{"version": "2.0", "discover": binding.DiscoverTool}
	rep := check(t, inMemory(t, f.server()), Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleVersion || rep.Summary.Checked["requests"] != 0 {
		t.Fatalf("want one %s finding and no request:\n%s", RuleVersion, findings(rep))
	}
}

// hostile runs conform against a fake with a short timeout and returns
// the report, failing when conform takes anywhere near long.
func hostile(t *testing.T, f *fake, opt Options) string {
	t.Helper()
	start := time.Now()
	if opt.Timeout == 0 {
		opt.Timeout = 2 * time.Second
	}
	rep := check(t, inMemory(t, f.server()), opt)
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("conform took %v against a hostile server", d)
	}
	return findings(rep)
}

func TestHostileServers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*fake, *Options)
		want  []string
	}{
		{"lookup hangs", func(f *fake, o *Options) {
			o.Timeout = 300 * time.Millisecond
			f.answer = func(ctx context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if tool == "homeflow_v1_lookup" {
					<-ctx.Done()
				}
				return res, nil
			}
		}, []string{"tools/call homeflow_v1_lookup: error: lookup list of homeflow/v1: no answer within 300ms (--timeout); conform stopped asking [operation-answers §6]"}},
		{"endless cursors", func(f *fake, o *Options) {
			o.MaxPages = 5
			f.cursor = func(n int) string { return string(rune('0' + n + 1)) }
		}, []string{"still more pages after 5 (--max-pages); the rest of the catalog of homeflow/v1 was not read [read-bounds §6.3]"}},
		{"looping cursors", func(f *fake, o *Options) {
			f.cursor = func(int) string { return "again" }
		}, []string{`next_cursor "again" was returned before: the cursors of homeflow/v1 loop [lookup-paging §6.3]`}},
		{"more items than read", func(f *fake, o *Options) { o.MaxItems = 3 },
			[]string{"the catalog of homeflow/v1 has more than 3 items (--max-items); the rest was not read [read-bounds §6.3]"}},
		{"huge result", func(f *fake, o *Options) {
			f.answer = func(_ context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if tool == binding.DiscoverTool {
					big := strings.Repeat("x", MaxMessageBytes+1)
					return &mcp.CallToolResult{StructuredContent: map[string]any{"x": big}, Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil
				}
				return res, nil
			}
		}, []string{"tools/call pilotage_discover: error: discover: "}},
		{"deeply nested result", func(f *fake, o *Options) {
			f.answer = func(_ context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if tool == binding.DiscoverTool {
					deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
					return &mcp.CallToolResult{StructuredContent: json.RawMessage(deep), Content: []mcp.Content{&mcp.TextContent{Text: deep}}}, nil
				}
				return res, nil
			}
		}, []string{"tools/call pilotage_discover: error: discover: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, cleanSnapshot)
			var opt Options
			tc.setup(f, &opt)
			got := hostile(t, f, opt)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("want %q in:\n%s", w, got)
				}
			}
		})
	}
}

// A server that never answers initialize is a connection failure within
// the timeout, not a hang.
func TestInitializeTimeout(t *testing.T) {
	ct, st := mcp.NewInMemoryTransports()
	conn, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The server reads every message and answers none.
	go func() {
		for {
			if _, err := conn.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { conn.Close() })
	start := time.Now()
	_, err = Check(context.Background(), ct, Options{Dir: t.TempDir(), Timeout: 300 * time.Millisecond})
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "did not answer initialize within 300ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("took %v", d)
	}
}
