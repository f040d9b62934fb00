package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
)

var update = flag.Bool("update", false, "rewrite the want files of testdata/*.txtar")

// A golden case is a txtar archive: a `request` header line
// "language principal session", the files `program` (or a whole
// `execute.json` request) and optional `context`/`input`, and `want`, the
// response as indented JSON. Run ids and timings are normalised.
type golden struct {
	path    string
	arch    *txtar.Archive
	lang    string
	caller  string
	session string
}

func loadGolden(t *testing.T, dir string) []*golden {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/%s: %v", dir, err)
	}
	var out []*golden
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(string(a.Comment))
		if len(fields) < 3 {
			t.Fatalf("%s: the comment must be \"language principal session\"", f)
		}
		out = append(out, &golden{path: f, arch: a, lang: fields[0], caller: fields[1], session: fields[2]})
	}
	return out
}

func (g *golden) file(name string) []byte {
	for _, f := range g.arch.Files {
		if f.Name == name {
			return bytes.TrimSpace(f.Data)
		}
	}
	return nil
}

var (
	runIDs  = regexp.MustCompile(`run-[0-9a-f]{32}`)
	timings = regexp.MustCompile(`"(t_ms|elapsed_ms)": [0-9.e+-]+`)
)

// normalise replaces what differs between runs: run ids and timings.
func normalise(b []byte) []byte {
	b = runIDs.ReplaceAll(b, []byte("RUN"))
	return timings.ReplaceAll(b, []byte(`"$1": "T"`))
}

func (g *golden) check(t *testing.T, got any, gotErr error) {
	t.Helper()
	var v any = got
	if gotErr != nil {
		re, ok := gotErr.(*pilotage.RequestError)
		if !ok {
			t.Fatalf("internal error: %v", gotErr)
		}
		v = pilotage.RequestErrorEnvelope{Error: *re}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = normalise(b)
	if *update {
		for i := range g.arch.Files {
			if g.arch.Files[i].Name == "want" {
				g.arch.Files[i].Data = append(b, '\n')
			}
		}
		if g.file("want") == nil {
			g.arch.Files = append(g.arch.Files, txtar.File{Name: "want", Data: append(b, '\n')})
		}
		if err := os.WriteFile(g.path, txtar.Format(g.arch), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := g.file("want"); !bytes.Equal(bytes.TrimSpace(b), want) {
		t.Errorf("%s: response differs from want\n--- got\n%s\n--- want\n%s", g.path, b, want)
	}
}

// TestValidateGolden runs every testdata/validate case: each diagnostic
// code, locator dialect, scope rule, context rule and plan derivation.
func TestValidateGolden(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	for _, g := range loadGolden(t, "validate") {
		t.Run(strings.TrimSuffix(filepath.Base(g.path), ".txtar"), func(t *testing.T) {
			req := pilotage.ValidateRequest{Program: g.file("program"), Context: g.file("context")}
			resp, err := e.Validate(context.Background(), callerOf(g.caller, g.session), g.lang, req)
			g.check(t, resp, err)
			if err == nil && resp.Plan != nil {
				assertSchema(t, pilotage.SchemaPlan, resp.Plan)
			}
		})
	}
}

// TestExecuteGolden runs every testdata/execute case against a fresh
// engine: outcomes, traces at each level, refusals and request errors.
func TestExecuteGolden(t *testing.T) {
	for _, g := range loadGolden(t, "execute") {
		t.Run(strings.TrimSuffix(filepath.Base(g.path), ".txtar"), func(t *testing.T) {
			e := newEngine(t, homeServer(), t.TempDir())
			var req pilotage.ExecuteRequest
			if err := json.Unmarshal(g.file("execute.json"), &req); err != nil {
				t.Fatalf("%s: execute.json: %v", g.path, err)
			}
			resp, err := e.Execute(context.Background(), callerOf(g.caller, g.session), g.lang, req)
			g.check(t, resp, err)
			if err == nil && resp.Trace != nil {
				assertSchema(t, pilotage.SchemaTrace, resp.Trace)
				assertTrace(t, e, g.lang, g.caller, req, resp)
			}
		})
	}
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
