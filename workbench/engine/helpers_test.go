package engine

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/testsupport/tmpdir"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// TestMain keeps the tests' temporary directories in memory
// (tmpdir.InMemory). The engines under test keep their Runs in bbolt
// stores in those directories, about 2,100 commits in a -short run, and
// each commit's fdatasync waits on the disk: 4 to 6 s of the package's
// wall time on a loaded machine. No test here is about what reaches the
// disk; runstore's own tests and cmd's serve tests keep their stores
// on it.
func TestMain(m *testing.M) {
	tmpdir.InMemory()
	loadReplayLanguage = memoReplayLanguage(loadReplayLanguage)
	os.Exit(m.Run())
}

// memoReplayLanguage keeps load's answer for each snapshot and Language:
// the package's tests start about a hundred engines of a few Servers,
// and each engine read its snapshot again, a fifth of the package's time
// in -short. The Languages are read-only to replay, so engines may share
// them.
func memoReplayLanguage(load func([]byte, string) (*replay.Language, error)) func([]byte, string) (*replay.Language, error) {
	type answer struct {
		l   *replay.Language
		err error
	}
	var mu sync.Mutex
	memo := map[[sha256.Size]byte]answer{}
	return func(snap []byte, id string) (*replay.Language, error) {
		key := sha256.Sum256(append(append([]byte(id), 0), snap...))
		mu.Lock()
		defer mu.Unlock()
		a, ok := memo[key]
		if !ok {
			a.l, a.err = load(snap, id)
			memo[key] = a
		}
		return a.l, a.err
	}
}

// Risk levels of the test Languages: every aggregate of them is covered.
var testLevels = []closedsets.Risk{
	{Risk: "safe", Hints: pilotage.RiskHints{ReadOnly: true}},
	{Risk: "write", Hints: pilotage.RiskHints{}},
	{Risk: "dangerous", Hints: pilotage.RiskHints{Destructive: true}},
	{Risk: "external", Hints: pilotage.RiskHints{OpenWorld: true}},
	{Risk: "any", Hints: pilotage.RiskHints{Destructive: true, OpenWorld: true}},
}

func hintsOf(risk string) pilotage.RiskHints {
	for _, l := range testLevels {
		if l.Risk == risk {
			return l.Hints
		}
	}
	panic("no risk level " + risk)
}

func sets(codes ...string) closedsets.Sets {
	g := grammar()
	s := closedsets.Sets{
		Kinds: []closedsets.Kind{
			{Kind: "sensor", Callable: true}, {Kind: "actuator", Callable: true},
			{Kind: "room", Callable: false}, {Kind: "program", Callable: true, Promoted: true},
		},
		RiskLevels:       testLevels,
		ScopeRules:       language.ScopeRulesText,
		ParameterBinding: language.ParameterBinding(&g, true),
		StepIdentifiers:  language.StepIdentifiersText,
		Truncation:       language.TruncationText,
		Output:           language.Output(&g, pilotage.ModeBoth, true),
	}
	for _, c := range append(append([]string{}, pilotage.ReservedCodes...), codes...) {
		s.DiagnosticCodes = append(s.DiagnosticCodes, closedsets.Code{Code: c, Meaning: c})
	}
	for _, r := range pilotage.ReservedRunStatuses {
		s.RunStatuses = append(s.RunStatuses, closedsets.Status{Status: r.Status, OK: r.OK, SideEffects: r.SideEffects})
	}
	s.RunStatuses = append(s.RunStatuses, closedsets.Status{Status: "device_error", SideEffects: true})
	for _, r := range pilotage.ReservedStepStatuses {
		s.StepStatuses = append(s.StepStatuses, closedsets.Status{Status: r.Status, OK: r.OK, SideEffects: r.SideEffects})
	}
	s.StepStatuses = append(s.StepStatuses, closedsets.Status{Status: "device_error", SideEffects: true}, closedsets.Status{Status: "denied"})
	return s
}

func grammar() language.Grammar {
	return language.Grammar{Call: "call", Args: "with", Branch: "if", Arms: []string{"then", "else"},
		Loop: "for_each", Item: "as", Body: "do", Run: "run", RunArgs: "with", Expressions: "cel", Input: true}
}

func caps(kv ...any) pilotage.Capabilities {
	c := pilotage.Capabilities{}
	for i := 0; i < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1].(pilotage.CapabilityValue)
	}
	return c
}

func guides(sets closedsets.Sets) []*language.Guide {
	core := "# Home\n\nCall sensors and actuators.\n\n## Steps\n\nA program is a list of steps.\n\n### Calls\n\nUse call.\n\n## Loops\n\nUse for_each.\n"
	cs := closedsets.Render("Closed sets", &sets)
	return []*language.Guide{
		{Guide: pilotage.Guide{ID: "core", Title: "Core", Level: pilotage.GuideCore, Version: "1"}, Body: core},
		{Guide: pilotage.Guide{ID: "closed-sets", Title: "Closed sets", Level: pilotage.GuideReference, Version: "1", Topics: []string{pilotage.TopicClosedSets}}, Body: cs, Generated: true},
	}
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func mkEntry(id, kind, risk, in, out string, b language.Behavior) *language.Entry {
	return &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: id, Kind: kind, Name: id, Description: "the " + id,
		Risk: risk, RiskHints: hintsOf(risk), InputSchema: rawOrNil(in), OutputSchema: rawOrNil(out)}, Behavior: b}
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return raw(s)
}

// homeServer is the test model: home/v1 declares everything (catalog with
// search and changed_since, plan, execute with test_run and idempotency,
// trace_fetch with narrate, mode both, full traces, retention P7D,
// expanded sub-programs); ctx/v1 needs context, uses the text-range
// locator, retention session, summary traces, opaque sub-programs and
// promoter authority; bare/v1 retains nothing and has no plan.
func homeServer() *language.Server {
	all := caps(pilotage.CapGuides, pilotage.With(pilotage.SubTopicFetch),
		pilotage.CapCatalog, pilotage.With(pilotage.SubSearch, pilotage.SubChangedSince),
		pilotage.CapValidate, pilotage.On(), pilotage.CapPlan, pilotage.On(),
		pilotage.CapExecute, pilotage.With(pilotage.SubTestRun, pilotage.SubIdempotency),
		pilotage.CapTraceFetch, pilotage.With(pilotage.SubNarrate))
	// The time limit is far above what any case needs, so the limit a
	// case is about (steps, cost, iterations) is the one that trips, even
	// under -race on a loaded machine.
	limits := language.Limits{Steps: 200, Time: 30 * time.Second, Depth: 8, Iterations: 100, Expansion: 3, MemoryBytes: 1 << 20, ProgramBytes: 64 << 10}
	home := &language.Language{ID: "home/v1", Title: "Home", Capabilities: all, Locator: pilotage.LocatorJSONPointer,
		ExecutionMode: pilotage.ModeBoth, TraceLevel: pilotage.LevelFull, Retention: "P7D", TraceSubprogram: pilotage.SubprogramExpanded,
		Limits: limits, Grammar: grammar(), Sets: sets("scope", "type", "arguments", "field"), Guides: guides(sets("scope", "type", "arguments", "field"))}
	ctxLang := &language.Language{ID: "ctx/v1", Capabilities: caps(pilotage.CapGuides, pilotage.On(), pilotage.CapCatalog, pilotage.On(),
		pilotage.CapValidate, pilotage.On(), pilotage.CapPlan, pilotage.On(), pilotage.CapExecute, pilotage.On(), pilotage.CapTraceFetch, pilotage.On()),
		Locator: pilotage.LocatorTextRange, ExecutionMode: pilotage.ModeImmediate, TraceLevel: pilotage.LevelSummary, Retention: pilotage.RetentionSession,
		PromotionAuthority: pilotage.AuthorityPromoter,
		ContextSchema:      raw(`{"type":"object","required":["site"],"properties":{"site":{"type":"string"},"floor":{"type":"integer"}},"additionalProperties":false}`),
		Limits:             limits, Grammar: grammar(), Sets: sets(), Guides: guides(sets())}
	bare := &language.Language{ID: "bare/v1", Capabilities: caps(pilotage.CapGuides, pilotage.On(), pilotage.CapCatalog, pilotage.On(),
		pilotage.CapValidate, pilotage.On(), pilotage.CapExecute, pilotage.On()),
		Locator: pilotage.LocatorJSONPointer, ExecutionMode: pilotage.ModeImmediate, TraceLevel: pilotage.LevelSummary, Retention: pilotage.RetentionNone,
		Limits: limits, Grammar: grammar(), Sets: sets(), Guides: guides(sets())}
	roomIn := `{"type":"object","required":["room"],"properties":{"room":{"type":"string"}},"additionalProperties":false}`
	nightly := mkEntry("prog.nightly@1", "program", "write", `{"type":"object","properties":{"rooms":{"type":"array","items":{"type":"string"}}}}`, "", language.Behavior{})
	nightly.Program = raw(`{"steps":[{"id":"each","for_each":"input.rooms","as":"r","do":[{"id":"off","call":"lights.set","with":{"room":"r","on":"false"}}]}],"output":"size(steps.each.output)"}`)
	return &language.Server{Name: "home", Version: "1.0",
		Languages: []*language.Language{home, ctxLang, bare},
		Catalog: []*language.Entry{
			mkEntry("sensors.read", "sensor", "safe", roomIn, `{"type":"object","properties":{"temp":{"type":"integer"},"humidity":{"type":"number"}}}`,
				language.Behavior{ReturnsExpr: `{"temp": input.room == "attic" ? 31 : 21, "humidity": 0.5}`}),
			mkEntry("fan.set", "actuator", "write", `{"type":"object","required":["on"],"properties":{"on":{"type":"boolean"}}}`, "",
				language.Behavior{Returns: raw(`{"ok":true}`)}),
			mkEntry("lights.set", "actuator", "write", `{"type":"object","required":["room","on"],"properties":{"room":{"type":"string"},"on":{"type":"boolean"}}}`, "",
				language.Behavior{Returns: raw(`{"ok":true}`), Fails: []language.Failure{{Status: "device_error", When: `input.room == "cellar"`, Message: "the cellar lights do not answer"}}}),
			mkEntry("lock.open", "actuator", "dangerous", `{"type":"object"}`, "", language.Behavior{Returns: raw(`"opened"`)}),
			mkEntry("weather.fetch", "sensor", "external", "", "", language.Behavior{Returns: raw(`{"sky":"clear"}`)}),
			mkEntry("slow.op", "sensor", "safe", "", "", language.Behavior{Latency: 300 * time.Millisecond, Returns: raw(`1`)}),
			mkEntry("rooms", "room", "safe", "", "", language.Behavior{}),
			nightly,
		},
		Principals: []*language.Principal{
			{Name: "alice", Sees: []string{"*"}},
			{Name: "bob", Sees: []string{"sensors.*", "fan.*", "lights.*", "prog.*", "rooms", "program.*", "weather.*", "slow.*"}},
		},
	}
}

var alice = callerOf("alice", "s1")

func newEngine(t testing.TB, srv *language.Server, dir string) *Engine {
	t.Helper()
	return newEngineWith(t, srv, Options{DataDir: dir})
}

// newEngineWith is newEngine with every option. Every test engine checks
// its own traces with replay (Options.CheckTraces), so a test whose Run
// leaves a trace pilotage replay would fail gets an internal error.
func newEngineWith(t testing.TB, srv *language.Server, opts Options) *Engine {
	t.Helper()
	opts.CheckTraces = true
	return startEngine(t, srv, opts)
}

// startEngine is New with opts as they are, closed when the test ends.
func startEngine(t testing.TB, srv *language.Server, opts Options) *Engine {
	t.Helper()
	e, err := New(srv, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func callerOf(principal, session string) service.Caller {
	return service.Caller{Principal: principal, Session: session}
}
