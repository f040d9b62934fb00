package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/internal/testsupport/mcptest"
)

func newServer(t testing.TB, f *fakeService, principal string) *Server {
	t.Helper()
	s, err := New(context.Background(), f, Options{Principal: principal, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect opens an in-memory client session on s.
func connect(t testing.TB, s *Server) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, s, nil)
}

// connectWith is connect with a client's options (its notification
// handlers).
func connectWith(t testing.TB, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: carrier error %v", name, err)
	}
	return res
}

// structured checks the binding's result shape and returns the JSON.
func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	m, err := mcptest.Result(res)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestInitializeDeclaresTheExtension(t *testing.T) {
	cs := connect(t, newServer(t, newFake(), "alice"))
	caps := cs.InitializeResult().Capabilities
	ext, ok := caps.Extensions[binding.ExtensionID].(map[string]any)
	if !ok {
		t.Fatalf("capabilities.extensions = %#v, want %q", caps.Extensions, binding.ExtensionID)
	}
	if ext["version"] != "1.1" || ext["discover"] != "pilotage_discover" {
		t.Fatalf("extension settings = %v", ext)
	}
	//lint:ignore SA1019 the test checks that the deprecated capability is not declared
	if caps.Logging != nil {
		t.Errorf("logging capability declared, but the server sends no log messages")
	}
}

func TestToolsCarrySchemasAndManifestNames(t *testing.T) {
	cs := connect(t, newServer(t, newFake(), "alice"))
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		in, _ := tl.InputSchema.(map[string]any)
		out, _ := tl.OutputSchema.(map[string]any)
		if in["type"] != "object" || out["type"] != "object" {
			t.Errorf("%s: input type %v, output type %v; both must be object schemas", tl.Name, in["type"], out["type"])
		}
		raw, _ := json.Marshal(tl)
		if bytes.Contains(raw, []byte(`"$ref"`)) || bytes.Contains(raw, []byte(`"$schema"`)) {
			t.Errorf("%s: schema is not self-contained: %s", tl.Name, raw)
		}
		readOnly := tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		if readOnly == strings.HasSuffix(tl.Name, "_execute") {
			t.Errorf("%s: readOnlyHint %v", tl.Name, readOnly)
		}
	}
	names := toolNames(t, cs)
	want := []string{"demo_v1_execute", "demo_v1_learn", "demo_v1_lookup", "demo_v1_trace", "demo_v1_validate", "pilotage_discover"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
}

// Every answer, response or request error, must validate against the
// output schema the tool publishes, or a schema-checking client rejects it.
func TestAnswersMatchPublishedOutputSchemas(t *testing.T) {
	s := newServer(t, newFake(), "alice")
	cs := connect(t, s)
	lt, _ := cs.ListTools(context.Background(), nil)
	schemas := map[string]*jsonschema.Schema{}
	for _, tl := range lt.Tools {
		sch, err := compile(tl.Name+"-out", tl.OutputSchema)
		if err != nil {
			t.Fatalf("%s: output schema does not compile: %v", tl.Name, err)
		}
		schemas[tl.Name] = sch
	}
	run := structured(t, call(t, cs, "demo_v1_execute", map[string]any{"program": map[string]any{"steps": []string{"lights.on"}}}))
	for _, c := range []struct {
		tool string
		args any
	}{
		{"pilotage_discover", nil},
		{"demo_v1_learn", map[string]any{}},
		{"demo_v1_learn", map[string]any{"id": "core"}},
		{"demo_v1_learn", map[string]any{"id": "nope"}},
		{"demo_v1_lookup", map[string]any{"verb": "list"}},
		{"demo_v1_lookup", map[string]any{"verb": "get", "id": "lights.on"}},
		{"demo_v1_lookup", map[string]any{"verb": "get", "id": "doors.open"}},
		{"demo_v1_validate", map[string]any{"program": map[string]any{"steps": []string{"doors.open"}}}},
		{"demo_v1_validate", map[string]any{"program": 42}},
		{"demo_v1_execute", map[string]any{"program": map[string]any{"steps": []string{"fail.me"}}}},
		{"demo_v1_execute", map[string]any{}},
		{"demo_v1_trace", map[string]any{"run_id": run["run_id"]}},
		{"demo_v1_trace", map[string]any{"run_id": "run-unknown"}},
	} {
		res := call(t, cs, c.tool, c.args)
		got := structured(t, res)
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(mustJSON(t, got)))
		if err := schemas[c.tool].Validate(inst); err != nil {
			t.Errorf("%s %v: answer %s does not match the output schema: %v", c.tool, c.args, mustJSON(t, got), err)
		}
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// §8: invalidity and failed Runs are results; request errors are isError
// results with the envelope; carrier failures are JSON-RPC errors.
func TestFourChannels(t *testing.T) {
	cs := connect(t, newServer(t, newFake(), "alice"))

	res := call(t, cs, "demo_v1_validate", map[string]any{"program": map[string]any{"steps": []string{"lights.on", "doors.open"}}})
	got := structured(t, res)
	if res.IsError || got["valid"] != false {
		t.Fatalf("invalid program: isError %v, %v", res.IsError, got)
	}
	diags := got["diagnostics"].([]any)
	if len(diags) != 1 || diags[0].(map[string]any)["code"] != "unknown_name" || diags[0].(map[string]any)["path"] != "/steps/1" {
		t.Fatalf("diagnostics = %v", diags)
	}

	// The published schema says a program is an object, but a program of
	// another shape is the program's fault: a diagnostic, not a request
	// error (§8).
	for _, prog := range []any{42, "steps", []any{}} {
		res = call(t, cs, "demo_v1_validate", map[string]any{"program": prog})
		if got = structured(t, res); res.IsError || got["valid"] != false {
			t.Fatalf("program %v: isError %v, %v", prog, res.IsError, got)
		}
	}

	res = call(t, cs, "demo_v1_execute", map[string]any{"program": map[string]any{"steps": []string{"fail.me"}}})
	got = structured(t, res)
	if res.IsError || got["outcome"].(map[string]any)["status"] != "partial" {
		t.Fatalf("failed Run: isError %v, %v", res.IsError, got)
	}

	res = call(t, cs, "demo_v1_lookup", map[string]any{"verb": "get", "id": "doors.open"})
	got = structured(t, res)
	if !res.IsError {
		t.Fatalf("request error: isError false, %v", got)
	}
	e := got["error"].(map[string]any)
	if e["kind"] != "not_found" || e["catalog_version"] != "v:lights.on,fail.me" || len(got) != 1 {
		t.Fatalf("error envelope = %v", got)
	}

	// A member of the wrong JSON type is the request's fault, not the
	// carrier's; values (an unknown verb, a verb of any JSON type, since
	// verb is an enum) are the service's to judge.
	res = call(t, cs, "demo_v1_lookup", map[string]any{"verb": "list", "limit": "ten"})
	got = structured(t, res)
	if !res.IsError || got["error"].(map[string]any)["kind"] != "invalid_request" ||
		!strings.Contains(got["error"].(map[string]any)["message"].(string), "/limit") {
		t.Fatalf("limit \"ten\": %v", got)
	}

	for _, c := range []struct {
		tool string
		args any
	}{
		{"demo_v1_nope", map[string]any{}},
		{"demo_v1_validate", []int{1}},
		{"demo_v1_validate", "program"},
		{"pilotage_discover", 7},
	} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err == nil {
			t.Errorf("%s %v: want a JSON-RPC error", c.tool, c.args)
		}
	}
}

func TestManifestAndGuideResources(t *testing.T) {
	cs := connect(t, newServer(t, newFake(), "alice"))
	ctx := context.Background()
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]*mcp.Resource{}
	for _, r := range lr.Resources {
		uris[r.URI] = r
	}
	guideURI := "pilotage://guides/demo%2Fv1/core"
	if uris[binding.ManifestURI] == nil || uris[binding.ManifestURI].MIMEType != "application/json" || uris[guideURI] == nil {
		t.Fatalf("resources = %v", uris)
	}
	if r := uris[guideURI]; r.MIMEType != "text/markdown" || r.Size != int64(len(coreBody)) {
		t.Errorf("guide resource = %+v", r)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: binding.ManifestURI})
	if err != nil {
		t.Fatal(err)
	}
	disc := structured(t, call(t, cs, "pilotage_discover", nil))
	var fromResource any
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &fromResource); err != nil {
		t.Fatal(err)
	}
	if mustJSON(t, fromResource) != mustJSON(t, disc) {
		t.Fatalf("manifest resource %s differs from pilotage_discover %s", rr.Contents[0].Text, mustJSON(t, disc))
	}
	if disc["languages"].([]any)[0].(map[string]any)["loop"].(map[string]any)["validate"] != "demo_v1_validate" {
		t.Fatalf("manifest = %v", disc)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: guideURI})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Contents[0].Text != coreBody || rr.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("guide resource = %+v", rr.Contents[0])
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "pilotage://guides/demo%2Fv1/nope"}); err == nil {
		t.Fatal("unknown guide resource: want an error")
	}
}

// Retention "session" ends with the MCP session: each connection is its
// own Session, and closing it calls EndSession with the id its calls had.
func TestSessionsEndWithTheConnection(t *testing.T) {
	f := newFake()
	s := newServer(t, f, "alice")
	a, b := connect(t, s), connect(t, s)
	prog := map[string]any{"program": map[string]any{"steps": []string{"lights.on"}}}
	runA := structured(t, call(t, a, "demo_v1_execute", prog))["run_id"]
	if res := call(t, b, "demo_v1_trace", map[string]any{"run_id": runA}); !res.IsError {
		t.Fatal("a run of session A is fetchable from session B")
	}
	if res := call(t, a, "demo_v1_trace", map[string]any{"run_id": runA}); res.IsError {
		t.Fatalf("own run not fetchable: %v", structured(t, res))
	}
	callers := f.sessionCallers()
	sessA, sessB := callers[0].Session, callers[1].Session
	if sessA == sessB {
		t.Fatalf("both connections share Session %q", sessA)
	}
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(f.endedSessions(), sessA) {
		if time.Now().After(deadline) {
			t.Fatalf("EndSession(%q) not called after close; ended %v", sessA, f.endedSessions())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if slices.Contains(f.endedSessions(), sessB) {
		t.Fatal("closing A ended B")
	}
}

func TestRefreshRepublishesTools(t *testing.T) {
	f := newFake()
	s := newServer(t, f, "alice")
	cs := connect(t, s)
	f.mu.Lock()
	f.languages = []string{"other/v2"}
	f.mu.Unlock()
	if err := s.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	names := toolNames(t, cs)
	want := []string{"other_v2_execute", "other_v2_learn", "other_v2_lookup", "other_v2_trace", "other_v2_validate", "pilotage_discover"}
	if !slices.Equal(names, want) {
		t.Fatalf("after refresh: %v, want %v", names, want)
	}
	lr, _ := cs.ListResources(context.Background(), nil)
	for _, r := range lr.Resources {
		if strings.Contains(r.URI, "demo") {
			t.Errorf("stale resource %s", r.URI)
		}
	}
}

// httpClient connects over streamable HTTP with a bearer token.
func httpClient(t *testing.T, url, token string) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := mcptest.ConnectHTTP(context.Background(), url, token)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// Over HTTP the bearer token decides the principal (§10.3): two principals
// see different catalogs, and neither can tell the other's names from
// nonexistent ones.
func TestHTTPBearerPrincipals(t *testing.T) {
	f := newFake()
	s := newServer(t, f, "")
	srv := httptest.NewServer(s.HTTPHandler(map[string]string{"tok-a": "alice", "tok-b": "bob"}))
	t.Cleanup(srv.Close) // runs after the clients' cleanups close them

	for _, tok := range []string{"", "wrong"} {
		if code, err := mcptest.PingStatus(srv.URL, tok); err != nil || code != http.StatusUnauthorized {
			t.Errorf("token %q: status %d (%v), want 401", tok, code, err)
		}
	}
	if _, err := httpClient(t, srv.URL, "wrong"); err == nil {
		t.Error("client with an unknown token connected")
	}
	// The 401's body says where tokens come from, not only that one is missing.
	for _, tok := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{}`))
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := ` (hint: tokens are declared in the PDL, principal NAME token="…"; send one as Authorization: Bearer TOKEN)`; !strings.HasSuffix(string(body), want+"\n") {
			t.Errorf("token %q: 401 body %q, want it to end %q", tok, body, want)
		}
	}

	alice, err := httpClient(t, srv.URL, "tok-a")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := httpClient(t, srv.URL, "tok-b")
	if err != nil {
		t.Fatal(err)
	}
	hidden := structured(t, call(t, alice, "demo_v1_lookup", map[string]any{"verb": "get", "id": "doors.open"}))
	missing := structured(t, call(t, alice, "demo_v1_lookup", map[string]any{"verb": "get", "id": "no.such"}))
	if hidden["error"].(map[string]any)["kind"] != "not_found" || missing["error"].(map[string]any)["kind"] != "not_found" {
		t.Fatalf("hidden %v, missing %v", hidden, missing)
	}
	got := structured(t, call(t, bob, "demo_v1_lookup", map[string]any{"verb": "get", "id": "doors.open"}))
	if got["entry"].(map[string]any)["id"] != "doors.open" {
		t.Fatalf("bob get = %v", got)
	}
	principals := map[string]string{}
	callers := f.sessionCallers()
	for _, c := range callers {
		if prev, ok := principals[c.Session]; ok && prev != c.Principal {
			t.Fatalf("session %s used by %s and %s", c.Session, prev, c.Principal)
		}
		principals[c.Session] = c.Principal
	}
	if len(principals) != 2 {
		t.Fatalf("want two HTTP sessions, got %v", principals)
	}
	sessBob := callers[len(callers)-1].Session
	if sessBob != bob.ID() {
		t.Errorf("Session %q is not the Mcp-Session-Id %q", sessBob, bob.ID())
	}
	bob.Close() // DELETE ends the MCP session
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(f.endedSessions(), sessBob) {
		if time.Now().After(deadline) {
			t.Fatalf("EndSession not called for the deleted HTTP session; ended %v", f.endedSessions())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLookupTokenConstantTime(t *testing.T) {
	tokens := map[string]string{"aaaa": "alice", "bbbb": "bob"}
	if p, ok := lookupToken(tokens, "bbbb"); !ok || p != "bob" {
		t.Fatalf("bbbb → %q %v", p, ok)
	}
	for _, tok := range []string{"", "aaa", "aaaaa", "bbbc"} {
		if _, ok := lookupToken(tokens, tok); ok {
			t.Errorf("%q accepted", tok)
		}
	}
}

// toolNames lists the published tools, sorted.
func toolNames(t testing.TB, cs *mcp.ClientSession) []string {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return names
}

// Any bytes as a tool's arguments: a carrier error, a request error or a
// result, never a panic, and always the binding's result shape.
func FuzzToolArguments(f *testing.F) {
	s, err := New(context.Background(), newFake(), Options{Principal: "alice"})
	if err != nil {
		f.Fatal(err)
	}
	handlers := map[string]mcp.ToolHandler{}
	for _, op := range binding.Ops {
		handlers[string(op)] = s.opHandler("demo/v1", op, s.defs[string(op)])
	}
	for _, seed := range []string{`{}`, `{"program":{"steps":["lights.on"]}}`, `{"verb":"get","id":"x"}`, `[1]`, `null`, ``,
		`{"run_id":7}`, `{"program":"x","context":{"a":[[[[]]]]}}`, `{"limit":-1,"verb":"list"}`, "{\"id\":\"\xff\"}"} {
		for op := range handlers {
			f.Add(op, []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, op string, args []byte) {
		h, ok := handlers[op]
		if !ok {
			return
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: op, Arguments: args}}
		res, err := h(context.Background(), req)
		if err != nil {
			return // a carrier error
		}
		if len(res.Content) != 1 || res.StructuredContent == nil {
			t.Fatalf("result shape %+v", res)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; string(res.StructuredContent.(json.RawMessage)) != text {
			t.Fatalf("structuredContent %s differs from text %s", res.StructuredContent, text)
		}
	})
}
