package conform

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// compiled is the Language of a PDL file for the reference server,
// compiled once per test binary: engines and servers only read it. A
// test that changes the Language compiles its own (compileFresh).
// Scripted latency is left out (homeflow's 20 ms a sensor read): no
// test here measures time, and it was a tenth of a second of waiting
// in each check that executes.
func compiled(t testing.TB, pdl string) *compile.Result {
	t.Helper()
	once, _ := compiledPDL.LoadOrStore(pdl, sync.OnceValues(func() (*compile.Result, error) { return load(pdl) }))
	res, err := once.(func() (*compile.Result, error))()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var compiledPDL sync.Map // PDL file name → func() (*compile.Result, error)

// compileFresh compiles the Language of a PDL file anew, for a test that
// changes it.
func compileFresh(t testing.TB, pdl string) *compile.Result {
	t.Helper()
	res, err := load(pdl)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func load(pdl string) (*compile.Result, error) {
	res, _, err := compile.Load(pdl, report.DefaultMaxPerRule)
	if err == nil && !res.OK() {
		err = fmt.Errorf("%v", res.Findings)
	}
	if err != nil {
		return nil, fmt.Errorf("compile %s: %v", pdl, err)
	}
	for _, en := range res.Server.Catalog {
		en.Behavior.Latency = 0
	}
	return res, nil
}

// keepNothing is testdata/keepnothing, a Language executing under
// retention none (§6.5), with its program.
func keepNothing(t testing.TB) (*compile.Result, *Program) {
	const dir = "testdata/keepnothing/"
	return compiled(t, dir+"keepnothing.pdl"), &Program{
		File:  "hello.json",
		Src:   readFile(t, dir+"hello.json"),
		Input: readFile(t, dir+"hello.input.json"),
	}
}

const notesDir = "../../langs/notes/"

// notes is langs/notes, a text-range Language (§5.5) whose catalog does
// not declare changed_since (§6.3), with its example program.
func notes(t testing.TB) (*compile.Result, *Program) {
	return compiled(t, notesDir+"notes.pdl"), &Program{
		File:  "digest.txt",
		Src:   readFile(t, notesDir+"programs/digest.txt"),
		Input: readFile(t, notesDir+"programs/digest.input.json"),
	}
}

// The refusal probes that homeflow does not reach pass on the reference
// server: store: true under retention none (testdata/keepnothing, §6.5),
// and the text-range unknown_name probe and changed_since undeclared
// (notes, §5.5, §6.3; one check of notes sends both). Each counts its
// probe's requests, so a probe that stops being sent fails here rather
// than passing silently.
func TestRefusalProbesOnOtherLanguagesAreClean(t *testing.T) {
	type probe struct {
		name, tool string
		// is tells the probe's request among the tool's calls.
		is func(args map[string]any) bool
	}
	for _, tc := range []struct {
		name   string
		lang   func(testing.TB) (*compile.Result, *Program)
		probes []probe
	}{
		{"keepnothing", keepNothing, []probe{
			{"store under retention none", "keepnothing_v1_execute", func(args map[string]any) bool { return args["store"] == true }},
		}},
		{"notes", notes, []probe{
			{"unknown name as text", "notes_v1_validate", func(args map[string]any) bool {
				p, _ := args["program"].(string)
				return strings.Contains(p, absentSuffix)
			}},
			{"changed_since undeclared", "notes_v1_lookup", func(args map[string]any) bool { return args["verb"] == "changed_since" }},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, prog := tc.lang(t)
			s := reference(t, res, "owner").MCP()
			sent := make([]int, len(tc.probes))
			for i, p := range tc.probes {
				s.AddReceivingMiddleware(onCall(t, p.tool, func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
					if p.is(args) {
						sent[i]++
					}
					return next(args)
				}))
			}
			rep := check(t, inMemory(t, s), Options{Execute: true, Program: prog})
			if len(rep.Findings) != 0 {
				t.Errorf("findings:\n%s", findings(rep))
			}
			for i, p := range tc.probes {
				if sent[i] != 1 {
					t.Errorf("%s: %d probe requests, want 1", p.name, sent[i])
				}
			}
		})
	}
}

// Servers of those Languages that answer the probe otherwise than Part II
// says: a middleware on the reference server changes one answer, and
// conform names the operation and the pointer in it (golden file per
// case).
func TestRefusalViolationsOnOtherLanguages(t *testing.T) {
	for _, tc := range []struct {
		name string
		lang func(testing.TB) (*compile.Result, *Program)
		tool string
		mw   func(t *testing.T, tool string) mcp.Middleware
	}{
		// §6.5: store: true under retention none dropped and the Run
		// executed, as if the server could keep it.
		{"store-accepted", keepNothing, "keepnothing_v1_execute", func(t *testing.T, tool string) mcp.Middleware {
			return onCall(t, tool, func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
				delete(args, "store")
				return next(args)
			})
		}},
		// §5.5: the unknown_name range moved one line down, off the name.
		{"unknown-name-range-moved", notes, "notes_v1_validate", func(t *testing.T, tool string) mcp.Middleware {
			return rewriteTool(t, tool, func(res map[string]any) {
				diags, _ := res["diagnostics"].([]any)
				for _, d := range diags {
					d := d.(map[string]any)
					if d["code"] != "unknown_name" {
						continue
					}
					r := d["path"].(map[string]any)
					for _, end := range []string{"start", "end"} {
						pos := r[end].(map[string]any)
						pos["line"] = pos["line"].(float64) + 1
					}
				}
			})
		}},
		// §6.3: changed_since, which notes does not declare, answered
		// as if there were no changes.
		{"changed-since-undeclared-answered", notes, "notes_v1_lookup", func(t *testing.T, tool string) mcp.Middleware {
			return onCall(t, tool, func(args map[string]any, next func(map[string]any) *mcp.CallToolResult) *mcp.CallToolResult {
				if args["verb"] == "changed_since" {
					return result(map[string]any{"catalog_version": "v1", "changes": []any{}}, false)
				}
				return next(args)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, prog := tc.lang(t)
			s := reference(t, res, "owner").MCP()
			s.AddReceivingMiddleware(tc.mw(t, tc.tool))
			dir := t.TempDir()
			rep := check(t, inMemory(t, s), Options{Dir: dir, Execute: true, Program: prog})
			checkGolden(t, "testdata/refusal-"+tc.name+".golden", rep, dir)
		})
	}
}

// A Language without plan (langs/calc) gets no plan from validate (§5.6):
// conform runs the program and checks the Run's channels without one,
// and reports nothing for the plan's absence.
func TestLanguageWithoutPlan(t *testing.T) {
	var status strings.Builder
	prog := &Program{File: "total.json", Src: []byte(`{"steps": [], "output": "input.price * (1.0 + input.vat)"}`), Input: []byte(`{"price": 10.5, "vat": 0.2}`)}
	rep := check(t, inMemory(t, reference(t, compiled(t, "../../langs/calc/calc.pdl"), "").MCP()),
		Options{Dir: t.TempDir(), Program: prog, Execute: true, Status: &status})
	for _, f := range rep.Findings {
		if f.Severity != report.Info {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
	if !strings.Contains(status.String(), "calc/v1 declares no plan") {
		t.Errorf("status does not say the Run is not replayed:\n%s", status.String())
	}
}

// A --program the server finds invalid is a program-valid finding (§6.4)
// naming its diagnostics, and nothing is executed, even with --execute.
func TestInvalidProgramIsReported(t *testing.T) {
	prog := &Program{File: "typo.json", Src: []byte(`{"steps": [{"id": "a", "call": "lights.sett", "with": {"room": "\"living\"", "on": "true"}}]}`)}
	s := reference(t, homeflow(t), "owner").MCP()
	executes := 0
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params.Name == "homeflow_v1_execute" {
				executes++
			}
			return next(ctx, method, req)
		}
	})
	dir := t.TempDir()
	rep := check(t, inMemory(t, s), Options{Dir: dir, Program: prog, Execute: true})
	ruleFixture(t, rep, dir, RuleProgramValid)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Rule+": "+f.Message)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], RuleProgramValid+": typo.json does not validate in homeflow/v1: ") || !strings.Contains(got[0], "unknown_name") {
		t.Errorf("findings %q, want one %s finding with the unknown_name diagnostic", got, RuleProgramValid)
	}
	if executes != 0 {
		t.Errorf("%d execute calls for a program that does not validate", executes)
	}
}
