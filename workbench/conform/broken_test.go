package conform

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
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
	checkGolden(t, "testdata/binding-violations.golden", rep, dir)
}

// A server whose guide resources disagree with learn (docs/binding.md):
// a guide without its resource, a resource with another body, and a
// resource for a guide the learn index does not list. Each is a
// binding-resources finding naming the resource (golden file).
func TestGuideResourceViolations(t *testing.T) {
	s := reference(t, homeflow(t), "owner").MCP()
	const lang = "homeflow/v1"
	s.RemoveResources(binding.GuideURI(lang, "morning"))
	for _, id := range []string{"devices", "retired"} {
		uri := binding.GuideURI(lang, id)
		s.AddResource(&mcp.Resource{URI: uri, Name: id, MIMEType: "text/markdown"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "# Not what learn says\n"}}}, nil
			})
	}
	dir := t.TempDir()
	rep := check(t, inMemory(t, s), Options{Dir: dir})
	checkGolden(t, "testdata/guide-resources.golden", rep, dir)
}

// A fetch door that returns another Run than execute returned (§6.6): a
// different run_id, a different outcome, a trace that is not the envelope
// execute returned though at the same level, a trace above the level execute
// recorded ("The fetch door MUST NOT return more than was recorded"), and
// a refused Run that is retrievable although a refused Run is never
// retained. The reference server runs langs/homeflow's evening program;
// a middleware rewrites one tool's answer. Each case has a golden file of
// conform's findings, replay's on the saved files included.
func TestFetchDoorViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		// summary makes the Language declare trace_level summary, so
		// execute records a summary trace and full is above it.
		summary bool
		tool    string
		edit    func(run map[string]any)
	}{
		{"other-run-id", false, "homeflow_v1_trace", func(run map[string]any) { run["run_id"] = "run-of-someone-else" }},
		{"other-outcome", false, "homeflow_v1_trace", func(run map[string]any) {
			run["outcome"] = map[string]any{"ok": false, "status": "timeout"}
		}},
		{"level-above-recorded", true, "homeflow_v1_trace", func(run map[string]any) {
			trace := run["trace"].(map[string]any)
			trace["level"] = "full"
			for _, step := range trace["steps"].([]any) {
				step.(map[string]any)["input"] = map[string]any{"room": "living"}
			}
		}},
		{"other-trace", false, "homeflow_v1_trace", func(run map[string]any) {
			step := run["trace"].(map[string]any)["steps"].([]any)[0].(map[string]any)
			step["output"] = map[string]any{"rewritten": true}
		}},
		{"refused-run-retained", false, "homeflow_v1_execute", func(run map[string]any) {
			run["outcome"] = map[string]any{"ok": false, "status": "catalog_drift"}
			delete(run, "trace")
			delete(run, "output")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := homeflow(t)
			if tc.summary {
				res = compileFresh(t, homeflowDir+"homeflow.pdl")
				res.Server.Languages[0].TraceLevel = "summary"
			}
			s := reference(t, res, "owner").MCP()
			s.AddReceivingMiddleware(rewriteTool(t, tc.tool, tc.edit))
			dir := t.TempDir()
			rep := check(t, inMemory(t, s), Options{Dir: dir, Execute: true, Program: evening(t)})
			checkGolden(t, "testdata/fetch-"+tc.name+".golden", rep, dir)
		})
	}
}

// rewriteTool is a server middleware that passes the processed result of
// one tool through edit, in both channels, so they stay the same JSON.
func rewriteTool(t *testing.T, tool string, edit func(map[string]any)) mcp.Middleware {
	return onCall(t, tool, func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
		res := next(args)
		if res == nil || res.IsError {
			return res
		}
		raw, err := json.Marshal(res.StructuredContent)
		var v map[string]any
		if err == nil {
			err = json.Unmarshal(raw, &v)
		}
		if err != nil {
			t.Errorf("%s: %v", tool, err)
			return res
		}
		edit(v)
		return result(v, false)
	})
}

// onCall is a server middleware for the calls of one tool: answer gets
// the call's arguments and next, which asks the server with (possibly
// changed) arguments, and returns the result sent instead.
func onCall(t *testing.T, tool string, answer func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			var args map[string]any
			if !ok || call.Params.Name != tool || json.Unmarshal(call.Params.Arguments, &args) != nil {
				return next(ctx, method, req)
			}
			return answer(args, func(args map[string]any) *mcp.CallToolResult {
				call.Params.Arguments, _ = json.Marshal(args)
				out, err := next(ctx, method, call)
				res, _ := out.(*mcp.CallToolResult)
				if err != nil || res == nil {
					t.Errorf("%s: %v", tool, err)
				}
				return res
			}), nil
		}
	}
}

// result is a tool result carrying v in both channels.
func result(v any, isError bool) *mcp.CallToolResult {
	raw, _ := json.Marshal(v)
	return &mcp.CallToolResult{IsError: isError, StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
}

// Servers that answer a refusal Part II fixes otherwise than it says: a
// middleware on the reference server changes one answer (or the request
// the server sees), and conform names the operation and the pointer in
// its answer (golden file per case). Every case runs the --execute
// probes, which the reference server refuses without running anything.
func TestRefusalViolations(t *testing.T) {
	hasAbsentName := func(args map[string]any) bool {
		raw, _ := json.Marshal(args["program"])
		return strings.Contains(string(raw), absentSuffix)
	}
	for _, tc := range []struct {
		name, tool string
		answer     func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult
	}{
		// §6.3: changed_since from a baseline never issued, answered as
		// if there were no changes.
		{"changed-since-answered", "homeflow_v1_lookup", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
			if args["verb"] == "changed_since" {
				return result(map[string]any{"catalog_version": "v1", "changes": []any{}}, false)
			}
			return next(args)
		}},
		// §5.5: the unknown name is reported at the program's root and
		// as a constraint.
		{"unknown-name-misplaced", "homeflow_v1_validate", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
			if !hasAbsentName(args) {
				return next(args)
			}
			return result(map[string]any{"valid": false, "catalog_version": "v1", "diagnostics": []any{
				map[string]any{"code": "unknown_name", "severity": "error", "message": "unknown name", "path": "/steps"}}}, false)
		}},
		// §6.5.3: a server that ignores expected_catalog_version runs the
		// program although the catalog drifted.
		{"drift-ignored", "homeflow_v1_execute", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
			delete(args, "expected_catalog_version")
			return next(args)
		}},
		// §6.5.2 step 3: a server that does not revalidate runs an
		// invalid program, here answered as a success.
		{"invalid-program-run", "homeflow_v1_execute", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
			if hasAbsentName(args) {
				return result(map[string]any{"run_id": "run-" + strings.Repeat("0", 32), "outcome": map[string]any{"ok": true, "status": "success"}, "output": map[string]any{}}, false)
			}
			return next(args)
		}},
		// §6.5.2: drift checked before the request's well-formedness, an
		// unknown program_ref invalid_request rather than not_found, and
		// another drift text (info).
		{"order-and-kinds", "homeflow_v1_execute", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
			switch {
			case args["expected_catalog_version"] != nil:
				return result(map[string]any{"run_id": "run-" + strings.Repeat("1", 32), "outcome": map[string]any{"ok": false, "status": "catalog_drift", "error": "stale catalog"}}, false)
			case args["program_ref"] != nil:
				return result(map[string]any{"error": map[string]any{"kind": "invalid_request", "message": "bad program_ref"}}, true)
			}
			return next(args)
		}},
		// §6.6: a refused Run's fetch tells it apart from an unknown one.
		{"refused-fetch-distinguishable", "homeflow_v1_trace", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
			res := next(args)
			if res.IsError && args["run_id"] != absent {
				return result(map[string]any{"error": map[string]any{"kind": "not_found", "message": "that Run was refused, so it was not stored"}}, true)
			}
			return res
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := reference(t, homeflow(t), "owner").MCP()
			s.AddReceivingMiddleware(onCall(t, tc.tool, tc.answer))
			dir := t.TempDir()
			rep := check(t, inMemory(t, s), Options{Dir: dir, Execute: true, Program: evening(t)})
			checkGolden(t, "testdata/refusal-"+tc.name+".golden", rep, dir)
		})
	}
}

// A server declaring a newer major version must not be used (§11.1):
// conform reports it and asks nothing more.
func TestNewerMajorStops(t *testing.T) {
	f := newFake(t, cleanSnapshot)
	f.extension = map[string]any{"version": "2.0", "discover": binding.DiscoverTool}
	rep := check(t, inMemory(t, f.server()), Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleBindingVersion || rep.Summary.Checked["requests"] != 0 {
		t.Fatalf("want one %s finding and no request:\n%s", RuleBindingVersion, findings(rep))
	}
	ruleFixture(t, rep, "", RuleBindingVersion)
}

// hostile runs conform against a fake with a short timeout and returns
// the report, failing when conform takes anywhere near long.
func hostile(t *testing.T, f *fake, opt Options) *report.Report {
	t.Helper()
	start := time.Now()
	if opt.Timeout == 0 {
		opt.Timeout = 2 * time.Second
	}
	rep := check(t, inMemory(t, f.server()), opt)
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("conform took %v against a hostile server", d)
	}
	return rep
}

func TestHostileServers(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the timeouts of hanging servers; run without -short")
	}
	for _, tc := range []struct {
		name  string
		setup func(*fake, *Options)
		want  []string
		// fixture names the rules this server is the fixture of.
		fixture []string
	}{
		{"lookup hangs", func(f *fake, o *Options) {
			o.Timeout = 300 * time.Millisecond
			f.answer = func(ctx context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if tool == "homeflow_v1_lookup" {
					<-ctx.Done()
				}
				return res, nil
			}
		}, []string{"tools/call homeflow_v1_lookup: error: lookup list of homeflow/v1: no answer within 300ms (--timeout); conform stopped asking [operation-answers §6]"},
			[]string{RuleOperationAnswers}},
		{"endless cursors", func(f *fake, o *Options) {
			o.MaxPages = 5
			f.cursor = func(n int) string { return string(rune('0' + n + 1)) }
		}, []string{"still more pages after 5 (--max-pages); the rest of the catalog of homeflow/v1 was not read [read-bounds §6.3]"}, nil},
		{"looping cursors", func(f *fake, o *Options) {
			f.cursor = func(int) string { return "again" }
		}, []string{`next_cursor "again" was returned before: the cursors of homeflow/v1 loop [lookup-paging §6.3]`}, []string{RuleLookupPaging}},
		{"more items than read", func(f *fake, o *Options) { o.MaxItems = 3 },
			[]string{"the catalog of homeflow/v1 has more than 3 items (--max-items); the rest was not read [read-bounds §6.3]"}, []string{RuleReadBounds}},
		{"huge result", func(f *fake, o *Options) {
			f.answer = func(_ context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if tool == binding.DiscoverTool {
					big := strings.Repeat("x", MaxMessageBytes+1)
					return &mcp.CallToolResult{StructuredContent: map[string]any{"x": big}, Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil
				}
				return res, nil
			}
		}, []string{"tools/call pilotage_discover: error: discover: "}, nil},
		{"deeply nested result", func(f *fake, o *Options) {
			// conform meets an answer nested this deep as no answer
			// within the timeout (its finding says so): a short one
			// will do.
			o.Timeout = 300 * time.Millisecond
			f.answer = func(_ context.Context, tool string, _ map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
				if tool == binding.DiscoverTool {
					deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
					return &mcp.CallToolResult{StructuredContent: json.RawMessage(deep), Content: []mcp.Content{&mcp.TextContent{Text: deep}}}, nil
				}
				return res, nil
			}
		}, []string{"tools/call pilotage_discover: error: discover: "}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, cleanSnapshot)
			var opt Options
			tc.setup(f, &opt)
			rep := hostile(t, f, opt)
			ruleFixture(t, rep, "", tc.fixture...)
			got := findings(rep)
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
	_, err = Check(context.Background(), ct, Options{Dir: t.TempDir(), Timeout: 20 * time.Millisecond})
	var ce *ConnectError
	if !errors.As(err, &ce) || err.Error() != "connecting: the server did not answer initialize within 20ms (--timeout); a server slow to start needs a longer --timeout" {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("took %v", d)
	}
}

// A server that never reads its input leaves conform's initialize write
// blocked; the timeout must tear the connection down so that write, and
// every goroutine of the session, ends: a check leaves no goroutine
// behind. The server is a pair of pipes nobody serves; the goroutine
// count gets a generous while to settle, since goroutines end
// asynchronously.
func TestInitializeTimeoutLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	fromServer, _ := io.Pipe()
	_, toServer := io.Pipe()
	_, err := Check(context.Background(), &mcp.IOTransport{Reader: fromServer, Writer: toServer},
		Options{Dir: t.TempDir(), Timeout: 20 * time.Millisecond})
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a connection failure", err)
	}
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(20 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(20 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before the check, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// Without --execute, conform sends no execute request at all, probes
// included: they stop at validate, lookup and trace fetch.
func TestNoExecuteWithoutFlag(t *testing.T) {
	s := reference(t, homeflow(t), "owner").MCP()
	calls := 0
	s.AddReceivingMiddleware(onCall(t, "homeflow_v1_execute", func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
		calls++
		return next(args)
	}))
	rep := check(t, inMemory(t, s), Options{Program: evening(t)})
	if len(rep.Findings) != 0 || calls != 0 {
		t.Fatalf("%d execute calls, findings:\n%s", calls, findings(rep))
	}
}

// A server whose step ids change from one validate of a program to the
// next (a generated scheme that is not deterministic, §3.4) is a
// plan-ids-stable finding at the first id that differs.
func TestPlanIDsUnstable(t *testing.T) {
	validates := 0
	s := reference(t, homeflow(t), "owner").MCP()
	s.AddReceivingMiddleware(rewriteTool(t, "homeflow_v1_validate", func(v map[string]any) {
		validates++
		if plan, ok := v["plan"].(map[string]any); ok && validates == 2 {
			steps, _ := plan["steps"].([]any)
			if len(steps) > 0 {
				steps[0].(map[string]any)["id"] = "step_2"
			}
		}
	}))
	dir := t.TempDir()
	rep := check(t, inMemory(t, s), Options{Dir: dir, Program: evening(t)})
	ruleFixture(t, rep, dir, RulePlanIDsStable)
}

// TestLongRunIDClipped: a server whose execute returns a run_id of 1
// MiB, which its fetch door then does not know. conform's findings quote
// it, and replay's on the saved trace key theirs by it: each clipped to
// 120 bytes (report.Clip), where they quoted it whole.
func TestLongRunIDClipped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reference server through conform --execute; run without -short")
	}
	long := "run-" + strings.Repeat("x", 1<<20)
	s := reference(t, homeflow(t), "owner").MCP()
	s.AddReceivingMiddleware(rewriteTool(t, "homeflow_v1_execute", func(run map[string]any) { run["run_id"] = long }))
	rep := check(t, inMemory(t, s), Options{Dir: t.TempDir(), Execute: true, Program: evening(t)})
	quoted := false
	for _, f := range rep.Findings {
		if len(f.Message) > 2000 || len(f.Hint) > 2000 || len(f.File) > 300 || len(f.Key) > 300 {
			t.Errorf("%s finding of %d bytes, hint %d, file %d, key %d: %.200s…", f.Rule, len(f.Message), len(f.Hint), len(f.File), len(f.Key), f.Message)
		}
		quoted = quoted || strings.Contains(f.Message, "run-xxx")
	}
	if !quoted {
		t.Errorf("no finding quotes the run_id: %+v", rep.Findings)
	}
}
