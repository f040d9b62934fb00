package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// fixtures are the rule fixtures, the seeds of every fuzz target here.
var fixtures = filepath.Join("testdata", "rules", "*.txtar")

// traceSeeds are the .json sections of the rule fixtures, the seeds of
// the fuzz targets that replay a trace. -short takes one in four:
// TestRuleFixtures replays every trace against its own plan.
func traceSeeds(f *testing.F) [][]byte {
	var out [][]byte
	for i, seed := range golden.Sections(f, fixtures, func(name string) bool { return strings.HasSuffix(name, ".json") }) {
		if !testing.Short() || i%4 == 0 {
			out = append(out, seed)
		}
	}
	return out
}

// FuzzReplay feeds arbitrary bytes as a trace. Whatever they are, replay
// ends with findings, never a panic or a hang; malformed JSON is exactly
// one trace-json finding and well-formed JSON none (a member name given
// twice is malformed, as jsonpos and lint read it); every finding names a
// rule and a position.
func FuzzReplay(f *testing.F) {
	plan := basePlan(f)
	for _, seed := range traceSeeds(f) {
		f.Add(seed)
	}
	f.Add([]byte(strings.Repeat("[", 20000)))
	f.Add([]byte(`{"steps": [{"id": "each", "kind": "loop", "decisions": [` + strings.Repeat(`{"at": "each", "took": "continue"},`, 500) + `{}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Replay(plan, "fuzz.json", bytes.NewReader(data), Options{MaxPerRule: 5})
		syntax := 0
		for _, fd := range res.Findings {
			if RuleByID(fd.Rule) == nil {
				t.Fatalf("finding of unknown rule %q", fd.Rule)
			}
			if fd.Rule == RuleTraceJSON {
				syntax++
			}
			if fd.Line < 1 && !strings.Contains(fd.Message, "are not listed") {
				t.Fatalf("finding without a position: %+v", fd)
			}
		}
		// Valid as lint reads JSON: encoding/json's syntax, UTF-8 and
		// each member name once in its object (docs/json.md).
		if valid := jsonpos.Check(data) == nil; valid && syntax > 0 || !valid && (syntax != 1 || len(res.Findings) != 1) {
			t.Fatalf("valid=%v but %d trace-json findings among %d: %+v", valid, syntax, len(res.Findings), res.Findings)
		}
	})
}

// FuzzLoadPlan feeds arbitrary bytes as a plan: LoadPlan returns a plan
// or an error, and a trace replays against whatever plan it returned.
func FuzzLoadPlan(f *testing.F) {
	trace, err := os.ReadFile(filepath.Join("testdata", "trace.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range golden.Sections(f, fixtures, func(name string) bool { return strings.HasSuffix(name, "plan.json") }) {
		f.Add(seed)
	}
	f.Add([]byte(`{"steps": [{"id": "a", "kind": "loop", "loop": "b"}, {"id": "b", "kind": "loop", "loop": "a"}, {"id": "c", "loop": "a"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		plan, err := LoadPlan("fuzz.plan.json", data, 0)
		if err != nil {
			return
		}
		for _, s := range plan.Steps {
			if len(s.Chain) > len(plan.Steps) {
				t.Fatalf("step %q has %d ancestors in a plan of %d steps", s.ID, len(s.Chain), len(plan.Steps))
			}
		}
		Replay(plan, "trace.json", bytes.NewReader(trace), Options{})
	})
}

// FuzzLoadSnapshot feeds arbitrary bytes as a snapshot: LoadSnapshot
// returns a Language or an error, and a trace replays against whatever
// Language it returned.
func FuzzLoadSnapshot(f *testing.F) {
	plan := basePlan(f)
	trace, err := os.ReadFile(filepath.Join("testdata", "trace.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range golden.Sections(f, fixtures, func(name string) bool { return name == "snapshot.json" }) {
		f.Add(seed)
	}
	if src, err := os.ReadFile(filepath.Join("..", "docs", "examples", "snapshot.json")); err == nil {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := LoadSnapshot("fuzz.snapshot.json", data, "")
		if err != nil {
			return
		}
		Replay(plan, "trace.json", bytes.NewReader(trace), Options{Language: l})
	})
}
