package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// A golden case is a txtar archive: a comment line "language principal
// session" (principal "-" is no principal), the sections `program` (or a whole `execute.json` request) and
// optional `context`/`input`, and `want`, the response as indented JSON.
// Run ids and timings are normalised.
type goldenCase struct {
	*golden.Archive
	lang    string
	caller  string
	session string
}

// goldenCases runs fn as a subtest for every case of testdata/dir.
func goldenCases(t *testing.T, dir string, fn func(t *testing.T, g *goldenCase)) {
	t.Helper()
	golden.Archives(t, filepath.Join("testdata", dir, "*.txtar"), func(t *testing.T, a *golden.Archive) {
		fields := strings.Fields(string(a.Comment))
		if len(fields) < 3 {
			t.Fatalf("%s: the comment must be \"language principal session\"", a.Path)
		}
		caller := fields[1]
		if caller == "-" {
			caller = ""
		}
		fn(t, &goldenCase{Archive: a, lang: fields[0], caller: caller, session: fields[2]})
	})
}

// file returns the section called name without surrounding space, nil
// when the case has none.
func (g *goldenCase) file(name string) []byte {
	data, _ := g.File(name)
	return bytes.TrimSpace(data)
}

// goldenIDKey fixes the key of deployed program ids, so goldens that
// deploy read the same program_ref every run.
var goldenIDKey = bytes.Repeat([]byte{7}, 32)

var (
	runIDs  = regexp.MustCompile(`run-[0-9a-f]{32}`)
	timings = regexp.MustCompile(`"(t_ms|elapsed_ms)": [0-9.e+-]+`)
)

// normalise replaces what differs between runs: run ids and timings.
func normalise(b []byte) []byte {
	b = runIDs.ReplaceAll(b, []byte("RUN"))
	return timings.ReplaceAll(b, []byte(`"$1": "T"`))
}

func (g *goldenCase) check(t *testing.T, got any, gotErr error) {
	t.Helper()
	var v any = got
	if gotErr != nil {
		var re *pilotage.RequestError
		if !errors.As(gotErr, &re) {
			t.Fatalf("internal error: %v", gotErr)
		}
		v = pilotage.RequestErrorEnvelope{Error: *re}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	g.Check(t, "want", append(normalise(b), '\n'))
}

// TestValidateGolden runs every testdata/validate case: each diagnostic
// code, locator dialect, scope rule, context rule and plan derivation.
func TestValidateGolden(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	goldenCases(t, "validate", func(t *testing.T, g *goldenCase) {
		req := pilotage.ValidateRequest{Program: g.file("program"), Context: g.file("context")}
		resp, err := e.Validate(context.Background(), callerOf(g.caller, g.session), g.lang, req)
		g.check(t, resp, err)
		if err == nil && resp.Plan != nil {
			assertSchema(t, pilotage.SchemaPlan, resp.Plan)
		}
	})
}

// TestExecuteGolden runs every testdata/execute case against a fresh
// engine: outcomes, traces at each level, refusals and request errors.
func TestExecuteGolden(t *testing.T) {
	goldenCases(t, "execute", func(t *testing.T, g *goldenCase) {
		if testing.Short() && filepath.Base(g.Path) == "cost_limit.txtar" {
			t.Skip("evaluating to the cost limit (ExprCost) is the full suite's; -short's runtime_error_partial fails an argument's evaluation the same way")
		}
		e := newEngineWith(t, homeServer(), Options{DataDir: t.TempDir(), IDKey: goldenIDKey})
		var req pilotage.ExecuteRequest
		if err := json.Unmarshal(g.file("execute.json"), &req); err != nil {
			t.Fatalf("%s: execute.json: %v", g.Path, err)
		}
		resp, err := e.Execute(context.Background(), callerOf(g.caller, g.session), g.lang, req)
		g.check(t, resp, err)
		if err == nil && resp.Trace != nil {
			assertSchema(t, pilotage.SchemaTrace, resp.Trace)
			assertTrace(t, e, g.lang, g.caller, req, resp)
		}
	})
}

// assertSchema validates v against one of the embedded wire schemas.
func assertSchema(t *testing.T, name string, v any) {
	t.Helper()
	s, err := pilotage.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, vi := range pilotage.Violations(s.Validate(inst)) {
		t.Errorf("%s: %s: %s", name, vi.Pointer, vi.Message)
	}
}
