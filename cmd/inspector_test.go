package cmd_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// inspector installs the MCP Inspector from the npm registry
// (golden.NPMInstall: once, into the user's cache directory, skipped with
// the reason without node and npm) and returns its CLI.
func inspector(t *testing.T) string {
	t.Helper()
	const cli = "node_modules/.bin/mcp-inspector"
	return filepath.Join(golden.NPMInstall(t, "inspector", cli, "@modelcontextprotocol/inspector"), cli)
}

// inspect runs one Inspector CLI call against `pilotage serve` on stdio
// and returns the printed result and whether it was a tool error. Newer
// Inspectors exit 5 on isError; older ones exit 0 and print isError.
func inspect(t *testing.T, serveArgs []string, method string, args ...string) (map[string]any, bool) {
	t.Helper()
	return inspectTarget(t, append([]string{pilotageBinary(t), "serve"}, serveArgs...), method, args...)
}

// inspectTarget runs the Inspector CLI against target: a command line
// (stdio) or an http URL.
func inspectTarget(t *testing.T, target []string, method string, args ...string) (map[string]any, bool) {
	t.Helper()
	argv := append([]string{"--cli"}, target...)
	argv = append(argv, "--method", method)
	argv = append(argv, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stdout, stderr, code := runExit(t, exec.CommandContext(ctx, inspector(t), argv...))
	var res map[string]any
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		t.Fatalf("inspector %s %v: exit %d, output is not JSON: %v\nstdout: %s\nstderr: %s", method, args, code, jerr, stdout.String(), stderr.String())
	}
	isErr, _ := res["isError"].(bool)
	if code != 0 && !(code == 5 && isErr) {
		t.Fatalf("inspector %s %v: exit %d\nstderr: %s", method, args, code, stderr.String())
	}
	return res, isErr
}

// structuredOf checks the binding's shape in the Inspector's printout and
// decodes structuredContent into T.
func structuredOf[T any](t *testing.T, res map[string]any) T {
	t.Helper()
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content = %v", res["content"])
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("text block: %v", err)
	}
	if jsonOf(t, fromText) != jsonOf(t, res["structuredContent"]) {
		t.Fatalf("text %s differs from structuredContent %s", text, jsonOf(t, res["structuredContent"]))
	}
	var v T
	if err := json.Unmarshal([]byte(jsonOf(t, res["structuredContent"])), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// The standard loop driven by an MCP client not written here: the MCP
// Inspector's CLI mode (its SDK also checks every structuredContent
// against the tool's outputSchema). Each call is a fresh server process,
// so --data keeps the stored Run for the final fetch.
func TestInspectorStandardLoop(t *testing.T) {
	inspector(t)
	serve := []string{homeflow, "--principal", "owner", "--data", t.TempDir()}
	tools, _ := inspect(t, serve, "tools/list")
	if n := len(tools["tools"].([]any)); n != 6 {
		t.Fatalf("%d tools, want pilotage_discover and five homeflow tools", n)
	}
	res, isErr := inspect(t, serve, "tools/call", "--tool-name", "pilotage_discover")
	if m := structuredOf[pilotage.Manifest](t, res); isErr || m.Languages[0].Loop.Validate != "homeflow_v1_validate" {
		t.Fatalf("discover: %v", res)
	}
	res, _ = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_learn", "--tool-arg", "id=core")
	if g := structuredOf[pilotage.LearnFetch](t, res); g.Guide.Body == nil {
		t.Fatalf("learn: %v", res)
	}
	res, _ = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_lookup", "--tool-arg", "verb=get", "id=sensors.read")
	if g := structuredOf[pilotage.GetResponse](t, res); g.Entry.ID != "sensors.read" {
		t.Fatalf("lookup: %v", res)
	}
	program := "program=" + jsonOf(t, morning)
	res, isErr = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_validate", "--tool-arg",
		`program={"steps":[{"id":"s","call":"fan.sett","with":{}}]}`)
	if v := structuredOf[pilotage.ValidateResponse](t, res); isErr || v.Valid || v.Diagnostics[0].Code != "unknown_name" {
		t.Fatalf("invalid program: isError %v %v", isErr, res)
	}
	res, _ = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_validate", "--tool-arg", program)
	v := structuredOf[pilotage.ValidateResponse](t, res)
	if !v.Valid || v.Plan == nil {
		t.Fatalf("validate: %v", res)
	}
	res, isErr = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_execute", "--tool-arg", program,
		"input="+jsonOf(t, rooms), "expected_catalog_version="+v.CatalogVersion, "store=true")
	run := structuredOf[pilotage.ExecuteResponse](t, res)
	if isErr || !run.Outcome.OK || string(run.Output) != `[{"on":true},{"on":true}]` {
		t.Fatalf("execute: %v", res)
	}
	res, _ = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_trace", "--tool-arg", "run_id="+run.RunID)
	if f := structuredOf[pilotage.TraceFetchResponse](t, res); f.RunID != run.RunID || jsonOf(t, f.Trace) != jsonOf(t, run.Trace) {
		t.Fatalf("trace fetch: %v", res)
	}
	// A request error: isError true with the envelope.
	res, isErr = inspect(t, serve, "tools/call", "--tool-name", "homeflow_v1_trace", "--tool-arg", "run_id=no-such-run")
	if e := structuredOf[pilotage.RequestErrorEnvelope](t, res); !isErr || e.Error.Kind != pilotage.ErrNotFound {
		t.Fatalf("unknown run: isError %v %v", isErr, res)
	}
	res, _ = inspect(t, serve, "resources/read", "--uri", "pilotage://manifest")
	if c := res["contents"].([]any)[0].(map[string]any); c["mimeType"] != "application/json" {
		t.Fatalf("manifest resource: %v", res)
	}
}

// The Inspector over streamable HTTP. Its CLI sends no custom headers, so
// it drives a PDL without principals (langs/calc), served without
// authentication.
func TestInspectorHTTP(t *testing.T) {
	inspector(t)
	url := serveHTTP(t, "../langs/calc/calc.pdl")
	target := []string{url, "--transport", "http"}
	res, isErr := inspectTarget(t, target, "tools/call", "--tool-name", "calc_v1_validate",
		"--tool-arg", `program={"steps": [], "output": "input.price * (1.0 + input.vat)"}`)
	if v := structuredOf[pilotage.ValidateResponse](t, res); isErr || !v.Valid {
		t.Fatalf("validate over HTTP: %v", res)
	}
	res, isErr = inspectTarget(t, target, "tools/call", "--tool-name", "calc_v1_execute",
		"--tool-arg", `program={"steps": [], "output": "input.price * (1.0 + input.vat)"}`, `input={"price": 100.5, "vat": 0.5}`)
	// JavaScript re-serialises 100.0 as 100, an int to CEL, so the prices
	// here have fractions.
	if r := structuredOf[pilotage.ExecuteResponse](t, res); isErr || !r.Outcome.OK || string(r.Output) != "150.75" {
		t.Fatalf("execute over HTTP: %v", res)
	}
}

// The Inspector with a text-range Language (langs/notes): the validate
// tool's program is a string in its input schema, so the Inspector sends
// the text after program= as typed, and the diagnostic's path is a
// line:column range in that text (§5.5), here the quoted entry name.
func TestInspectorTextProgram(t *testing.T) {
	inspector(t)
	serve := []string{"../langs/notes/notes.pdl"}
	res, isErr := inspect(t, serve, "tools/call", "--tool-name", "notes_v1_validate", "--tool-arg",
		`program={"steps": [{"id": "a", "call": "notes.serch", "with": {}}]}`)
	v := structuredOf[pilotage.ValidateResponse](t, res)
	want := pilotage.TextRange{Start: pilotage.LineCol{Line: 1, Column: 32}, End: pilotage.LineCol{Line: 1, Column: 45}}
	if isErr || v.Valid || len(v.Diagnostics) != 1 || v.Diagnostics[0].Path.Text == nil || *v.Diagnostics[0].Path.Text != want {
		t.Fatalf("want one unknown_name at 1:32-1:45: isError %v %v", isErr, res)
	}
}

// The Inspector with a Language of its own syntax (langs/ledger, syntax
// text): the program is statements, a misspelt entry is located on its
// token with a did-you-mean, and a valid program's plan carries the
// generated id of its unlabeled statement (§3.4).
func TestInspectorTextSyntax(t *testing.T) {
	inspector(t)
	serve := []string{"--principal", "bookkeeper", "../langs/ledger/ledger.pdl"}
	res, isErr := inspect(t, serve, "tools/call", "--tool-name", "ledger_v1_validate", "--tool-arg",
		`program=cash = accounts.balanse(account: "cash")`)
	v := structuredOf[pilotage.ValidateResponse](t, res)
	want := pilotage.TextRange{Start: pilotage.LineCol{Line: 1, Column: 8}, End: pilotage.LineCol{Line: 1, Column: 24}}
	if isErr || v.Valid || len(v.Diagnostics) != 1 || v.Diagnostics[0].Path.Text == nil || *v.Diagnostics[0].Path.Text != want ||
		v.Diagnostics[0].Hint != "did you mean accounts.balance?" {
		t.Fatalf("want one unknown_name at 1:8-1:24 with a did-you-mean: isError %v %v", isErr, res)
	}
	res, isErr = inspect(t, serve, "tools/call", "--tool-name", "ledger_v1_validate", "--tool-arg",
		`program=accounts.balance(account: "cash")`)
	v = structuredOf[pilotage.ValidateResponse](t, res)
	if isErr || !v.Valid || v.Plan == nil || len(v.Plan.Steps) != 1 || v.Plan.Steps[0].ID != "accounts_balance_1" {
		t.Fatalf("want a valid plan with the step accounts_balance_1: isError %v %v", isErr, res)
	}
}
