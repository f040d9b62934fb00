package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	pdlcompile "github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
)

// orderPDL declares what every check of §6.5.2 needs to fail: retention
// none with execute.idempotency, no execute.test_run, a catalog with
// promoted programs, and a guest who cannot see them.
const orderPDL = "testdata/order/order.pdl"

// wireAnswer is what a client sees of an execute answer: a request
// error's kind, or a refused Run's outcome status, and the text that
// says which check decided (the error's message or the outcome's error).
type wireAnswer struct {
	kind, status, says string
}

// answerOf reads a tool result the way a client does: isError with the
// error envelope, or a processed operation with its outcome (§8).
func answerOf(t *testing.T, res *mcp.CallToolResult) wireAnswer {
	t.Helper()
	var got struct {
		Error *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
		Outcome *struct {
			OK     bool   `json:"ok"`
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"outcome"`
		Diagnostics []struct {
			Code string `json:"code"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(resultJSON(t, res)), &got); err != nil {
		t.Fatal(err)
	}
	switch {
	case res.IsError && got.Error != nil:
		return wireAnswer{kind: got.Error.Kind, says: got.Error.Message}
	case !res.IsError && got.Outcome != nil && !got.Outcome.OK:
		says := got.Outcome.Error
		for _, d := range got.Diagnostics {
			says += " [" + d.Code + "]"
		}
		return wireAnswer{status: got.Outcome.Status, says: says}
	}
	t.Fatalf("neither a request error nor a refused Run: isError %v, %s", res.IsError, resultJSON(t, res))
	return wireAnswer{}
}

// matches reports whether a is the answer w describes: the same kind or
// status, and says contains w.says.
func (w wireAnswer) matches(a wireAnswer) bool {
	return a.kind == w.kind && a.status == w.status && strings.Contains(a.says, w.says)
}

// orderSessions serves order.pdl's engine to the owner and the guest,
// each over its own in-memory MCP session, after recording the owner's
// Runs under idempotency keys "k" and "" (so another runnable with either
// conflicts)
// and changing lights.set's output schema (so prog.off@1 meets
// promotion_drift).
func orderSessions(t *testing.T) map[string]*mcp.ClientSession {
	t.Helper()
	eng := pdlEngine(t, orderPDL)
	sessions := map[string]*mcp.ClientSession{}
	for _, p := range []string{"owner", "guest"} {
		s, err := New(context.Background(), eng, Options{Principal: p})
		if err != nil {
			t.Fatal(err)
		}
		sessions[p] = connect(t, s)
	}
	for _, key := range []string{"k", ""} {
		seed := resultJSON(t, call(t, sessions["owner"], "order_v1_execute",
			map[string]any{"program": lightsOn, "input": onInput, "idempotency_key": key}))
		if !strings.Contains(seed, `"status":"success"`) {
			t.Fatalf("seed Run with key %q: %s", key, seed)
		}
	}
	changeOutputSchema(t, eng, "lights.set", `{"type": "object"}`)
	return sessions
}

// changeOutputSchema serves a copy of the PDL entry id with another
// output_schema, a load-bearing field of the promotion baseline (§5.4).
func changeOutputSchema(t *testing.T, eng *engine.Engine, id, schema string) {
	t.Helper()
	res, _, err := pdlcompile.Load(orderPDL, report.DefaultMaxPerRule)
	if err != nil || !res.OK() {
		t.Fatalf("compile %s: %v %v", orderPDL, err, res)
	}
	for _, en := range res.Server.Catalog {
		if en.ID == id {
			cp := *en
			cp.OutputSchema = json.RawMessage(schema)
			if err := eng.UpsertEntry(&cp); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("%s has no entry %s", orderPDL, id)
}

// resultJSON is a result's structured content as JSON.
func resultJSON(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	return mustJSON(t, structured(t, res))
}

var (
	lightsOn   = map[string]any{"steps": []any{map[string]any{"id": "on", "call": "lights.set", "with": map[string]any{"on": "input.on"}}}}
	unknownOp  = map[string]any{"steps": []any{map[string]any{"id": "x", "call": "nope"}}}
	onInput    = map[string]any{"on": true}
	otherInput = map[string]any{"on": false} // lightsOn with this input and key "k": the seed's key with another input, a conflict (§6.5.6)
)

// traceLevelOf is execute's answer to a trace_level it does not
// recognize; value is the JSON text the client sent, quoted as Go does
// (a value that is not a string is handed on as its JSON text; "" is
// the empty trace_level the client sent, not its JSON text "\"\"").
func traceLevelOf(value string) wireAnswer {
	return wireAnswer{kind: "invalid_request", says: `unknown trace_level "` + value + `"`}
}

// modeOf is order.pdl's answer to a mode selector other than immediate.
func modeOf(value string) wireAnswer {
	return wireAnswer{kind: "invalid_request", says: `mode "` + value + `" cannot be selected`}
}

// TestExecuteProcessingOrderOnTheWire sends, through real MCP client
// sessions, execute requests that fail two adjacent checks of §6.5.2 at
// once, in the order the spec lists the checks, and asserts the first
// check decides what the client sees: the request error's kind or the
// refused Run's outcome status. Each pair's later request repairs the
// first defect only, proving the request really fails the later check.
// Issue 10 item 6: the tool's input schema answered
// {"program_ref":"prog.nope","trace_level":"x"} with invalid_request
// before the engine could answer not_found.
func TestExecuteProcessingOrderOnTheWire(t *testing.T) {
	sessions := orderSessions(t)
	type request struct {
		as   string
		args map[string]any
	}
	owner := func(args map[string]any) request { return request{"owner", args} }
	var (
		selection    = wireAnswer{kind: "invalid_request", says: "not both"}
		neither      = wireAnswer{kind: "invalid_request", says: "send a program or a program_ref"}
		noRef        = wireAnswer{kind: "not_found", says: "no promoted program"}
		traceLevel   = traceLevelOf("x")
		testRun      = wireAnswer{kind: "unsupported", says: "execute.test_run"}
		store        = wireAnswer{kind: "unsupported", says: "store: true"}
		conflict     = wireAnswer{kind: "conflict", says: "idempotency_key"}
		catalogDrift = wireAnswer{status: "catalog_drift", says: "catalog version mismatch"}
		invalid      = wireAnswer{status: "validation_error", says: "does not validate [unknown_name]"}
		promoDrift   = wireAnswer{status: "promotion_drift", says: "lights.set changed"}
		inputBinding = wireAnswer{status: "validation_error", says: "does not bind [input_binding]"}
	)
	for _, c := range []struct {
		pair  string
		both  request    // fails both checks
		later request    // fails the later check only
		first wireAnswer // what both gets: the earlier check's answer
		then  wireAnswer // what later gets
	}{
		// Step 1, runnable selection (§6.5.1) before everything else.
		{"both program and program_ref before every other check",
			owner(map[string]any{"program": unknownOp, "program_ref": "prog.nope", "trace_level": "x", "test_run": true, "store": true,
				"idempotency_key": "k", "expected_catalog_version": "stale", "input": []any{1}}),
			owner(map[string]any{"program_ref": "prog.nope", "trace_level": "x"}), selection, noRef},
		{"neither program nor program_ref before trace_level",
			owner(map[string]any{"trace_level": "x"}),
			owner(map[string]any{"program": lightsOn, "trace_level": "x"}), neither, traceLevel},
		// §6.5.1: a supplied program_ref is a runnable even when it is
		// the empty string, so it and a program are both; alone it is a
		// reference that resolves to nothing.
		{"program and an empty program_ref before every other check",
			owner(map[string]any{"program": map[string]any{"steps": []any{}}, "program_ref": "", "trace_level": "x"}),
			owner(map[string]any{"program_ref": "", "trace_level": "x"}), selection, wireAnswer{kind: "not_found", says: `no promoted program ""`}},
		// Step 1, program_ref resolution before trace_level.
		{"unknown program_ref before an unrecognized trace_level",
			owner(map[string]any{"program_ref": "prog.nope", "trace_level": "x"}),
			owner(map[string]any{"program_ref": "prog.off@1", "trace_level": "x"}), noRef, traceLevel},
		// A trace_level that is not a string, or is empty, is no recognized
		// trace_level either: it is judged at that check, not before it.
		{"unknown program_ref before a trace_level that is a number",
			owner(map[string]any{"program_ref": "prog.nope", "trace_level": 5}),
			owner(map[string]any{"program": lightsOn, "input": onInput, "trace_level": 5}), noRef, traceLevelOf("5")},
		{"unknown program_ref before an empty trace_level",
			owner(map[string]any{"program_ref": "prog.nope", "trace_level": ""}),
			owner(map[string]any{"program": lightsOn, "input": onInput, "trace_level": ""}), noRef, traceLevelOf("")},
		// §10.3: a program_ref the caller may not see is one that does not exist.
		{"unauthorized program_ref before an unrecognized trace_level",
			request{"guest", map[string]any{"program_ref": "prog.off@1", "trace_level": "x"}},
			owner(map[string]any{"program_ref": "prog.off@1", "trace_level": "x"}), noRef, traceLevel},
		// Step 1, trace_level before test_run.
		{"a trace_level that is null before test_run not declared",
			owner(map[string]any{"program": lightsOn, "trace_level": nil, "test_run": true}),
			owner(map[string]any{"program": lightsOn, "test_run": true}), traceLevelOf("null"), testRun},
		{"unrecognized trace_level before test_run not declared",
			owner(map[string]any{"program": lightsOn, "trace_level": "x", "test_run": true}),
			owner(map[string]any{"program": lightsOn, "test_run": true}), traceLevel, testRun},
		// Step 1, test_run before the binding's mode selector, whatever
		// JSON value mode holds.
		{"test_run not declared before an empty mode",
			owner(map[string]any{"program": lightsOn, "test_run": true, "mode": ""}),
			owner(map[string]any{"program": lightsOn, "input": onInput, "mode": ""}), testRun, modeOf("")},
		{"test_run not declared before a mode that is a number",
			owner(map[string]any{"program": lightsOn, "test_run": true, "mode": 1}),
			owner(map[string]any{"program": lightsOn, "input": onInput, "mode": 1}), testRun, modeOf("1")},
		// Step 1, test_run before store.
		{"test_run not declared before store under retention none",
			owner(map[string]any{"program": lightsOn, "test_run": true, "store": true}),
			owner(map[string]any{"program": lightsOn, "store": true}), testRun, store},
		// Step 1, store before the idempotency conflict.
		{"store under retention none before an idempotency conflict",
			owner(map[string]any{"program": lightsOn, "input": otherInput, "store": true, "idempotency_key": "k"}),
			owner(map[string]any{"program": lightsOn, "input": otherInput, "idempotency_key": "k"}), store, conflict},
		// Step 1 (its last check) before step 2.
		{"idempotency conflict before catalog drift",
			owner(map[string]any{"program": lightsOn, "input": otherInput, "idempotency_key": "k", "expected_catalog_version": "stale"}),
			owner(map[string]any{"program": lightsOn, "input": otherInput, "expected_catalog_version": "stale"}), conflict, catalogDrift},
		// §6.5.3: an empty expected_catalog_version is a supplied token,
		// never the current one, so it is compared, not ignored.
		{"idempotency conflict before drift from an empty token",
			owner(map[string]any{"program": lightsOn, "input": otherInput, "idempotency_key": "k", "expected_catalog_version": ""}),
			owner(map[string]any{"program": map[string]any{"steps": []any{}}, "expected_catalog_version": ""}), conflict, catalogDrift},
		// §6.5.6: an empty idempotency_key is a key like any other; used
		// with another input it conflicts with its first Run.
		{"store under retention none before a conflict on the empty key",
			owner(map[string]any{"program": lightsOn, "input": otherInput, "store": true, "idempotency_key": ""}),
			owner(map[string]any{"program": lightsOn, "input": otherInput, "idempotency_key": ""}), store, conflict},
		// Step 2 before step 3, for an inline program and for a program_ref.
		{"catalog drift before revalidation",
			owner(map[string]any{"program": unknownOp, "expected_catalog_version": "stale"}),
			owner(map[string]any{"program": unknownOp}), catalogDrift, invalid},
		{"catalog drift before the promotion baseline",
			owner(map[string]any{"program_ref": "prog.off@1", "input": onInput, "expected_catalog_version": "stale"}),
			owner(map[string]any{"program_ref": "prog.off@1", "input": onInput}), catalogDrift, promoDrift},
		// Step 3 before step 4.
		{"revalidation before input binding",
			owner(map[string]any{"program": unknownOp, "input": []any{1}}),
			owner(map[string]any{"program": lightsOn, "input": []any{1}}), invalid, inputBinding},
		{"promotion baseline before input binding",
			owner(map[string]any{"program_ref": "prog.off@1", "input": []any{1}}),
			owner(map[string]any{"program_ref": "prog.fan@1", "input": []any{1}}), promoDrift, inputBinding},
	} {
		t.Run(c.pair, func(t *testing.T) {
			if got := answerOf(t, call(t, sessions[c.both.as], "order_v1_execute", c.both.args)); !c.first.matches(got) {
				t.Errorf("failing both checks: got %+v, want the first check's %+v", got, c.first)
			}
			if got := answerOf(t, call(t, sessions[c.later.as], "order_v1_execute", c.later.args)); !c.then.matches(got) {
				t.Errorf("failing the later check only: got %+v, want %+v", got, c.then)
			}
		})
	}
}

// TestLookupArgumentsReachTheEngine: the lookup tool's input schema says
// limit is at least 1, but limit means nothing to get or changed_since,
// and list's q is refused for a Language without catalog.search before
// its page size is looked at. The schema layer answered all three
// invalid_request without a catalog_version; the engine's answers are the
// ones §6.3 asks for (an unknown id is a request error that still carries
// catalog_version) and the capability refusals.
func TestLookupArgumentsReachTheEngine(t *testing.T) {
	cs := orderSessions(t)["owner"]
	for _, c := range []struct {
		args map[string]any
		want wireAnswer
	}{
		{map[string]any{"verb": "get", "id": "prog.nope", "limit": 0}, wireAnswer{kind: "not_found", says: `no catalog entry "prog.nope"`}},
		// A supplied id is looked up, the empty one too: no entry has it.
		{map[string]any{"verb": "get", "id": ""}, wireAnswer{kind: "not_found", says: `no catalog entry ""`}},
		{map[string]any{"verb": "get"}, wireAnswer{kind: "invalid_request", says: "get needs an id"}},
		{map[string]any{"verb": "list", "q": "lights", "limit": 0}, wireAnswer{kind: "unsupported", says: "catalog.search"}},
		// §6.3: a supplied q is a search, the empty one too, so a Language
		// without catalog.search refuses it like any q.
		{map[string]any{"verb": "list", "q": ""}, wireAnswer{kind: "unsupported", says: "catalog.search"}},
		{map[string]any{"verb": "changed_since", "catalog_version": "x", "limit": 0}, wireAnswer{kind: "unsupported", says: "catalog.changed_since"}},
		{map[string]any{"verb": "list", "limit": -1}, wireAnswer{kind: "invalid_request", says: "limit must be at least 1, got -1"}},
		// A page of no entries asks for nothing: the schema's minimum 1
		// holds, judged by the engine after q (§6.3).
		{map[string]any{"verb": "list", "limit": 0}, wireAnswer{kind: "invalid_request", says: "limit must be at least 1, got 0"}},
		// No listing returns an empty next_cursor, so "" is no cursor of
		// one (§6.3), not the first page.
		{map[string]any{"verb": "list", "cursor": ""}, wireAnswer{kind: "invalid_request", says: "the cursor is not one this listing returned"}},
		{map[string]any{"verb": 7}, wireAnswer{kind: "invalid_request", says: `unknown lookup verb "7"`}},
		// No verb is "", so a supplied "" is refused like a missing verb,
		// in words that fit the request the client sent.
		{map[string]any{"verb": ""}, wireAnswer{kind: "invalid_request", says: "the verb is missing or empty"}},
	} {
		res := call(t, cs, "order_v1_lookup", c.args)
		if got := answerOf(t, res); !c.want.matches(got) {
			t.Errorf("%v: got %+v, want %+v", c.args, got, c.want)
		}
		if v, _ := structured(t, res)["error"].(map[string]any)["catalog_version"].(string); v == "" {
			t.Errorf("%v: the request error carries no catalog_version (§6.3)", c.args)
		}
	}
	// Left out, limit is the default page.
	res := call(t, cs, "order_v1_lookup", map[string]any{"verb": "list"})
	if items, _ := structured(t, res)["items"].([]any); res.IsError || len(items) != 4 {
		t.Errorf("list without limit: isError %v, %s; want the 4 entries", res.IsError, resultJSON(t, res))
	}
	// Supplied, kind "" and tag "" filter by the empty kind and tag (§6.3),
	// which no entry has: the page is empty, not every entry.
	for _, filter := range []string{"kind", "tag"} {
		res := call(t, cs, "order_v1_lookup", map[string]any{"verb": "list", filter: ""})
		if items, ok := structured(t, res)["items"].([]any); res.IsError || !ok || len(items) != 0 {
			t.Errorf("list with %s \"\": isError %v, %s; want no entries", filter, res.IsError, resultJSON(t, res))
		}
	}
}

// TestWrongJSONTypeIsRefusedFirst: a member of the wrong JSON type that
// §6.5.2 does not judge by recognizing its value (store, test_run and
// the other non-enum members) cannot be handed to the engine, so the
// binding refuses it before any check of §6.5.2, naming the member
// (binding.md, Schemas). An enum member (trace_level, mode) of any JSON
// value is the engine's, in order: TestExecuteProcessingOrderOnTheWire.
func TestWrongJSONTypeIsRefusedFirst(t *testing.T) {
	cs := orderSessions(t)["owner"]
	for _, c := range []struct {
		args   map[string]any
		member string
	}{
		{map[string]any{"program": lightsOn, "program_ref": "prog.off@1", "store": "yes"}, "/store"},
		{map[string]any{"program_ref": "prog.nope", "test_run": "yes"}, "/test_run"},
	} {
		got := answerOf(t, call(t, cs, "order_v1_execute", c.args))
		if want := (wireAnswer{kind: "invalid_request", says: "input schema: " + c.member + ":"}); !want.matches(got) {
			t.Errorf("%v: got %+v, want %+v", c.args, got, want)
		}
	}
}

// TestIntegerOutOfRangeNamesTheMember: a limit the JSON Schema calls an
// integer (2.0, 1e30) but no Go int holds passes the type check and fails
// only when decoded; the client must still hear which member is wrong, as
// binding.md promises of every wrong type, not by Go's struct field.
func TestIntegerOutOfRangeNamesTheMember(t *testing.T) {
	cs := orderSessions(t)["owner"]
	for _, limit := range []any{json.RawMessage("2.0"), 1e30} {
		args := map[string]any{"verb": "list", "limit": limit}
		got := answerOf(t, call(t, cs, "order_v1_lookup", args))
		if want := (wireAnswer{kind: "invalid_request", says: "the arguments cannot be read: /limit: got number"}); !want.matches(got) || strings.Contains(got.says, "Go struct") {
			t.Errorf("limit %v: got %+v, want %+v", limit, got, want)
		}
	}
}

// TestLearnEmptyMembersAreSupplied: learn's index form is the request
// without an id (§6.2); a supplied id "" names no guide, and a supplied
// topic "" is a topic fetch, which order.pdl does not declare.
func TestLearnEmptyMembersAreSupplied(t *testing.T) {
	cs := orderSessions(t)["owner"]
	for _, c := range []struct {
		args map[string]any
		want wireAnswer
	}{
		{map[string]any{"id": ""}, wireAnswer{kind: "not_found", says: `no guide ""`}},
		{map[string]any{"id": "core", "topic": ""}, wireAnswer{kind: "unsupported", says: "guides.topic_fetch"}},
		{map[string]any{"topic": ""}, wireAnswer{kind: "invalid_request", says: "a topic needs the id of its guide"}},
	} {
		if got := answerOf(t, call(t, cs, "order_v1_learn", c.args)); !c.want.matches(got) {
			t.Errorf("%v: got %+v, want %+v", c.args, got, c.want)
		}
	}
}
