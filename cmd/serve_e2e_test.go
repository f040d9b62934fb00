package cmd_test

// End-to-end tests of `pilotage serve`: the built binary driven by the Go
// SDK's MCP client over stdio (mcp.CommandTransport) and streamable HTTP,
// through the standard loop of §7.1 and every situation issue 5 names.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/internal/testsupport/mcptest"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/mcpserver"
)

const homeflow = "../langs/homeflow/homeflow.pdl"

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// pilotageBinary builds the command once per test run.
func pilotageBinary(t testing.TB) string {
	t.Helper()
	// Every test that runs the binary as a child process (serve over
	// stdio and HTTP, conform, the MCP Inspector) is end to end and
	// slow: go test -short, the edit loop, leaves them to the full suite.
	if testing.Short() {
		t.Skip("builds pilotage and runs it as a child process; run without -short")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pilotage-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "pilotage")
		out, err := exec.Command("go", "build", "-o", binPath, "./pilotage").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// syncBuffer collects a child's standard error.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// client is an MCP client session with helpers that check the binding's
// result shape on every call.
type client struct {
	t  testing.TB
	cs *mcp.ClientSession
}

// call returns the structured result and whether it was a request error.
// It fails the test on a carrier error or when the text block and
// structuredContent differ.
func (c *client) call(tool string, args any) (map[string]any, bool) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: carrier error: %v", tool, err)
	}
	m, err := mcptest.Result(res)
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	return m, res.IsError
}

// ok calls a tool that must be processed (isError false).
func (c *client) ok(tool string, args any) map[string]any {
	c.t.Helper()
	got, isErr := c.call(tool, args)
	if isErr {
		c.t.Fatalf("%s %s: request error %s", tool, jsonOf(c.t, args), jsonOf(c.t, got))
	}
	return got
}

// reqErr calls a tool that must answer a request error of kind.
func (c *client) reqErr(tool string, args any, kind string) map[string]any {
	c.t.Helper()
	got, isErr := c.call(tool, args)
	e, _ := got["error"].(map[string]any)
	if !isErr || e["kind"] != kind {
		c.t.Fatalf("%s %s: want request error %s, got isError %v %s", tool, jsonOf(c.t, args), kind, isErr, jsonOf(c.t, got))
	}
	return e
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decode converts a structured result to a typed response.
func decode[T any](t testing.TB, m map[string]any) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(jsonOf(t, m)), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// serveStdio starts `pilotage serve ARGS...` as a child speaking MCP on
// stdio and connects to it.
func serveStdio(t testing.TB, args ...string) (*client, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(pilotageBinary(t), append([]string{"serve"}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}, stderr
}

// serveHTTP starts `pilotage serve ARGS... --http 127.0.0.1:0` and returns
// its endpoint, read from the one line serve prints for scripts. The line
// before it must say what is served, and that the bearer token names
// the principal (issue 13 item 15).
func serveHTTP(t testing.TB, args ...string) string {
	t.Helper()
	url, _ := serveHTTPLogged(t, args...)
	return url
}

// serveHTTPLogged is serveHTTP, with every line serve writes to its
// standard error kept.
func serveHTTPLogged(t testing.TB, args ...string) (string, *syncBuffer) {
	t.Helper()
	var log syncBuffer
	cmd := exec.Command(pilotageBinary(t), append(append([]string{"serve"}, args...), "--http", "127.0.0.1:0")...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	re := regexp.MustCompile(`listening on (http://\S+)`)
	start := regexp.MustCompile(`^pilotage serve: serving \S+ from \S+ over HTTP, each request as the principal its bearer token names$`)
	type address struct {
		url     string
		started bool
	}
	found := make(chan address, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		started := false
		for sc.Scan() {
			fmt.Fprintln(&log, sc.Text())
			started = started || start.MatchString(sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- address{m[1], started}
			}
		}
	}()
	select {
	case a := <-found:
		if !a.started {
			t.Errorf("serve %v --http printed no start-up line before its address", args)
		}
		return a.url, &log
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http printed no address")
	}
	return "", nil
}

func connectHTTP(t testing.TB, url, token string) (*client, error) {
	t.Helper()
	cs, err := mcptest.ConnectHTTP(context.Background(), url, token)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}, nil
}

// morning is the homeflow guide's example program: a loop with a branch.
var morning = map[string]any{"steps": []any{
	map[string]any{"id": "each", "for_each": "input.rooms", "as": "r", "do": []any{
		map[string]any{"id": "read", "call": "sensors.read", "with": map[string]any{"room": "r"}},
		map[string]any{"id": "dark", "if": "steps.read.output.lux < 200.0",
			"then": []any{map[string]any{"id": "on", "call": "lights.set", "with": map[string]any{"room": "r", "on": "true"}}},
			"else": []any{}},
	}},
}, "output": "steps.each.output"}

var rooms = map[string]any{"rooms": []any{"living", "attic"}}

// standardLoop drives §7.1 for homeflow/v1 as the owner: discover, learn
// (index, core guide, a topic), lookup, validate, execute with the
// catalog_version, verify the trace against the plan, fetch it again.
func standardLoop(t *testing.T, c *client) {
	ext, _ := c.cs.InitializeResult().Capabilities.Extensions[binding.ExtensionID].(map[string]any)
	if ext["version"] != "1.1" || ext["discover"] != binding.DiscoverTool {
		t.Fatalf("initialize extensions = %v", c.cs.InitializeResult().Capabilities.Extensions)
	}
	// 1. discover
	m := decode[pilotage.Manifest](t, c.ok(binding.DiscoverTool, nil))
	if len(m.Languages) != 1 || m.Languages[0].ID != "homeflow/v1" {
		t.Fatalf("manifest languages = %+v", m.Languages)
	}
	l := m.Languages[0]
	if l.Guides != "homeflow_v1_learn" || l.Catalog != "homeflow_v1_lookup" || l.Loop.Validate != "homeflow_v1_validate" ||
		l.Loop.Execute != "homeflow_v1_execute" || l.Loop.Trace != "homeflow_v1_trace" {
		t.Fatalf("operation addresses = %+v", l)
	}
	// 2. learn: index first, then the core guide, then one topic.
	idx := decode[pilotage.LearnIndex](t, c.ok(l.Guides, map[string]any{}))
	core := ""
	for _, g := range idx.Guides {
		if g.Body != nil {
			t.Fatalf("index form carries a body for %s", g.ID)
		}
		if g.Level == pilotage.GuideCore {
			core = g.ID
		}
	}
	if core == "" {
		t.Fatalf("no core guide in %+v", idx)
	}
	g := decode[pilotage.LearnFetch](t, c.ok(l.Guides, map[string]any{"id": core}))
	if g.Guide.Body == nil || len(*g.Guide.Body) != g.Guide.SizeBytes {
		t.Fatalf("core guide body missing or size_bytes wrong: %+v", g.Guide)
	}
	topic := decode[pilotage.LearnFetch](t, c.ok(l.Guides, map[string]any{"id": core, "topic": "first-program"}))
	if topic.Guide.Body == nil || !strings.Contains(*topic.Guide.Body, "First program") || len(*topic.Guide.Body) >= len(*g.Guide.Body) {
		t.Fatalf("topic fetch = %+v", topic.Guide.Body)
	}
	c.reqErr(l.Guides, map[string]any{"id": "no-such-guide"}, pilotage.ErrNotFound)
	// The same guide as an MCP resource.
	rr, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: binding.GuideURI(l.ID, core)})
	if err != nil || rr.Contents[0].Text != *g.Guide.Body {
		t.Fatalf("guide resource: %v", err)
	}
	// 3. lookup
	list := decode[pilotage.ListResponse](t, c.ok(l.Catalog, map[string]any{"verb": "list"}))
	if len(list.Items) == 0 || list.CatalogVersion == "" {
		t.Fatalf("list = %+v", list)
	}
	get := decode[pilotage.GetResponse](t, c.ok(l.Catalog, map[string]any{"verb": "get", "id": "sensors.read"}))
	if get.Entry.ID != "sensors.read" || get.CatalogVersion != list.CatalogVersion {
		t.Fatalf("get = %+v", get)
	}
	// 5. validate: a first draft with a typo, then the fix.
	bad := c.ok(l.Loop.Validate, map[string]any{"program": map[string]any{"steps": []any{
		map[string]any{"id": "read", "call": "sensors.raed", "with": map[string]any{"room": `"living"`}}}}})
	vr := decode[pilotage.ValidateResponse](t, bad)
	if vr.Valid || len(vr.Diagnostics) == 0 || vr.Diagnostics[0].Code != pilotage.CodeUnknownName || vr.Diagnostics[0].Path.Pointer != "/steps/0/call" {
		t.Fatalf("typo: %s", jsonOf(t, bad))
	}
	v := decode[pilotage.ValidateResponse](t, c.ok(l.Loop.Validate, map[string]any{"program": morning}))
	if !v.Valid || v.Plan == nil || v.CatalogVersion != list.CatalogVersion {
		t.Fatalf("validate = %+v", v)
	}
	// 7. execute with the catalog_version validation returned, stored.
	ex := c.ok(l.Loop.Execute, map[string]any{"program": morning, "input": rooms, "expected_catalog_version": v.CatalogVersion,
		"trace_level": "full", "store": true})
	run := decode[pilotage.ExecuteResponse](t, ex)
	if !run.Outcome.OK || run.Outcome.Status != pilotage.StatusSuccess || run.Trace == nil || run.Trace.Level != pilotage.LevelFull {
		t.Fatalf("execute = %s", jsonOf(t, ex))
	}
	if string(run.Output) != `[{"on":true},{"on":true}]` {
		t.Fatalf("output = %s", run.Output)
	}
	// 8. verify: the trace corresponds to the plan (§5.8.4).
	assertReplays(t, v, ex)
	// 9. fetch the same record by run_id.
	fetched := decode[pilotage.TraceFetchResponse](t, c.ok(l.Loop.Trace, map[string]any{"run_id": run.RunID}))
	if jsonOf(t, fetched.Trace) != jsonOf(t, run.Trace) {
		t.Fatalf("fetched trace differs:\n%s\n%s", jsonOf(t, fetched.Trace), jsonOf(t, run.Trace))
	}
	summary := decode[pilotage.TraceFetchResponse](t, c.ok(l.Loop.Trace, map[string]any{"run_id": run.RunID, "trace_level": "summary"}))
	if summary.Trace.Level != pilotage.LevelSummary || len(summary.Trace.Steps[1].Input) != 0 {
		t.Fatalf("summary fetch = %s", jsonOf(t, summary))
	}
}

// assertReplays checks an execute response's trace against the validate
// response's plan with the project's replay checker.
func assertReplays(t *testing.T, validate any, execute any) {
	t.Helper()
	plan, err := replay.LoadPlan("validate.json", []byte(jsonOf(t, validate)), 0)
	if err != nil {
		t.Fatal(err)
	}
	res := replay.Replay(plan, "execute.json", strings.NewReader(jsonOf(t, execute)), replay.Options{})
	for _, f := range res.Findings {
		if f.Severity == "error" {
			t.Errorf("replay: %s %s at %s", f.Rule, f.Message, f.Pointer)
		}
	}
}

func TestServeStandardLoopStdio(t *testing.T) {
	c, stderr := serveStdio(t, homeflow, "--principal", "owner")
	standardLoop(t, c)
	if s := stderr.String(); strings.Contains(s, "ERROR") {
		t.Errorf("stderr: %s", s)
	}
}

// The same loop in process: compiler, engine and binding wired as serve
// wires them, over go-sdk's in-memory transport.
func TestServeStandardLoopInMemory(t *testing.T) {
	res, _, err := compile.Load(homeflow, report.DefaultMaxPerRule)
	if err != nil || !res.OK() {
		t.Fatalf("compile: %v %v", err, res.Findings)
	}
	eng, err := engine.New(res.Server, engine.Options{CheckTraces: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	srv, err := mcpserver.New(context.Background(), eng, mcpserver.Options{Principal: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	standardLoop(t, &client{t: t, cs: cs})
}

func TestServeStandardLoopHTTP(t *testing.T) {
	url := serveHTTP(t, homeflow)
	c, err := connectHTTP(t, url, "owner-token")
	if err != nil {
		t.Fatal(err)
	}
	standardLoop(t, c)
}

// Every reserved run status of §5.7 through the MCP tool, refusals with no
// trace steps (reading 8), and a failed Run with its partial trace.
func TestServeReservedStatuses(t *testing.T) {
	c, _ := serveStdio(t, homeflow, "--principal", "owner")
	exec := "homeflow_v1_execute"
	status := func(args map[string]any) pilotage.ExecuteResponse {
		t.Helper()
		return decode[pilotage.ExecuteResponse](t, c.ok(exec, args))
	}
	if r := status(map[string]any{"program": morning, "input": rooms}); r.Outcome.Status != pilotage.StatusSuccess || !r.Outcome.OK {
		t.Fatalf("success: %+v", r.Outcome)
	}
	garage := map[string]any{"steps": []any{
		map[string]any{"id": "on", "call": "lights.set", "with": map[string]any{"room": `"garage"`, "on": "true"}},
		map[string]any{"id": "read", "call": "sensors.read", "with": map[string]any{"room": `"garage"`}},
		map[string]any{"id": "off", "call": "lights.set", "with": map[string]any{"room": `"garage"`, "on": "false"}},
	}}
	r := status(map[string]any{"program": garage})
	if r.Outcome.OK || r.Outcome.Status != pilotage.StatusPartial || r.Trace == nil || len(r.Trace.Steps) != 2 ||
		r.Trace.Steps[1].Outcome.Status != "unreachable" || len(r.Output) != 0 {
		t.Fatalf("partial: %s", jsonOf(t, r))
	}
	r = status(map[string]any{"program": map[string]any{"steps": []any{map[string]any{"id": "x#1", "call": "nope.nope"}}}})
	if r.Outcome.OK || r.Outcome.Status != pilotage.StatusValidationError || len(r.Diagnostics) < 2 || (r.Trace != nil && len(r.Trace.Steps) != 0) {
		t.Fatalf("validation_error: %s", jsonOf(t, r))
	}
	// Inline input must be an object (the closed-sets guide's parameter
	// binding); the published schema says so but the server answers with
	// a diagnostic, not a request error.
	r = status(map[string]any{"program": morning, "input": []any{"living"}})
	if r.Outcome.Status != pilotage.StatusValidationError || r.Diagnostics[0].Code != pilotage.CodeInputBinding {
		t.Fatalf("input binding: %s", jsonOf(t, r))
	}
	r = status(map[string]any{"program": morning, "input": rooms, "expected_catalog_version": "not-the-current-one"})
	if r.Outcome.OK || r.Outcome.Status != pilotage.StatusCatalogDrift || (r.Trace != nil && len(r.Trace.Steps) != 0) {
		t.Fatalf("catalog_drift: %s", jsonOf(t, r))
	}
	// promotion_drift needs a catalog change: TestServeWatchDrift.
	c.reqErr(exec, map[string]any{"program": morning, "program_ref": "prog.nightly@1"}, pilotage.ErrInvalidRequest)
	c.reqErr(exec, map[string]any{}, pilotage.ErrInvalidRequest)
	c.reqErr(exec, map[string]any{"program": morning, "trace_level": "verbose"}, pilotage.ErrInvalidRequest)
	c.reqErr(exec, map[string]any{"program": morning, "test_run": true}, pilotage.ErrUnsupported)
	c.reqErr(exec, map[string]any{"program_ref": "prog.nowhere@1"}, pilotage.ErrNotFound)
}

// copyLang copies a Language directory so a test may edit it.
func copyLang(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Drift for real (§6.5.2, §7.5): edit the PDL under --watch. An inline
// program validated before the change meets catalog_drift and recovers by
// validating again; the promoted program whose referenced entry changed
// meets promotion_drift, terminally.
func TestServeWatchDrift(t *testing.T) {
	dir := copyLang(t, "../langs/homeflow")
	pdl := filepath.Join(dir, "homeflow.pdl")
	c, stderr := serveStdio(t, pdl, "--principal", "owner", "--watch", "--watch-interval", "50ms")
	exec, lookup, validate := "homeflow_v1_execute", "homeflow_v1_lookup", "homeflow_v1_validate"
	v1 := decode[pilotage.ValidateResponse](t, c.ok(validate, map[string]any{"program": morning}))
	nightly := map[string]any{"program_ref": "prog.nightly@1", "input": map[string]any{"rooms": []any{"living"}}}
	prog := decode[pilotage.GetResponse](t, c.ok(lookup, map[string]any{"verb": "get", "id": "prog.nightly@1"}))
	nightly["expected_catalog_version"] = prog.CatalogVersion
	if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, nightly)); !r.Outcome.OK {
		t.Fatalf("promoted program before the change: %s", jsonOf(t, r))
	}

	src, _ := os.ReadFile(pdl)
	// lights.set gains an output member: a load-bearing field (§5.4), so
	// the catalog_version and the nightly program's baseline both change.
	old := []byte(`output_schema ` + "`" + `{"type": "object", "properties": {"on": {"type": "boolean"}}}` + "`")
	changed := bytes.Replace(src, old, []byte(`output_schema `+"`"+`{"type": "object", "properties": {"on": {"type": "boolean"}, "level": {"type": "number"}}}`+"`"), 1)
	if bytes.Equal(changed, src) {
		t.Fatal("lights.set's output_schema was not found in homeflow.pdl")
	}
	if err := os.WriteFile(pdl, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var now pilotage.ListResponse
	for {
		now = decode[pilotage.ListResponse](t, c.ok(lookup, map[string]any{"verb": "list"}))
		if now.CatalogVersion != v1.CatalogVersion {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reload after editing the PDL; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	changes := decode[pilotage.ChangedSinceResponse](t, c.ok(lookup, map[string]any{"verb": "changed_since", "catalog_version": v1.CatalogVersion}))
	if !strings.Contains(jsonOf(t, changes.Changes), `{"id":"lights.set","change":"modified"}`) {
		t.Fatalf("changed_since = %s", jsonOf(t, changes))
	}

	stale := map[string]any{"program": morning, "input": rooms, "expected_catalog_version": v1.CatalogVersion}
	if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, stale)); r.Outcome.Status != pilotage.StatusCatalogDrift {
		t.Fatalf("stale token: %s", jsonOf(t, r))
	}
	// Recovery: validate against the current snapshot, then execute with
	// the new token.
	v2 := decode[pilotage.ValidateResponse](t, c.ok(validate, map[string]any{"program": morning}))
	if !v2.Valid || v2.CatalogVersion != now.CatalogVersion {
		t.Fatalf("revalidation: %s", jsonOf(t, v2))
	}
	stale["expected_catalog_version"] = v2.CatalogVersion
	if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, stale)); r.Outcome.Status != pilotage.StatusSuccess {
		t.Fatalf("after recovery: %s", jsonOf(t, r))
	}

	prog = decode[pilotage.GetResponse](t, c.ok(lookup, map[string]any{"verb": "get", "id": "prog.nightly@1"}))
	nightly["expected_catalog_version"] = prog.CatalogVersion
	for range 2 { // terminal: retrying cannot succeed (§7.5)
		if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, nightly)); r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.OK {
			t.Fatalf("promotion_drift: %s", jsonOf(t, r))
		}
	}

	// A broken edit is reported on stderr and the served definition stays.
	if err := os.WriteFile(pdl, append(changed, []byte("\nentry {")...), 0o644); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(stderr.String(), "keeping the previous definition") {
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatalf("no report of the broken PDL; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := decode[pilotage.ListResponse](t, c.ok(lookup, map[string]any{"verb": "list"})); after.CatalogVersion != now.CatalogVersion {
		t.Fatal("a PDL with errors replaced the served definition")
	}

	// Reverting the edit does not revive the reference: the mismatch was
	// terminal for it (§5.4).
	if err := os.WriteFile(pdl, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for decode[pilotage.ListResponse](t, c.ok(lookup, map[string]any{"verb": "list"})).CatalogVersion != v1.CatalogVersion {
		if time.Now().After(deadline.Add(20 * time.Second)) {
			t.Fatalf("no reload after reverting the PDL; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	nightly["expected_catalog_version"] = v1.CatalogVersion
	const terminal = "prog.nightly@1 met promotion_drift, and a drifted reference stays drifted even once the change is undone; give it a new reference such as prog.nightly@2"
	if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, nightly)); r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != terminal {
		t.Fatalf("after the revert: want promotion_drift %q, got %s", terminal, jsonOf(t, r))
	}
}

// A promoted program's reference identifies its body (§5.4): editing
// prog.nightly@1's body under --watch keeps the catalog_version (the body
// is no catalog field) but the old reference meets promotion_drift, and
// the reload log says what happened and what to do. The mismatch is
// terminal for the reference (§5.4, §7.5): restoring the body does not
// make it run again.
func TestServeWatchBodyChange(t *testing.T) {
	dir := copyLang(t, "../langs/homeflow")
	pdl := filepath.Join(dir, "homeflow.pdl")
	c, stderr := serveStdio(t, pdl, "--principal", "owner", "--watch", "--watch-interval", "50ms")
	exec, lookup := "homeflow_v1_execute", "homeflow_v1_lookup"
	nightly := map[string]any{"program_ref": "prog.nightly@1", "input": map[string]any{"rooms": []any{"living"}}}
	if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, nightly)); !r.Outcome.OK {
		t.Fatalf("before the edit: %s", jsonOf(t, r))
	}
	before := decode[pilotage.ListResponse](t, c.ok(lookup, map[string]any{"verb": "list"})).CatalogVersion
	src, _ := os.ReadFile(pdl)
	changed := bytes.Replace(src, []byte(`"with": {"room": "r", "on": "false"}`), []byte(`"with": {"room": "r", "on": "true"}`), 1)
	if bytes.Equal(changed, src) {
		t.Fatal("prog.nightly@1's body was not found in homeflow.pdl")
	}
	const want = "the body of prog.nightly@1 changed since it was promoted; give the changed body a new reference such as prog.nightly@2"
	reload := func(content []byte, reloads int) {
		t.Helper()
		if err := os.WriteFile(pdl, content, 0o644); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(stderr.String(), "pilotage serve: reloaded") < reloads {
			if time.Now().After(deadline) {
				t.Fatalf("no reload after editing the PDL; stderr: %s", stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	reload(changed, 1)
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr.String(), "pilotage serve: "+want+"\n"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the reload log does not say the body changed; stderr: %s", stderr.String())
		}
	}
	for range 2 { // terminal for the reference (§5.4)
		r := decode[pilotage.ExecuteResponse](t, c.ok(exec, nightly))
		if r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != want {
			t.Fatalf("changed body: want promotion_drift %q, got %s", want, jsonOf(t, r))
		}
	}
	if now := decode[pilotage.ListResponse](t, c.ok(lookup, map[string]any{"verb": "list"})).CatalogVersion; now != before {
		t.Errorf("a body change alone changed the catalog_version: %s to %s", before, now)
	}
	reload(src, 2)
	const terminal = "prog.nightly@1 met promotion_drift, and a drifted reference stays drifted even once the change is undone; give it a new reference such as prog.nightly@2"
	if r := decode[pilotage.ExecuteResponse](t, c.ok(exec, nightly)); r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != terminal {
		t.Fatalf("body restored: want promotion_drift %q, got %s", terminal, jsonOf(t, r))
	}
	if n := strings.Count(stderr.String(), want); n != 1 {
		t.Errorf("the restored body was reported as changed (%d notices); stderr: %s", n, stderr.String())
	}
}

// The brief's case of issue 13 item 1, through serve --watch with --data:
// homeflow with prog.first@1, whose body runs prog.nightly@1. A Run of
// first meets nightly's changed body; once the body is put back,
// neither first nor nightly runs again (§5.4 "A mismatch is terminal for
// that reference"), though only first was run, and after a restart on
// the same --data neither does.
func TestServeWatchNestedBodyChange(t *testing.T) {
	dir := copyLang(t, "../langs/homeflow")
	pdl := filepath.Join(dir, "homeflow.pdl")
	data := filepath.Join(t.TempDir(), "data")
	src, _ := os.ReadFile(pdl)
	src = append(src, []byte(`
entry "prog.first@1" kind=program risk=write {
  name "First"
  description "Runs the nightly program."
  input_schema `+"`"+`{"type": "object", "properties": {"rooms": {"type": "array", "items": {"type": "string"}}}, "required": ["rooms"]}`+"`"+`
  program """
    {"steps": [{"id": "n", "run": "prog.nightly@1", "with": {"rooms": "input.rooms"}}]}
    """
}
`)...)
	if err := os.WriteFile(pdl, src, 0o644); err != nil {
		t.Fatal(err)
	}
	c, stderr := serveStdio(t, pdl, "--principal", "owner", "--data", data, "--watch", "--watch-interval", "50ms")
	run := func(c *client, ref string) pilotage.ExecuteResponse {
		return decode[pilotage.ExecuteResponse](t, c.ok("homeflow_v1_execute", map[string]any{"program_ref": ref, "input": map[string]any{"rooms": []any{"living"}}}))
	}
	if r := run(c, "prog.first@1"); !r.Outcome.OK {
		t.Fatalf("before the edit: %s", jsonOf(t, r))
	}
	changed := bytes.Replace(src, []byte(`"with": {"room": "r", "on": "false"}`), []byte(`"with": {"room": "r", "on": "true"}`), 1)
	for i, content := range [][]byte{changed, src} {
		if err := os.WriteFile(pdl, content, 0o644); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); strings.Count(stderr.String(), "pilotage serve: reloaded") <= i; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no reload after editing the PDL; stderr: %s", stderr.String())
			}
		}
		if i == 0 {
			const want = "the body of prog.nightly@1, which prog.first@1 runs, changed since it was promoted; give the changed body a new reference such as prog.nightly@2, and prog.first@1 a new one running it"
			if r := run(c, "prog.first@1"); r.Outcome.Status != pilotage.StatusPromotionDrift || r.Outcome.Error != want {
				t.Fatalf("changed body: want promotion_drift %q, got %s", want, jsonOf(t, r))
			}
		}
	}
	drifted := func(c *client, when string) {
		t.Helper()
		for _, ref := range []string{"prog.first@1", "prog.nightly@1"} {
			if r := run(c, ref); r.Outcome.Status != pilotage.StatusPromotionDrift {
				t.Errorf("%s: %s: want promotion_drift, got %s", when, ref, jsonOf(t, r))
			}
		}
	}
	drifted(c, "body put back")
	c.cs.Close()
	c, _ = serveStdio(t, pdl, "--principal", "owner", "--data", data)
	drifted(c, "after a restart")
}

// Idempotency (§6.5.6): the same key, runnable and input replay the first
// Run; the same key with other input is a conflict.
func TestServeIdempotency(t *testing.T) {
	c, _ := serveStdio(t, homeflow, "--principal", "owner")
	args := map[string]any{"program": morning, "input": rooms, "idempotency_key": "k-1"}
	first := c.ok("homeflow_v1_execute", args)
	again := c.ok("homeflow_v1_execute", args)
	if jsonOf(t, first) != jsonOf(t, again) {
		t.Fatalf("replay differs:\n%s\n%s", jsonOf(t, first), jsonOf(t, again))
	}
	args["input"] = map[string]any{"rooms": []any{"living"}}
	c.reqErr("homeflow_v1_execute", args, pilotage.ErrConflict)
	args["idempotency_key"] = "k-2"
	if other := c.ok("homeflow_v1_execute", args); other["run_id"] == first["run_id"] {
		t.Fatal("a fresh key replayed the old Run")
	}
}

// notFoundShape is a request error with the run_id taken out, so the
// errors for different ids can be compared.
func notFoundShape(t *testing.T, c *client, runID string) string {
	t.Helper()
	e := c.reqErr("homeflow_v1_trace", map[string]any{"run_id": runID}, pilotage.ErrNotFound)
	return strings.ReplaceAll(jsonOf(t, e), runID, "ID")
}

// Retention (§6.6): with --data, homeflow's P7D keeps stored Runs across a
// restart; store:false is never fetchable, and looks exactly like an
// unknown run_id; without --data the Language is served as "session" and
// its Runs end with the process's one Session.
func TestServeRetentionAcrossRestart(t *testing.T) {
	data := t.TempDir()
	c, _ := serveStdio(t, homeflow, "--principal", "owner", "--data", data)
	m := decode[pilotage.Manifest](t, c.ok(binding.DiscoverTool, nil))
	if m.Languages[0].Retention != "P7D" {
		t.Fatalf("retention with --data = %q", m.Languages[0].Retention)
	}
	kept := c.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms, "store": true})["run_id"].(string)
	dropped := c.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms, "store": false})["run_id"].(string)
	levelNone := c.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms, "store": true, "trace_level": "none"})
	if levelNone["trace"] != nil {
		t.Fatalf("trace_level none returned a trace: %s", jsonOf(t, levelNone))
	}
	unknownShape := notFoundShape(t, c, "run-that-never-was")
	if got := notFoundShape(t, c, dropped); got != unknownShape {
		t.Fatalf("store:false %s differs from unknown %s", got, unknownShape)
	}
	c.cs.Close()

	c2, _ := serveStdio(t, homeflow, "--principal", "owner", "--data", data)
	f := decode[pilotage.TraceFetchResponse](t, c2.ok("homeflow_v1_trace", map[string]any{"run_id": kept}))
	if f.RunID != kept || !f.Outcome.OK || f.Trace == nil || len(f.Trace.Steps) == 0 {
		t.Fatalf("stored Run after restart: %s", jsonOf(t, f))
	}
	// Recorded at the declared level even though none was requested inline.
	nf := decode[pilotage.TraceFetchResponse](t, c2.ok("homeflow_v1_trace", map[string]any{"run_id": levelNone["run_id"]}))
	if nf.Trace == nil || nf.Trace.Level != pilotage.LevelFull {
		t.Fatalf("run stored at level none: %s", jsonOf(t, nf))
	}
	if got := notFoundShape(t, c2, dropped); got != unknownShape {
		t.Fatalf("store:false after restart %s differs from unknown %s", got, unknownShape)
	}

	// Without --data: session retention, gone with the Session.
	s1, _ := serveStdio(t, homeflow, "--principal", "owner")
	if r := decode[pilotage.Manifest](t, s1.ok(binding.DiscoverTool, nil)).Languages[0].Retention; r != pilotage.RetentionSession {
		t.Fatalf("retention without --data = %q, want session", r)
	}
	id := s1.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms, "store": true})["run_id"].(string)
	s1.ok("homeflow_v1_trace", map[string]any{"run_id": id})
	s1.cs.Close()
	s2, _ := serveStdio(t, homeflow, "--principal", "owner")
	if got := notFoundShape(t, s2, id); got != unknownShape {
		t.Fatalf("session Run in a new Session: %s", got)
	}
}

// TestServeSpillFailure: with TMPDIR a directory that does not exist,
// Runs past --retain-memory cannot spill. The Run that meets the failure
// is kept in memory and stays fetchable; serve says why once on standard
// error; the next Run to be kept is refused with resource_limit before
// it runs, saying a temporary file could not be made but not the
// server's path (the operator's log names it), and store: false still
// runs.
func TestServeSpillFailure(t *testing.T) {
	pilotageBinary(t) // built with the real TMPDIR
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("TMPDIR", missing)
	c, stderr := serveStdio(t, homeflow, "--principal", "owner", "--retain-memory", "1")
	kept := c.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms})["run_id"].(string)
	e := c.reqErr("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms}, pilotage.ErrResourceLimit)
	if msg, _ := e["message"].(string); strings.Contains(msg, missing) || !strings.Contains(msg, "cannot go to a temporary file; send store: false") {
		t.Errorf("the refusal says %q; want that a temporary file cannot be made and what to do, not the server's path", msg)
	}
	c.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms, "store": false})
	if f := decode[pilotage.TraceFetchResponse](t, c.ok("homeflow_v1_trace", map[string]any{"run_id": kept})); f.RunID != kept {
		t.Errorf("the kept Run fetched as %s", jsonOf(t, f))
	}
	c.cs.Close()
	if n := strings.Count(stderr.String(), "cannot go to a temporary file: stat "+missing+": no such file or directory"); n != 1 {
		t.Errorf("standard error tells the failure %d times, want once:\n%s", n, stderr.String())
	}
}

// Two principals over HTTP (§10.3): bearer tokens pick the principal, a
// missing or unknown token is 401, each Mcp-Session-Id is its own Session,
// and the guest cannot tell the owner's names from names that do not exist.
func TestServeHTTPPrincipals(t *testing.T) {
	url := serveHTTP(t, homeflow)
	for _, tok := range []string{"", "not-a-token"} {
		if code, err := mcptest.PingStatus(url, tok); err != nil || code != http.StatusUnauthorized {
			t.Fatalf("token %q: HTTP %d (%v), want 401", tok, code, err)
		}
	}
	owner, err := connectHTTP(t, url, "owner-token")
	if err != nil {
		t.Fatal(err)
	}
	guest, err := connectHTTP(t, url, "guest-token")
	if err != nil {
		t.Fatal(err)
	}
	lookup, validate := "homeflow_v1_lookup", "homeflow_v1_validate"
	ov := decode[pilotage.ListResponse](t, owner.ok(lookup, map[string]any{"verb": "list"}))
	gv := decode[pilotage.ListResponse](t, guest.ok(lookup, map[string]any{"verb": "list"}))
	if ov.CatalogVersion == gv.CatalogVersion || len(gv.Items) >= len(ov.Items) {
		t.Fatalf("owner %d items %s, guest %d items %s", len(ov.Items), ov.CatalogVersion, len(gv.Items), gv.CatalogVersion)
	}
	for _, it := range gv.Items {
		if !strings.HasPrefix(it.ID, "sensors.") && !strings.HasPrefix(it.ID, "lights.") {
			t.Fatalf("guest sees %s", it.ID)
		}
	}
	// fan.set exists but the guest may not see it; fan.sett exists for no one.
	hidden := strings.ReplaceAll(jsonOf(t, guest.reqErr(lookup, map[string]any{"verb": "get", "id": "fan.set"}, pilotage.ErrNotFound)), "fan.set", "NAME")
	missing := strings.ReplaceAll(jsonOf(t, guest.reqErr(lookup, map[string]any{"verb": "get", "id": "fan.sxt"}, pilotage.ErrNotFound)), "fan.sxt", "NAME")
	if hidden != missing {
		t.Fatalf("hidden %s vs missing %s", hidden, missing)
	}
	prog := func(name string) map[string]any {
		return map[string]any{"program": map[string]any{"steps": []any{
			map[string]any{"id": "s", "call": name, "with": map[string]any{"room": `"living"`, "on": "true"}}}}}
	}
	hv := strings.ReplaceAll(jsonOf(t, guest.ok(validate, prog("fan.set"))), "fan.set", "NAME")
	mv := strings.ReplaceAll(jsonOf(t, guest.ok(validate, prog("fan.sxt"))), "fan.sxt", "NAME")
	if hv != mv || !strings.Contains(hv, `"unknown_name"`) {
		t.Fatalf("validate hidden %s vs missing %s", hv, mv)
	}
	if strings.Contains(mv, "fan.set") {
		t.Fatalf("a hint names an entry the guest cannot see: %s", mv)
	}
	// Retention "session" (no --data) is per Mcp-Session-Id: the owner's
	// stored Run is not the guest's, nor another owner session's.
	id := owner.ok("homeflow_v1_execute", map[string]any{"program": morning, "input": rooms, "store": true})["run_id"].(string)
	owner.ok("homeflow_v1_trace", map[string]any{"run_id": id})
	guest.reqErr("homeflow_v1_trace", map[string]any{"run_id": id}, pilotage.ErrNotFound)
	owner2, err := connectHTTP(t, url, "owner-token")
	if err != nil {
		t.Fatal(err)
	}
	owner2.reqErr("homeflow_v1_trace", map[string]any{"run_id": id}, pilotage.ErrNotFound)
}

// A program that would loop 10^9 times ends within its limits (§10.1)
// with a bounded outcome and the trace so far: three loops over 1000
// elements stop at homeflow's 500 iterations per loop; four loops over 200
// elements (1.6·10^9 iterations, each loop within 500) stop at its 10000
// steps.
func TestServeBoundedLoop(t *testing.T) {
	c, _ := serveStdio(t, homeflow, "--principal", "owner")
	inner := map[string]any{"id": "on", "call": "lights.set", "with": map[string]any{"room": `"living"`, "on": "true"}}
	loop := func(id, as string, body map[string]any) map[string]any {
		return map[string]any{"id": id, "for_each": "input.xs", "as": as, "do": []any{body}}
	}
	for _, c2 := range []struct {
		name  string
		n     int
		prog  map[string]any
		limit string
	}{
		{"iterations", 1000, loop("a", "x", loop("b", "y", loop("c", "z", inner))), "500 iterations"},
		{"steps", 200, loop("a", "w", loop("b", "x", loop("c", "y", loop("d", "z", inner)))), "10000 steps"},
	} {
		t.Run(c2.name, func(t *testing.T) {
			xs := make([]any, c2.n)
			for i := range xs {
				xs[i] = i
			}
			start := time.Now()
			r := decode[pilotage.ExecuteResponse](t, c.ok("homeflow_v1_execute", map[string]any{
				"program": map[string]any{"steps": []any{c2.prog}}, "input": map[string]any{"xs": xs}, "trace_level": "summary"}))
			took := time.Since(start)
			if r.Outcome.OK || r.Outcome.Status != pilotage.StatusPartial || !strings.Contains(r.Outcome.Error, c2.limit) {
				t.Fatalf("outcome %+v, want partial at the limit of %s", r.Outcome, c2.limit)
			}
			// homeflow's limits: 10000 steps, 500 iterations per loop, 5 s
			// of evaluation. The bound on the whole call is generous (CI
			// runs packages side by side on two cores, and the answer
			// carries a 10000-entry trace twice): unbounded evaluation of
			// 10^9 iterations would take hours, not a minute.
			if took > time.Minute || r.Trace == nil || len(r.Trace.Steps) == 0 || len(r.Trace.Steps) > 10100 {
				t.Fatalf("took %v, %d trace steps", took, len(r.Trace.Steps))
			}
		})
	}
}

// Hostile programs are normal input (§10.1): too large is a resource_limit
// request error on validate; deep nesting the carrier accepts is answered
// with a diagnostic; nesting past go-sdk's carrier bound (1000 levels) is
// a carrier failure, answered Invalid Request (-32600) and logged on
// stderr, after which the stdio Session goes on (docs/binding.md, "Edges
// and limits"); never a hang.
func TestServeHostilePrograms(t *testing.T) {
	c, stderr := serveStdio(t, homeflow, "--principal", "owner")
	// homeflow's program limit is 256 KiB.
	big := map[string]any{"steps": []any{}, "output": `"` + strings.Repeat("x", 300<<10) + `"`}
	c.reqErr("homeflow_v1_validate", map[string]any{"program": big}, pilotage.ErrResourceLimit)
	nested := func(depth int) map[string]any {
		deep := any("x")
		for range depth {
			deep = []any{deep}
		}
		return map[string]any{"steps": []any{map[string]any{"id": "s", "call": "lights.set", "with": map[string]any{"room": deep}}}}
	}
	got, isErr := c.call("homeflow_v1_validate", map[string]any{"program": nested(900)})
	if isErr {
		if e := got["error"].(map[string]any); e["kind"] != pilotage.ErrResourceLimit {
			t.Fatalf("900-deep program: %s", jsonOf(t, got))
		}
	} else if v := decode[pilotage.ValidateResponse](t, got); v.Valid {
		t.Fatal("a 900-deep program validated")
	}
	if m := decode[pilotage.Manifest](t, c.ok(binding.DiscoverTool, nil)); len(m.Languages) != 1 {
		t.Fatal("no manifest after a deep program")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "homeflow_v1_validate", Arguments: map[string]any{"program": nested(5000)}})
	if err == nil {
		t.Fatal("a 5000-deep message was answered; go-sdk's carrier bound has changed, update docs/binding.md")
	}
	const tooDeep = "levels deep; this server reads messages up to 1000 levels"
	if we := (*jsonrpc.Error)(nil); !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(we.Message, tooDeep) {
		t.Fatalf("a 5000-deep message: %v, want an Invalid Request (%d) saying %q", err, jsonrpc.CodeInvalidRequest, tooDeep)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), tooDeep) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m := decode[pilotage.Manifest](t, c.ok(binding.DiscoverTool, nil)); len(m.Languages) != 1 {
		t.Fatal("no manifest after a message past the carrier's nesting bound: the Session ended")
	}
}

// A deploy-mode Language with a context_schema (langs/deploy): the
// validate tool publishes the context_schema; missing context is a
// context_binding diagnostic; execute installs the rule and returns its
// program_ref, which the catalog then lists; test_run shows the body; a
// program_ref is installed again under the same reference.
func TestServeDeployAndContext(t *testing.T) {
	c, _ := serveStdio(t, "../langs/deploy/deploy.pdl", "--principal", "operator")
	lt, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		if tl.Name == "deploy_v1_validate" {
			ctxSchema := tl.InputSchema.(map[string]any)["properties"].(map[string]any)["context"]
			if !strings.Contains(jsonOf(t, ctxSchema), `"required":["environment"]`) {
				t.Fatalf("validate's context schema = %s, want the Language's context_schema", jsonOf(t, ctxSchema))
			}
		}
	}
	rule := map[string]any{"steps": []any{
		map[string]any{"id": "check", "do": "service.status", "args": map[string]any{"service": `"billing"`}},
		map[string]any{"id": "sick", "when": "!steps.check.output.healthy",
			"yes": []any{map[string]any{"id": "restart", "do": "service.restart", "args": map[string]any{"service": `"billing"`}}},
			"no":  []any{}},
	}}
	v := decode[pilotage.ValidateResponse](t, c.ok("deploy_v1_validate", map[string]any{"program": rule}))
	if v.Valid || v.Diagnostics[0].Code != pilotage.CodeContextBinding || v.Diagnostics[0].Path.Pointer != "" {
		t.Fatalf("validate without context: %s", jsonOf(t, v))
	}
	staging := map[string]any{"environment": "staging"}
	v = decode[pilotage.ValidateResponse](t, c.ok("deploy_v1_validate", map[string]any{"program": rule, "context": staging}))
	if !v.Valid {
		t.Fatalf("validate: %s", jsonOf(t, v))
	}
	tr := decode[pilotage.ExecuteResponse](t, c.ok("deploy_v1_execute", map[string]any{"program": rule, "context": staging, "test_run": true}))
	if !tr.Outcome.OK || tr.Trace == nil || tr.Trace.Mode != pilotage.ModeTestRun || len(tr.Trace.Steps) < 3 {
		t.Fatalf("test_run: %s", jsonOf(t, tr))
	}
	inst := decode[pilotage.ExecuteResponse](t, c.ok("deploy_v1_execute", map[string]any{"program": rule, "context": staging}))
	var out struct {
		ProgramRef string `json:"program_ref"`
	}
	if err := json.Unmarshal(inst.Output, &out); err != nil || !inst.Outcome.OK || inst.Trace.Mode != pilotage.ModeDeploy || out.ProgramRef == "" {
		t.Fatalf("deploy: %s", jsonOf(t, inst))
	}
	got := decode[pilotage.GetResponse](t, c.ok("deploy_v1_lookup", map[string]any{"verb": "get", "id": out.ProgramRef}))
	if got.Entry.ID != out.ProgramRef || len(got.Entry.InputSchema) == 0 {
		t.Fatalf("installed rule in the catalog: %s", jsonOf(t, got))
	}
	// §6.5.1: promoted programs are in the catalog, so program_ref is
	// accepted in deploy mode too: the rule just installed and the PDL's
	// own rule.heal@1 are installed under the same reference (§6.5.7),
	// and a test run by reference shows what the rule does.
	for _, ref := range []string{out.ProgramRef, "rule.heal@1"} {
		again := decode[pilotage.ExecuteResponse](t, c.ok("deploy_v1_execute", map[string]any{"program_ref": ref, "context": staging}))
		if want := jsonOf(t, map[string]string{"program_ref": ref}); !again.Outcome.OK || string(again.Output) != want || again.Trace.Mode != pilotage.ModeDeploy {
			t.Fatalf("deploy by program_ref %s: %s, want an installation with output %s", ref, jsonOf(t, again), want)
		}
	}
	heal := decode[pilotage.ExecuteResponse](t, c.ok("deploy_v1_execute", map[string]any{"program_ref": "rule.heal@1", "context": staging,
		"input": map[string]any{"service": "billing"}, "test_run": true}))
	if !heal.Outcome.OK || heal.Trace.Mode != pilotage.ModeTestRun || len(heal.Trace.Steps) < 3 {
		t.Fatalf("test_run by program_ref: %s", jsonOf(t, heal))
	}
}

// TestServeAuditorSeesItsDeploy: over the MCP tools, langs/deploy's
// auditor (sees service.status and billing only) deploys a rule and can
// then list it by kind and test_run it by the program_ref it was handed:
// a promoter sees its own promotions (§10.3, the §7.4 promoted-program
// loop), though its sees patterns do not cover program.* ids.
func TestServeAuditorSeesItsDeploy(t *testing.T) {
	c, _ := serveStdio(t, "../langs/deploy/deploy.pdl", "--principal", "auditor")
	rule := map[string]any{"steps": []any{
		map[string]any{"id": "check", "do": "service.status", "args": map[string]any{"service": "input.service"}}}}
	production := map[string]any{"environment": "production"}
	inst := decode[pilotage.ExecuteResponse](t, c.ok("deploy_v1_execute", map[string]any{"program": rule, "context": production}))
	var out struct {
		ProgramRef string `json:"program_ref"`
	}
	if err := json.Unmarshal(inst.Output, &out); err != nil || !inst.Outcome.OK || out.ProgramRef == "" {
		t.Fatalf("auditor's deploy: %s", jsonOf(t, inst))
	}
	rules := decode[pilotage.ListResponse](t, c.ok("deploy_v1_lookup", map[string]any{"verb": "list", "kind": "rule"}))
	if len(rules.Items) != 1 || rules.Items[0].ID != out.ProgramRef {
		t.Errorf("auditor's list kind=rule after deploying %s: %s, want that rule alone", out.ProgramRef, jsonOf(t, rules))
	}
	run := decode[pilotage.ExecuteResponse](t, c.ok("deploy_v1_execute", map[string]any{"program_ref": out.ProgramRef, "context": production,
		"input": map[string]any{"service": "billing"}, "test_run": true}))
	if !run.Outcome.OK || run.Trace == nil || run.Trace.Mode != pilotage.ModeTestRun {
		t.Errorf("auditor's test_run of %s: %s", out.ProgramRef, jsonOf(t, run))
	}
}

// A PDL without principals (langs/calc) is served on HTTP without
// authentication, and only the declared operations get tools: no catalog,
// no trace fetch (retention none).
func TestServeHTTPWithoutPrincipals(t *testing.T) {
	url := serveHTTP(t, "../langs/calc/calc.pdl")
	c, err := connectHTTP(t, url, "")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"calc_v1_execute", "calc_v1_learn", "calc_v1_validate", "pilotage_discover"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	r := decode[pilotage.ExecuteResponse](t, c.ok("calc_v1_execute", map[string]any{
		"program": map[string]any{"steps": []any{}, "output": "input.price * (1.0 + input.vat)"},
		// Raw JSON keeps "100.0" a double; a Go float64 would marshal as 100,
		// an int to CEL.
		"input": json.RawMessage(`{"price": 100.0, "vat": 0.2}`)}))
	if !r.Outcome.OK || string(r.Output) != "120" && string(r.Output) != "120.0" {
		t.Fatalf("calc: %s", jsonOf(t, r))
	}
	c.reqErr("calc_v1_execute", map[string]any{"program": map[string]any{"steps": []any{}}, "store": true}, pilotage.ErrUnsupported)
}

// Over HTTP a PDL served without principals is not authenticated, and
// the bearer check is set when serve starts, so a --watch reload that
// changes the tokens is refused and the served definition stays: taken,
// it would serve the new principals to clients that present no token,
// as no principal, and the diagnostics of such a client would have to
// say why every name is unknown to it (§10.3) without naming the PDL's
// principals or --principal, no business of a remote client.
func TestServeHTTPReloadKeepsTokens(t *testing.T) {
	pdl := filepath.Join(t.TempDir(), "lamps.pdl")
	src := []byte(`server "lamps" version="1"

risk safe readOnly "Reads a lamp."

language "lamps/v1" {
  locator json-pointer
  capabilities {
    guides
    catalog
    validate
  }
  grammar {
    call call with
    expressions cel
  }
  kind lamp callable "A lamp."
  guide core "Lamps" level=core {
    body """
      # Lamps
      """
  }
}

entry "lamp.read" kind=lamp risk=safe {
  returns ` + "`" + `{"lux": 10}` + "`" + `
}
`)
	if err := os.WriteFile(pdl, src, 0o644); err != nil {
		t.Fatal(err)
	}
	url, log := serveHTTPLogged(t, pdl, "--watch", "--watch-interval", "50ms")
	c, err := connectHTTP(t, url, "")
	if err != nil {
		t.Fatal(err)
	}
	// A principal with a token is a reload HTTP refuses: it authenticates
	// with the tokens serve started with (none), so keeper would be
	// served unauthenticated.
	if err := os.WriteFile(pdl, append(src, "principal keeper token=\"keeper-token\" {\n  sees \"*\"\n}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "the principals' tokens changed"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a reload adding a token was not refused:\n%s", log.String())
		}
	}
	if got := decode[pilotage.ListResponse](t, c.ok("lamps_v1_lookup", map[string]any{"verb": "list"})); len(got.Items) != 1 {
		t.Fatalf("the refused definition was served: %s", jsonOf(t, got))
	}
	validate := func(name string) string {
		return jsonOf(t, c.ok("lamps_v1_validate", map[string]any{"program": map[string]any{"steps": []any{
			map[string]any{"id": "x", "call": name, "with": map[string]any{}}}}}))
	}
	if got := validate("lamp.read"); !strings.Contains(got, `"valid":true`) {
		t.Errorf("lamp.read: want valid under the definition served: %s", got)
	}
	if got := validate("lamp.nope"); !strings.Contains(got, `"unknown_name"`) || strings.Contains(got, "keeper") {
		t.Errorf("lamp.nope: want unknown_name, naming no principal: %s", got)
	}
}

// serve --http answers a browser request of a foreign origin 403 and
// admits one --allow-origin lists, through the binary (issue 13 item 10;
// the cases are in workbench/mcpserver, TestHTTPOrigin).
func TestServeHTTPOrigin(t *testing.T) {
	url := serveHTTP(t, homeflow, "--allow-origin", "https://app.example.com")
	for origin, want := range map[string]int{"https://evil.example": http.StatusForbidden, "https://app.example.com": http.StatusUnauthorized, "http://localhost:6274": http.StatusUnauthorized} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// Without a bearer token an admitted origin meets the 401 of
		// homeflow's principals; a foreign one never gets that far.
		if resp.StatusCode != want {
			t.Errorf("Origin %s: status %d %s; want %d", origin, resp.StatusCode, body, want)
		}
	}
}
