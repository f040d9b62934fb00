package replay

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// testLanguage is the Language the deep replay fixtures' programs are
// written in: the engine tests' grammar (homeflow's), three devices and
// the entries named in more.
func testLanguage(more ...string) (*language.Server, *language.Language) {
	l := &language.Language{ID: "home/v1", Locator: pilotage.LocatorJSONPointer,
		Grammar: language.Grammar{Call: "call", Args: "with", Branch: "if", Arms: []string{"then", "else"},
			Loop: "for_each", Item: "as", Body: "do", Run: "run", RunArgs: "with", Expressions: "cel", Input: true},
		Limits: language.Limits{Steps: 100, Time: time.Second, Depth: 8, Iterations: 50, Expansion: 2, MemoryBytes: 1 << 20, ProgramBytes: 1 << 16}}
	srv := &language.Server{Languages: []*language.Language{l}}
	for _, id := range append([]string{"sensors.read", "fan.set", "lights.set"}, more...) {
		srv.Catalog = append(srv.Catalog, &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: id, Kind: "device", Risk: "write"}})
	}
	return srv, l
}

// deepFixture loads an archive's program.json (and input.json) for deep
// replay in testLanguage. An archive's body.json is the body of the
// promoted program prog.body@1 of that Language, whose entries its traces
// expand (§5.8.3).
func deepFixture(t testing.TB, prog []byte, a *golden.Archive) *Deep {
	t.Helper()
	srv, l := testLanguage()
	if body, ok := a.File("body.json"); ok {
		srv.Catalog = append(srv.Catalog, &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: "prog.body@1", Kind: "program", Risk: "write",
			InputSchema: json.RawMessage(`{"type": "object"}`)}, Program: body, Pos: language.Pos{File: "body.pdl", Line: 1, Column: 1}})
		l.TraceSubprogram = pilotage.SubprogramExpanded
	}
	d, err := LoadDeep("program.json", prog, srv, l)
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := a.File("input.json"); ok {
		if d.Input, err = expr.DecodeJSON(in); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// deepFuzzContext is the plan, program and input of the deep-branch
// fixture, which the deep replay fuzz targets replay against.
func deepFuzzContext(f testing.TB) (*Plan, *golden.Archive) {
	a := golden.ReadArchive(f, filepath.Join("testdata", "rules", "deep-branch.txtar"))
	src, _ := a.File("plan.json")
	plan, err := LoadPlan("plan.json", src)
	if err != nil {
		f.Fatal(err)
	}
	return plan, a
}

// FuzzDeepReplay feeds arbitrary bytes as a trace to deep replay: it
// ends with findings of known rules, each at a position, never a panic
// or a hang, however the trace departs from the program.
func FuzzDeepReplay(f *testing.F) {
	plan, a := deepFuzzContext(f)
	prog, _ := a.File("program.json")
	for _, seed := range golden.Sections(f, fixtures, func(name string) bool { return strings.HasSuffix(name, ".json") }) {
		f.Add(seed)
	}
	d := deepFixture(f, prog, a)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Replay(plan, "fuzz.json", bytes.NewReader(data), Options{Deep: d, MaxPerRule: 5})
		for _, fd := range res.Findings {
			if RuleByID(fd.Rule) == nil {
				t.Fatalf("finding of unknown rule %q", fd.Rule)
			}
			if fd.Line < 1 && !strings.Contains(fd.Message, "are not listed") {
				t.Fatalf("finding without a position: %+v", fd)
			}
		}
	})
}

// FuzzLoadDeep feeds arbitrary bytes as the program: LoadDeep returns
// what to re-decide with or an error, and a fixture trace deep-replays
// against whatever it returned.
func FuzzLoadDeep(f *testing.F) {
	plan, a := deepFuzzContext(f)
	trace, _ := a.File("fail_flipped.json")
	prog, _ := a.File("program.json")
	f.Add(prog)
	f.Add([]byte(`{"steps": [{"id": "x", "if": "1/0 == 1", "then": [], "else": []}], "output": "steps.x.output"}`))
	f.Add([]byte(`{"steps": [{"id": "x", "for_each": "[1,2,3].map(i, [i, i])", "as": "v", "do": []}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		srv, l := testLanguage()
		d, err := LoadDeep("fuzz.program.json", data, srv, l)
		if err != nil {
			return
		}
		Replay(plan, "trace.json", bytes.NewReader(trace), Options{Deep: d})
	})
}

// TestDeepSkipsInstallation: a deploy installation trace (§6.5.7) and a
// refused Run executed no Run of the program, so deep replay says nothing
// of them; deploy-trace and refused-run say what they are.
func TestDeepSkipsInstallation(t *testing.T) {
	plan, a := deepFuzzContext(t)
	prog, _ := a.File("program.json")
	d := deepFixture(t, prog, a)
	for name, trace := range map[string]string{
		"installation": `{"run_id": "r1", "level": "summary", "outcome": {"ok": true, "status": "success"}, "mode": "deploy",
 "steps": [{"id": "install", "calls": ["rules.install"], "outcome": {"ok": true, "status": "success"}}]}`,
		"refused": `{"run_id": "r1", "level": "full", "outcome": {"ok": false, "status": "validation_error"}, "steps": []}`,
	} {
		res := Replay(plan, name+".json", strings.NewReader(trace), Options{Deep: d})
		for _, f := range res.Findings {
			if strings.HasPrefix(f.Rule, "deep-") {
				t.Errorf("%s: %s: %s", name, f.Rule, f.Message)
			}
		}
	}
}
