package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// Hostile and huge inputs end as findings or errors, never a panic, a
// hang or memory out of proportion.

// basePlan loads testdata/plan.json, the plan most rule fixtures use.
func basePlan(tb testing.TB) *Plan {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "plan.json"))
	if err != nil {
		tb.Fatal(err)
	}
	p, err := LoadPlan("plan.json", src, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// baseTrace is a clean trace of basePlan, a completed Run whose loop ran
// once, with one more entry after its own.
func baseTrace(more string) string {
	return `{"run_id": "r", "level": "summary", "outcome": {"ok": true, "status": "success"},
 "steps": [
  {"id": "read", "calls": ["sensors.read"], "outcome": {"ok": true, "status": "success"}},
  {"id": "hot", "kind": "branch", "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": "hot", "took": "else"}]},
  {"id": "each", "kind": "loop", "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": "each", "took": "continue"}, {"at": "each", "took": "exit"}]},
  {"id": "off#1", "calls": ["lights.set"], "outcome": {"ok": true, "status": "success"}},
  ` + more + `
 ]}`
}

func rulesOf(res Result) string {
	var ids []string
	for _, f := range res.Findings {
		ids = append(ids, fmt.Sprintf("%s@%d:%d", f.Rule, f.Line, f.Column))
	}
	slices.Sort(ids)
	return strings.Join(ids, " ")
}

func TestHostileTraces(t *testing.T) {
	plan := basePlan(t)
	ok := `"outcome": {"ok": true, "status": "success"}`
	for _, c := range []struct {
		name  string
		trace string
		want  string
	}{
		{"empty file", ``, "trace-json@1:1"},
		{"deep nesting", `{"steps": [` + strings.Repeat("[", 20000), "trace-json@1:"},
		{"deep inside an entry", `{"run_id": "r", "steps": [{"id": "read", "input": ` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat("}", 20000) + `}]}`, "trace-json@1:"},
		{"trailing garbage", `{"run_id": "r", "level": "summary", ` + ok + `, "steps": []} {}`, "trace-json@1:"},
		{"a string", `"trace"`, "trace-shape@1:1"},
		{"a million qualifiers", `{"run_id": "r", "level": "summary", ` + ok + `, "steps": [{"id": "read` + strings.Repeat("#1", 1<<20) + `", "calls": ["sensors.read"], ` + ok + `}]}`,
			"expected-present@1:92 expected-present@1:92 expected-present@1:92 trace-id-qualifiers@1:100"},
		{"an id of slashes", `{"run_id": "r", "level": "summary", ` + ok + `, "steps": [{"id": "` + strings.Repeat("/", 1000) + `", ` + ok + `}]}`, "expected-present@1:92 expected-present@1:92 expected-present@1:92 trace-id-syntax@1:100"},
		{"wrong types everywhere", `{"run_id": 7, "level": ["full"], "outcome": "fine", "steps": [{"id": 1, "calls": "x", "decisions": {}, "outcome": []}]}`,
			"trace-level@1:24 trace-shape@1:12 trace-shape@1:45 trace-shape@1:63"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && len(c.trace) > 1<<16 {
				t.Skip("a trace of megabytes; run without -short")
			}
			res := Replay(plan, "hostile.json", strings.NewReader(c.trace), Options{})
			if got := rulesOf(res); !strings.HasPrefix(got, c.want) {
				t.Errorf("got %q, want it to start with %q", got, c.want)
			}
		})
	}
}

// TestHugeEntry streams a trace whose one entry is 32 MB: it is read and
// checked like any other.
func TestHugeEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a huge trace entry; run without -short")
	}
	big := `"` + strings.Repeat("x", 32<<20) + `"`
	trace := `{"run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": [` +
		`{"id": "read", "input": {}, "output": ` + big + `, "calls": ["sensors.read"], "outcome": {"ok": true, "status": "success"}},` +
		`{"id": "hot", "kind": "branch", "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": "hot", "took": "else"}]},` +
		`{"id": "each", "kind": "loop", "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": "each", "took": "exit"}]},` +
		`{"id": "read", "input": {}, "calls": ["sensors.read"], "outcome": {"ok": true, "status": "success"}}]}`
	res := Replay(basePlan(t), "huge.json", strings.NewReader(trace), Options{})
	if got := rulesOf(res); got != "entry-once@1:33554892" {
		t.Errorf("got %q", got)
	}
	if res.Source != nil {
		t.Error("a 32 MB trace was kept for source snippets")
	}
}

// TestFindingsCap: a trace wrong in every one of 10,000 entries (1,000
// in -short) lists --max-per-rule findings of each rule and counts the
// rest.
func TestFindingsCap(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	var b strings.Builder
	b.WriteString(`{"run_id": "r", "level": "summary", "outcome": {"ok": true, "status": "success"}, "steps": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"id": "read", "input": 1, "calls": ["sensors.read"], "outcome": {"ok": true, "status": "success"}}`)
	}
	b.WriteString("]}")
	res := Replay(basePlan(t), "many.json", strings.NewReader(b.String()), Options{MaxPerRule: 3})
	counts := map[string]int{}
	var more []string
	for _, f := range res.Findings {
		counts[f.Rule]++
		if strings.Contains(f.Message, "are not listed") {
			more = append(more, f.Message)
		}
	}
	if counts[RuleEntryOnce] != 4 || counts[RuleLevelContent] != 4 {
		t.Errorf("findings per rule: %v", counts)
	}
	want := []string{fmt.Sprintf("%d more entry-once findings in this file are not listed", n-4),
		fmt.Sprintf("%d more level-content findings in this file are not listed", n-3)}
	for _, w := range want {
		if !strings.Contains(strings.Join(more, "\n"), w) {
			t.Errorf("no %q among %q", w, more)
		}
	}
}

func TestDeepPlan(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"steps": [{"id": "l0", "kind": "loop"}`)
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, `, {"id": "l%d", "kind": "loop", "loop": "l%d"}`, i, i-1)
	}
	b.WriteString("]}")
	_, err := LoadPlan("deep.json", []byte(b.String()), 0)
	var pe *InputError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, `step "l513" is nested more than 512 constructs deep`) {
		t.Fatalf("got %v", err)
	}
}

// TestReadError: an I/O error of the trace reader is an error of the run,
// not a malformed-JSON finding.
func TestReadError(t *testing.T) {
	r := iotest.TimeoutReader(bytes.NewReader([]byte(`{"run_id": "r", "steps": [`)))
	res := Replay(basePlan(t), "broken-pipe.json", iotest.OneByteReader(r), Options{})
	if res.ReadErr == nil {
		t.Fatalf("no read error; findings %s", rulesOf(res))
	}
}

// TestDensePlanRefused: a plan whose steps hold 4 MiB of one-character
// values, whose tree would take 20 bytes a byte, is an *InputError at 1:1
// naming the budget (a usage error, exit 2, in the CLI), made without
// building the tree; a malformed one is still malformed JSON at its
// place; a snapshot with such a member is refused the same way.
func TestDensePlanRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("reads plans and snapshots of 4 MiB; run without -short")
	}
	dense := `{"mode": "immediate", "steps": [{"id": "a", "kind": "step", "x": [` + strings.Repeat("0,", 2<<20) + `0]}]}`
	_, err := LoadPlan("dense.json", []byte(dense), 0)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 1 || ie.Col != 1 || !strings.Contains(ie.Msg, "plan too dense to read") ||
		!strings.Contains(ie.Msg, "4 bytes a byte plus 6 MiB") {
		t.Errorf("LoadPlan = %v, want an InputError at 1:1 naming the budget", err)
	}
	_, err = LoadPlan("bad.json", []byte(dense[:len(dense)-4]+",]}]}"), 0)
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "malformed JSON: trailing comma") {
		t.Errorf("LoadPlan of malformed JSON = %v", err)
	}
	snap, err := os.ReadFile("../docs/examples/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	denseSnap := append([]byte(`{"x": [`+strings.Repeat("0,", 2<<20)+`0],`), snap[bytes.IndexByte(snap, '{')+1:]...)
	_, err = LoadSnapshot("snapshot.json", denseSnap, "")
	if !errors.As(err, &ie) || ie.Line != 1 || ie.Col != 1 || !strings.Contains(ie.Msg, "snapshot too dense to read") {
		t.Errorf("LoadSnapshot = %v, want an InputError at 1:1 naming the budget", err)
	}
	if _, err := LoadSnapshot("snapshot.json", snap, ""); err != nil {
		t.Errorf("LoadSnapshot of the example: %v", err)
	}
}

// TestArrayCheckedWhole: a file that is an array of one-character values
// is not a trace, known at its first byte; the rest is checked for the
// syntax error lint would report, at its place, without the decoder's
// token a value: allocations, not time, are held (the machine is
// shared), at most 8 bytes a byte where the decoder's tokens took 68 (16
// MiB took 4 seconds and 107 MB in pilotage replay).
func TestArrayCheckedWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("measures what replaying megabytes allocates; run without -short")
	}
	const n = 1 << 20 // values: 2 MiB
	values := "[" + strings.Repeat("1,", n-1) + "1]"
	plan := basePlan(t)
	for _, c := range []struct{ name, src, want string }{
		{"well-formed", values, "trace-shape@1:1"},
		{"on a second line", "\n" + values, "trace-shape@2:1"},
		{"a trailing comma", values[:len(values)-1] + ",]", fmt.Sprintf("trace-json@1:%d", len(values))},
		{"a NUL after the bracket", " [\x00" + values[1:], "trace-json@1:3"},
		{"not UTF-8 at the end", values + "\n\xff", "trace-json@2:1"},
		{"cut short", values[:len(values)-1], fmt.Sprintf("trace-json@1:%d", len(values))},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res Result
			bytes := memtest.Allocated(func() {
				res = Replay(plan, "values.json", iotest.HalfReader(strings.NewReader(c.src)), Options{})
			})
			if got := rulesOf(res); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			t.Logf("%d bytes: allocated %d", len(c.src), bytes)
			if bytes > 8*uint64(len(c.src)) {
				t.Errorf("replaying %d bytes allocated %d, over 8 a byte", len(c.src), bytes)
			}
		})
	}
}

// TestLongValuesClipped: a finding that quotes a member's value (run_id,
// level, mode, catalog_version) quotes its start, cut between
// characters, not the whole of a value that may be megabytes.
func TestLongValuesClipped(t *testing.T) {
	long := `"` + strings.Repeat("é", 50_000) + `"`
	many := "[" + strings.Repeat("1,", 50_000) + "1]"
	for _, member := range []string{`"run_id": ` + many, `"level": ` + long, `"mode": ` + long, `"catalog_version": ` + many} {
		trace := []byte(`{"run_id": "r", "level": "summary", "outcome": {"ok": true, "status": "success"}, "trace": {` + member + `, "steps": []}}`)
		plan, err := LoadPlan("plan.json", []byte(`{"steps": [], "max_risk": "safe", "max_risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}}`), 0)
		if err != nil {
			t.Fatal(err)
		}
		fs := Replay(plan, "trace.json", bytes.NewReader(trace), Options{}).Findings
		quoted := false
		for _, f := range fs {
			if len(f.Message) > 300 || !utf8.ValidString(f.Message) {
				t.Errorf("%.20s…: a finding of %d bytes (valid UTF-8: %v): %.80s…", member, len(f.Message), utf8.ValidString(f.Message), f.Message)
			}
			quoted = quoted || strings.Contains(f.Message, "…")
		}
		if !quoted {
			t.Errorf("%.20s…: no finding quotes the value clipped: %v", member, fs)
		}
	}
}

// TestLongStringsClipped: a run_id or catalog_version string is read
// whole (replay compares every byte), but a finding carries it clipped
// like any quoted value: the run_id is every finding's key, so a 16 MiB
// run_id printed whole made the text report of a trace with 53 findings
// 889 MB. Every finding's key and message stay short, and the clipped
// key still begins with the run_id.
func TestLongStringsClipped(t *testing.T) {
	long := strings.Repeat("é", 50_000)
	plan, err := LoadPlan("plan.json", []byte(`{"catalog_version": "v1", "steps": [], "max_risk": "safe", "max_risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, trace, rule string }{
		{"run_id as key", `{"run_id": "` + long + `", "level": "summary", "outcome": {"ok": true, "status": "success"}, "steps": [{"id": "x", "outcome": {"ok": true, "status": "success"}}]}`, ""},
		{"run_id differs", `{"run_id": "r", "outcome": {"ok": true, "status": "success"}, "trace": {"run_id": "` + long + `", "level": "summary", "outcome": {"ok": true, "status": "success"}, "steps": []}}`, RuleRunOutcome},
		{"catalog_version", `{"run_id": "r", "catalog_version": "` + long + `", "level": "summary", "outcome": {"ok": true, "status": "success"}, "steps": []}`, RuleCatalogVersion},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := Replay(plan, "trace.json", strings.NewReader(c.trace), Options{}).Findings
			if len(fs) == 0 {
				t.Fatal("no findings")
			}
			ruled := c.rule == ""
			for _, f := range fs {
				ruled = ruled || f.Rule == c.rule
				if len(f.Message) > 400 || len(f.Key) > 130 || !utf8.ValidString(f.Message) || !utf8.ValidString(f.Key) {
					t.Errorf("%s: a finding of %d bytes, key %d bytes (valid UTF-8: %v, %v)", f.Rule, len(f.Message), len(f.Key), utf8.ValidString(f.Message), utf8.ValidString(f.Key))
				}
				if !strings.HasPrefix(long, strings.TrimSuffix(f.Key, "…")) && f.Key != "r" {
					t.Errorf("%s: key %.40q… is not the run_id's start", f.Rule, f.Key)
				}
			}
			if !ruled {
				t.Errorf("no %s finding: %v", c.rule, fs)
			}
		})
	}
}

// TestLongNamesClipped: a finding quotes the plan's and the trace's
// names (step ids, entry ids, arm labels, calls) clipped like any
// value: a plan step id of 500,000 bytes was quoted whole, twice, in
// every trace's findings, 200 MB of report for 200 traces of 438 bytes.
func TestLongNamesClipped(t *testing.T) {
	long := func(s string) string { return s + strings.Repeat("é", 5_000) }
	read, hot, then, each, off, call := long("read"), long("hot"), long("then"), long("each"), long("off"), long("sensors.")
	plan, err := LoadPlan("plan.json", fmt.Appendf(nil, `{"steps": [
		{"id": %[1]q, "kind": "step", "calls": [%[6]q]},
		{"id": %[2]q, "kind": "branch", "arms": [%[3]q, "else"]},
		{"id": "fan", "kind": "step", "calls": ["fan.set"], "arm": {"branch": %[2]q, "label": %[3]q}},
		{"id": %[4]q, "kind": "loop"},
		{"id": %[5]q, "kind": "step", "calls": ["lights.set"], "loop": %[4]q}],
		"max_risk": "write", "max_risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`, read, hot, then, each, off, call), 0)
	if err != nil {
		t.Fatal(err)
	}
	ok := `"outcome": {"ok": true, "status": "success"}`
	for name, steps := range map[string]string{
		"no entries":     ``,
		"wrong calls":    fmt.Sprintf(`{"id": %q, "calls": [%q], %s}`, read, long("x"), ok),
		"wrong arm":      fmt.Sprintf(`{"id": %q, "decisions": [{"at": %q, "took": %q, "because": "b"}], %s}, {"id": "fan", "calls": ["fan.set"], %s}`, hot, hot, long("other"), ok, ok),
		"loop, no exit":  fmt.Sprintf(`{"id": %q, %s}, {"id": %q, "calls": ["lights.set"], %s}`, each, ok, off+"#1", ok),
		"out of order":   fmt.Sprintf(`{"id": %q, "decisions": [{"at": %q, "took": "else", "because": "b"}], %s}, {"id": %q, "calls": [%q], %s}`, hot, hot, ok, read, call, ok),
		"unplanned step": fmt.Sprintf(`{"id": %q, "calls": [%q], %s}`, long("nowhere"), call, ok),
	} {
		trace := fmt.Sprintf(`{"run_id": "r", "level": "full", %s, "steps": [%s]}`, ok, steps)
		fs := Replay(plan, "trace.json", strings.NewReader(trace), Options{}).Findings
		if len(fs) == 0 {
			t.Errorf("%s: no findings", name)
		}
		for _, f := range fs {
			// A message quotes at most a few names, each at most 120 bytes.
			if len(f.Message) > 800 || len(f.Hint) > 800 || !utf8.ValidString(f.Message) {
				t.Errorf("%s: %s finding of %d bytes, hint %d (valid UTF-8: %v): %.200s…", name, f.Rule, len(f.Message), len(f.Hint), utf8.ValidString(f.Message), f.Message)
			}
			for _, rel := range f.Related {
				if len(rel.Note) > 300 {
					t.Errorf("%s: %s finding's related note of %d bytes", name, f.Rule, len(rel.Note))
				}
			}
		}
	}
}

// TestLongListsCapped: a finding that quotes a list of the plan's (a
// step's calls, a branch's arms) quotes its first 20 names and counts
// the rest: listed whole, a step of 20,000 calls would repeat its 20,000
// names in the finding of every entry that called another.
func TestLongListsCapped(t *testing.T) {
	var calls, arms []string
	for i := range 20_000 {
		calls = append(calls, fmt.Sprintf("sensors.read%d", i))
		arms = append(arms, fmt.Sprintf("arm%d", i))
	}
	callsJSON, _ := json.Marshal(calls)
	armsJSON, _ := json.Marshal(arms)
	plan, err := LoadPlan("plan.json", fmt.Appendf(nil, `{"steps": [
		{"id": "read", "kind": "step", "calls": %s},
		{"id": "hot", "kind": "branch", "arms": %s}],
		"max_risk": "write", "max_risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`, callsJSON, armsJSON), 0)
	if err != nil {
		t.Fatal(err)
	}
	ok := `"outcome": {"ok": true, "status": "success"}`
	for name, steps := range map[string]string{
		"wrong calls": `{"id": "read", "calls": ["x"], ` + ok + `}`,
		"no calls":    `{"id": "read", ` + ok + `}`,
		"wrong arm":   `{"id": "read", "calls": ["sensors.read0"], ` + ok + `}, {"id": "hot", "decisions": [{"at": "hot", "took": "other", "because": "b"}], ` + ok + `}`,
	} {
		trace := fmt.Sprintf(`{"run_id": "r", "level": "full", %s, "steps": [%s]}`, ok, steps)
		fs := Replay(plan, "trace.json", strings.NewReader(trace), Options{}).Findings
		counted := false
		for _, f := range fs {
			if len(f.Message) > 800 || len(f.Hint) > 800 {
				t.Errorf("%s: %s finding of %d bytes, hint %d: %.200s…", name, f.Rule, len(f.Message), len(f.Hint), f.Message)
			}
			counted = counted || strings.Contains(f.Message, "and 19980 more")
		}
		if !counted {
			t.Errorf("%s: no finding counts the 19,980 names past the first 20: %v", name, fs)
		}
	}
}

// TestPlanFindingsCap: a plan wrong in every step lists --max-per-rule
// findings of plan-shape and of plan-risk and counts the rest, as a
// trace's findings are, those it finds against the Language included;
// and the loaded plan holds no more than it lists (a plan of 100,000
// copies of one step took 19 bytes a byte, listing each).
func TestPlanFindingsCap(t *testing.T) {
	const n = 1000
	hints := `"risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}`
	var b strings.Builder
	b.WriteString(`{"steps": [`)
	for i := range n {
		// A risk no level has (against the Language), then a copy of
		// the first step's id (plan-shape), then a step with no risk
		// (plan-risk when loaded).
		fmt.Fprintf(&b, `{"id": "s%d", "kind": "step", "risk": "bogus", %s}, {"id": "s0", "kind": "step"}, {"id": "r%d", "kind": "step"}, `, i, hints, i)
	}
	b.WriteString(`{"id": "last", "kind": "step", "risk": "write", ` + hints + `}], "max_risk": "write", "max_risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`)
	plan, err := LoadPlan("many.plan.json", []byte(b.String()), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Findings) > 6 {
		t.Errorf("the plan holds %d findings, more than 3 of each of its two rules", len(plan.Findings))
	}
	_, a := fuzzArchive(t, "plan-risk")
	snap, _ := a.File("snapshot.json")
	lang, err := LoadSnapshot("snapshot.json", snap, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		opt      Options
		risk     int
		riskMore string
	}{
		{"without the Language", Options{MaxPerRule: 3}, 4, "997 more plan-risk findings in this file are not listed"},
		{"with it", Options{MaxPerRule: 3, Language: lang}, 4, "1997 more plan-risk findings in this file are not listed"},
		{"plan-risk disabled", Options{MaxPerRule: 3, Language: lang, Disabled: map[string]bool{RulePlanRisk: true}}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Run(plan, nil, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			var more []string
			for _, f := range rep.Findings {
				counts[f.Rule]++
				if strings.Contains(f.Message, "are not listed") {
					more = append(more, f.Message)
				}
			}
			if counts[RulePlanShape] != 4 || counts[RulePlanRisk] != c.risk {
				t.Errorf("findings per rule: %v, want 4 plan-shape and %d plan-risk", counts, c.risk)
			}
			// Counting findings are sorted last, by rule.
			want := []string{"997 more plan-shape findings in this file are not listed"}
			if c.riskMore != "" {
				want = append([]string{c.riskMore}, want...)
			}
			if !slices.Equal(more, want) {
				t.Errorf("counted %q, want %q", more, want)
			}
		})
	}
}

// TestLongPlanValuesClipped: a plan's findings quote its values clipped,
// as a trace's do: a step's risk or risk_hints, the plan's mode and its
// max_risk were quoted whole, once per finding.
func TestLongPlanValuesClipped(t *testing.T) {
	long := `"` + strings.Repeat("é", 50_000) + `"`
	many := "[" + strings.Repeat("1,", 50_000) + "1]"
	hints := `{"readOnly": true, "destructive": false, "openWorld": false}`
	for _, plan := range []string{
		`{"steps": [{"id": "a", "kind": "step", "risk": ` + many + `}], "max_risk": "safe", "max_risk_hints": ` + hints + `}`,
		`{"steps": [{"id": "a", "kind": "step", "risk_hints": ` + many + `}], "max_risk": "safe", "max_risk_hints": ` + hints + `}`,
		`{"steps": [], "mode": ` + long + `, "max_risk": "safe", "max_risk_hints": ` + hints + `}`,
	} {
		p, err := LoadPlan("plan.json", []byte(plan), 0)
		if err != nil {
			t.Fatal(err)
		}
		quoted := false
		for _, f := range p.Findings {
			if len(f.Message) > 400 || !utf8.ValidString(f.Message) {
				t.Errorf("%.60s…: a finding of %d bytes: %.80s…", plan, len(f.Message), f.Message)
			}
			quoted = quoted || strings.Contains(f.Message, "…")
		}
		if !quoted {
			t.Errorf("%.60s…: no finding quotes the value clipped: %v", plan, p.Findings)
		}
	}
}
