package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	pdlcompile "github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
)

const homeflowPDL = "../../langs/homeflow/homeflow.pdl"

// homeflowEngine serves langs/homeflow with the real engine.
func homeflowEngine(t testing.TB) *engine.Engine {
	t.Helper()
	return pdlEngine(t, homeflowPDL)
}

// pdlEngine serves the PDL file at path with the real engine, the
// compiled Server changed by edit if given.
func pdlEngine(t testing.TB, path string, edit ...func(*language.Server)) *engine.Engine {
	t.Helper()
	eng, err := newPDLEngine(path, edit...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// newPDLEngine is pdlEngine outside a test: the benchmark's server
// process has no testing.TB.
func newPDLEngine(path string, edit ...func(*language.Server)) (*engine.Engine, error) {
	res, _, err := pdlcompile.Load(path, report.DefaultMaxPerRule)
	if err != nil {
		return nil, err
	}
	if !res.OK() {
		return nil, fmt.Errorf("compile %s: %v", path, res.Findings)
	}
	for _, e := range edit {
		e(res.Server)
	}
	return engine.New(res.Server, engine.Options{CheckTraces: true})
}

// TestRealEngineCarrierRules drives the reference engine serving
// langs/homeflow through an MCP client (binding.md): every answer, of
// every outcome the engine has, keeps the binding's result shape and
// validates against the output schema its tool publishes; invalid
// programs and failed or refused Runs are results (isError false), request
// errors are isError results with the envelope (§8). homeflow's scripted
// latency (20 ms a sensor read) is left out: it adds no outcome, only
// wall time to each Run that reads a sensor.
func TestRealEngineCarrierRules(t *testing.T) {
	noLatency := func(srv *language.Server) {
		for _, en := range srv.Catalog {
			en.Behavior.Latency = 0
		}
	}
	s, err := New(context.Background(), pdlEngine(t, homeflowPDL, noLatency), Options{Principal: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, tl := range lt.Tools {
		if schemas[tl.Name], err = compile(tl.Name+"-out", tl.OutputSchema); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
	}
	evening := readJSON(t, "../../langs/homeflow/programs/evening.json")
	input := readJSON(t, "../../langs/homeflow/programs/evening.input.json")
	garage := map[string]any{"steps": []any{
		map[string]any{"id": "on", "call": "lights.set", "with": map[string]any{"room": `"garage"`, "on": "true"}},
		// homeflow's garage sensor is scripted to fail: the Run stops here.
		map[string]any{"id": "read", "call": "sensors.read", "with": map[string]any{"room": `"garage"`}}}}
	typo := map[string]any{"steps": []any{map[string]any{"id": "r", "call": "sensors.raed", "with": map[string]any{}}}}
	stored := structured(t, call(t, cs, "homeflow_v1_execute", map[string]any{"program": evening, "input": input, "store": true}))
	for _, c := range []struct {
		tool string
		args map[string]any
		// want is "error:<kind>" for a request error, else a member of the
		// structured result and its value, as JSON.
		want string
	}{
		{"pilotage_discover", nil, `"pilotage":"1.1"`},
		{"homeflow_v1_learn", map[string]any{}, `"guides":[`},
		{"homeflow_v1_learn", map[string]any{"id": "no-such"}, "error:not_found"},
		{"homeflow_v1_lookup", map[string]any{"verb": "list", "limit": 2}, `"next_cursor":`},
		{"homeflow_v1_lookup", map[string]any{"verb": "get", "id": "no.such"}, "error:not_found"},
		{"homeflow_v1_lookup", map[string]any{"verb": "changed_since", "catalog_version": "cv-never"}, "error:unknown_baseline"},
		{"homeflow_v1_validate", map[string]any{"program": evening}, `"valid":true`},
		{"homeflow_v1_validate", map[string]any{"program": typo}, `"valid":false`},
		{"homeflow_v1_validate", map[string]any{"program": 42}, `"code":"syntax"`},
		{"homeflow_v1_validate", map[string]any{"program": evening, "context": map[string]any{}}, `"code":"context_binding"`},
		{"homeflow_v1_execute", map[string]any{"program": evening, "input": input}, `"status":"success"`},
		{"homeflow_v1_execute", map[string]any{"program": evening, "input": input, "trace_level": "none"}, `"status":"success"`},
		{"homeflow_v1_execute", map[string]any{"program": garage}, `"ok":false`},
		{"homeflow_v1_execute", map[string]any{"program": typo}, `"status":"validation_error"`},
		{"homeflow_v1_execute", map[string]any{"program": evening, "expected_catalog_version": "stale"}, `"status":"catalog_drift"`},
		{"homeflow_v1_execute", map[string]any{"program": evening, "program_ref": "prog.nightly@1"}, "error:invalid_request"},
		{"homeflow_v1_execute", map[string]any{"program_ref": "no.such@1"}, "error:not_found"},
		{"homeflow_v1_trace", map[string]any{"run_id": stored["run_id"], "trace_level": "summary"}, `"level":"summary"`},
		{"homeflow_v1_trace", map[string]any{"run_id": "run-unknown"}, "error:not_found"},
		// §6.6: trace_level none is refused on the fetch door, by the engine
		// and before it looks for the Run.
		{"homeflow_v1_trace", map[string]any{"run_id": "run-unknown", "trace_level": "none"}, "error:invalid_request"},
	} {
		res := call(t, cs, c.tool, c.args)
		got := structured(t, res)
		text := mustJSON(t, got)
		kind, wantErr := strings.CutPrefix(c.want, "error:")
		switch {
		case res.IsError != wantErr:
			t.Errorf("%s %v: isError %v, want %v: %s", c.tool, c.args, res.IsError, wantErr, text)
		case wantErr && got["error"].(map[string]any)["kind"] != kind:
			t.Errorf("%s %v: %s, want kind %s", c.tool, c.args, text, kind)
		case !wantErr && !strings.Contains(text, c.want):
			t.Errorf("%s %v: %s lacks %s", c.tool, c.args, text, c.want)
		}
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err := schemas[c.tool].Validate(inst); err != nil {
			t.Errorf("%s %v: the answer does not match the published output schema: %v\n%s", c.tool, c.args, err, text)
		}
	}
	if _, ok := structured(t, call(t, cs, "homeflow_v1_execute", map[string]any{"program": evening, "input": input, "trace_level": "none"}))["trace"]; ok {
		t.Error("trace_level none returned a trace (§5.8.1)")
	}
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}
