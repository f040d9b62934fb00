package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// FuzzServerAnswers lets a server answer anything: the reference server
// runs langs/homeflow's evening program, and a middleware replaces every
// answer of one tool (picked by tool) with the fuzzed bytes, as the text
// block and, when they are JSON, as structuredContent, flagged isError or
// not. Whatever a server says is a finding (binding.md, §6, §8), never a
// panic, a hang or an error of Check, except that a manifest with no
// usable Language leaves the program nowhere to run. Every finding names
// a rule the report declares, a finding in a saved file points at a line
// of it, and an answer that is not JSON is always reported.
func FuzzServerAnswers(f *testing.F) {
	res := homeflow(f)
	tools := []string{binding.DiscoverTool}
	for _, op := range binding.Ops {
		tools = append(tools, binding.Tool("homeflow/v1", op))
	}
	// An empty answer and a refusal from every tool, and a broken answer
	// of each; with -short the broken answers of discover, execute and
	// learn stand for them all. -short's golden tests break the others'
	// answers on a real check: lookup's and validate's in
	// TestRefusalViolations (changed-since-answered,
	// unknown-name-misplaced), trace's in TestFetchDoorViolations and
	// TestBindingViolations.
	for i := range tools {
		if testing.Short() {
			break
		}
		f.Add(uint8(i), []byte(`{}`), false)
		f.Add(uint8(i), []byte(`{"error": {"kind": "not_found", "message": "no"}}`), true)
	}
	f.Add(uint8(0), []byte(`{"languages": [{"id": "homeflow/v1", "loop": {"validate": "homeflow_v1_validate", "execute": "homeflow_v1_execute", "trace": "homeflow_v1_trace"}}]}`), false)
	f.Add(uint8(0), []byte(`{"languages": [{"id": "homeflow/v1", "guides": "homeflow_v1_learn", "catalog": "homeflow_v1_lookup"}, {"id": "x/v1"}]}`), false)
	f.Add(uint8(4), []byte(`{"run_id": "r", "outcome": {"ok": true, "status": "success"}, "trace": {"level": "full", "steps": [{}]}}`), false)
	f.Add(uint8(1), []byte("not json"), false)
	if !testing.Short() {
		f.Add(uint8(2), []byte(`{"items": [{"id": 1}], "next_cursor": "a", "catalog_version": []}`), false)
		f.Add(uint8(3), []byte(`{"valid": true, "plan": {"steps": [{"id": "s", "kind": "call"}]}}`), false)
		f.Add(uint8(5), []byte(`{"run_id": "r", "trace": {"level": "summary"}}`), false)
	}
	f.Fuzz(func(t *testing.T, which uint8, answer []byte, isError bool) {
		tool := tools[int(which)%len(tools)]
		s := reference(t, res, "owner").MCP()
		s.AddReceivingMiddleware(replaceAnswer(tool, answer, isError))
		dir := t.TempDir()
		start := time.Now()
		rep, err := Check(context.Background(), inMemory(t, s), Options{Dir: dir, Timeout: 10 * time.Second, Execute: true, Program: evening(t)})
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("conform took %v", d)
		}
		if err != nil {
			if tool != binding.DiscoverTool {
				t.Fatalf("Check failed on an answer of %s: %v", tool, err)
			}
			return
		}
		declared := map[string]bool{}
		for _, r := range rep.Rules {
			declared[r.ID] = true
		}
		for _, fd := range rep.Findings {
			if !declared[fd.Rule] {
				t.Errorf("finding of an undeclared rule: %+v", fd)
			}
			if src, saved := rep.Sources[fd.File]; saved && (fd.Line < 1 || fd.Line > bytes.Count(src, []byte("\n"))+1) {
				t.Errorf("finding outside %s (%d lines): %+v", fd.File, bytes.Count(src, []byte("\n"))+1, fd)
			}
		}
		if !json.Valid(answer) && len(rep.Findings) == 0 {
			t.Errorf("%s answered %q and conform found nothing", tool, answer)
		}
	})
}

// replaceAnswer is a server middleware that answers every call of tool
// with answer.
func replaceAnswer(tool string, answer []byte, isError bool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params.Name != tool {
				return next(ctx, method, req)
			}
			res := &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: string(answer)}}}
			if json.Valid(answer) {
				res.StructuredContent = json.RawMessage(answer)
			}
			return res, nil
		}
	}
}
