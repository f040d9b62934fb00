package engine

import (
	"context"
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// Trace is the fetch door (§6.6): the stored record of a Run, never above
// the level it was recorded at. Unknown, expired, unstored and
// unauthorized Runs get the same not_found.
func (e *Engine) Trace(ctx context.Context, c service.Caller, language string, req pilotage.TraceFetchRequest) (*pilotage.TraceFetchResponse, error) {
	_, l, err := e.language(language)
	if err != nil {
		return nil, err
	}
	if !l.caps.Has(pilotage.CapTraceFetch) {
		return nil, unsupported("Language %s does not declare trace_fetch", l.ID)
	}
	if err := fetchLevelValid(req.TraceLevel); err != nil {
		return nil, err
	}
	notFound := &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: "no retrievable Run with this run_id"}
	if req.RunID == "" {
		// No Run has an empty id, so "" is malformed like a missing one.
		return nil, invalid("run_id is missing or empty: send the run_id an execute response returned")
	}
	rec, err := e.store.Get(req.RunID, c.Session)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.Principal != c.Principal || rec.Language != l.ID {
		return nil, notFound
	}
	level := rec.Trace.Level
	if req.TraceLevel != nil {
		level = lower(*req.TraceLevel, level)
	}
	resp := &pilotage.TraceFetchResponse{RunID: rec.RunID, Outcome: rec.Outcome, Output: rec.Output, Trace: render(rec.Trace, level)}
	if l.caps.HasSub(pilotage.CapTraceFetch, pilotage.SubNarrate) {
		resp.Narration = narrate(resp.Trace, req.Question)
	}
	return resp, nil
}

// fetchLevelValid refuses a trace_level the fetch door cannot serve. Left
// out (nil) it is the recorded level; a supplied "" is no level at all.
func fetchLevelValid(level *string) error {
	if level == nil {
		return nil
	}
	switch *level {
	case pilotage.LevelSummary, pilotage.LevelFull:
		return nil
	case pilotage.LevelNone:
		return invalid("trace_level none has no meaning on the fetch door; ask for summary or full")
	}
	return invalid("unknown trace_level %s: use summary or full", report.Quote(*level))
}

// narrate tells the trace's facts in plain English, deterministically. It
// interprets nothing: a question is answered only by pointing at the facts
// the record holds (§6.6 Narration).
func narrate(t *pilotage.Trace, question string) string {
	var b strings.Builder
	mode := t.Mode
	if mode == "" {
		mode = pilotage.ModeImmediate
	}
	fmt.Fprintf(&b, "Run %s (%s) ended with status %s", t.RunID, mode, t.Outcome.Status)
	if t.Outcome.Error != "" {
		fmt.Fprintf(&b, ": %s", t.Outcome.Error)
	}
	fmt.Fprintf(&b, ". The %s trace records %d step entries.", t.Level, len(t.Steps))
	var failed []string
	calls := map[string]int{}
	var order []string
	for _, s := range t.Steps {
		for _, c := range s.Calls {
			if calls[c] == 0 {
				order = append(order, c)
			}
			calls[c]++
		}
		for _, d := range s.Decisions {
			if s.Kind == pilotage.KindBranch {
				fmt.Fprintf(&b, " Branch %s took %q.", d.At, d.Took)
			}
		}
		if s.Kind == pilotage.KindLoop {
			n := 0
			for _, d := range s.Decisions {
				if d.Took == pilotage.DecisionContinue {
					n++
				}
			}
			fmt.Fprintf(&b, " Loop %s ran %d iterations.", s.ID, n)
		}
		if !s.Outcome.OK {
			failed = append(failed, fmt.Sprintf("%s (%s)", s.ID, s.Outcome.Status))
		}
	}
	if len(order) > 0 {
		parts := make([]string, len(order))
		for i, c := range order {
			parts[i] = fmt.Sprintf("%s ×%d", c, calls[c])
		}
		fmt.Fprintf(&b, " Calls: %s.", strings.Join(parts, ", "))
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, " Entries that did not succeed: %s.", strings.Join(failed, ", "))
	}
	if q := strings.TrimSpace(question); q != "" {
		fmt.Fprintf(&b, " You asked %s: this narration only restates the recorded facts above; check the trace entries themselves to answer it.", report.Quote(q))
	}
	return b.String()
}
