package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// checkAlways turns checkTraces on for every engine: a build with the tag
// tracecheck (go build -tags tracecheck, a debug build of pilotage whose
// every serve and run checks its traces) sets it.
var checkAlways = false

// replayLanguages is what replay knows of each Language of one state,
// read from the state's snapshot (the artifact a replay --snapshot
// reads), so the engine's traces meet the checks a user's replay runs.
// A Language is read when a trace of it is first checked: reading one
// parses the whole snapshot, and most states run few of their Languages.
type replayLanguages struct {
	mu    sync.Mutex
	snap  []byte // the snapshot, marshalled once; nil before the first read
	langs map[string]*replay.Language
}

// replayLanguage is the Language id as replay reads it from the
// snapshot, or nil when the snapshot does not give replay what it needs
// (the closed-set checks are then left out; the plan correspondence is
// still checked).
func (st *state) replayLanguage(id string) *replay.Language {
	rl := st.replay
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if l, ok := rl.langs[id]; ok {
		return l
	}
	if rl.snap == nil {
		snap, err := json.Marshal(emit.Snapshot(st.srv))
		if err != nil {
			return nil
		}
		rl.snap, rl.langs = snap, map[string]*replay.Language{}
	}
	l, err := loadReplayLanguage(rl.snap, id)
	if err != nil {
		l = nil
	}
	rl.langs[id] = l
	return l
}

// loadReplayLanguage reads the Language id from a snapshot as replay
// does. The tests, which start a hundred engines of a few Servers, keep
// its answers (helpers_test.go).
var loadReplayLanguage = func(snap []byte, id string) (*replay.Language, error) {
	return replay.LoadSnapshot("snapshot.json", snap, id)
}

// checksTraces reports whether the engine checks its traces
// (checkTraces).
func (e *Engine) checksTraces() bool { return e.opts.CheckTraces || checkAlways }

// checkTraces runs pilotage replay's checks (§5.7, §5.8: identity,
// levels, plan-trace correspondence, outcomes, closed sets) on the traces
// a Run is about to return or keep, against the plan of the program it
// ran. A trace replay would fail is the engine's bug: it becomes an
// internal error instead of leaving the engine (issue 14 item 6). A
// deploy Run's trace describes the installation, not the body, and an
// opaque promoted Run (§10.3) shows one entry for the whole body, so
// neither is checked against the body's plan; nor is a Run of a Language
// without plan whose program has no plan.
func (e *Engine) checkTraces(r *request, prog *program.Program, traces ...*pilotage.Trace) error {
	if !e.checksTraces() || prog == nil || r.installs() || r.concealed() {
		return nil
	}
	v := r.view
	if r.ref != nil {
		v = e.view(r.st, r.lang, serverAuthority)
	}
	plan, err := v.plan(prog, false)
	if err != nil && !r.lang.caps.Has(pilotage.CapPlan) {
		// A Language without plan may have no risk level for a plan's
		// aggregate (calc's empty one is read-only): there is then no
		// plan for replay to check the trace against, here as for a
		// client.
		return nil
	}
	if err != nil {
		return err
	}
	if r.ref != nil && plan.CatalogVersion != "" {
		// A promoted body is planned with every name in reach, but the
		// Run executes at the catalog its caller sees.
		plan.CatalogVersion = r.view.version
	}
	src, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	rp, err := replay.LoadPlan("plan.json", src, 0)
	if err != nil {
		return fmt.Errorf("the engine's plan of run %s does not load in replay: %w", traces[0].RunID, err)
	}
	opt := replay.Options{Language: r.st.replayLanguage(r.lang.ID)}
	for _, tr := range traces {
		if tr == nil {
			continue
		}
		b, err := json.Marshal(tr)
		if err != nil {
			return err
		}
		for _, f := range replay.Replay(rp, "trace.json", bytes.NewReader(b), opt).Findings {
			if f.Severity != report.Info {
				return fmt.Errorf("the %s trace of run %s fails pilotage replay: %s at %s: %s (§%s)", tr.Level, tr.RunID, f.Rule, f.Pointer, f.Message, f.Section)
			}
		}
	}
	return nil
}
