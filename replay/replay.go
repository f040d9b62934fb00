// Package replay checks recorded traces against their plans, streamed entry
// by entry (trace identity, control flow, levels, plan–trace correspondence
// and outcomes of §5.7 and §5.8, as docs/replay.md describes), with every
// finding a report.Finding, so it prints and exits as pilotage lint does.
package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

// sourceLimit is the largest trace file kept whole for source snippets in
// text output; larger files are reported without snippets.
const sourceLimit = 1 << 20

// Options tune a replay.
type Options struct {
	// Language, from a snapshot, turns on the closed-set checks.
	Language *Language
	// Disabled rule IDs.
	Disabled map[string]bool
	// MaxPerRule bounds the findings listed per rule and trace file;
	// 0 means report.DefaultMaxPerRule.
	MaxPerRule int
	// OnEntry, when set, is called after each trace entry is checked,
	// for a progress display; it runs on the replaying goroutine and
	// must be cheap.
	OnEntry func()
	// OnStep and OnTrace, when set, receive each entry and each file's
	// Run as they are read (Seen, TraceSeen), for reports that draw the
	// traces; like OnEntry they run on the replaying goroutine.
	OnStep  func(*Seen)
	OnTrace func(*TraceSeen)
}

// Input is one trace file to replay, opened when its turn comes.
type Input struct {
	File string
	Open func() (io.ReadCloser, error)
}

// Run replays every input against the plan and returns the report. It
// fails only when an input cannot be opened or read, or on an unknown
// rule ID in Disabled; everything wrong inside a file is a finding.
func Run(plan *Plan, inputs []Input, opt Options) (*report.Report, error) {
	var known []string
	for _, r := range Rules() {
		known = append(known, r.ID)
	}
	if err := suggest.UnknownRule(opt.Disabled, known); err != nil {
		return nil, err
	}
	rep := &report.Report{Tool: "pilotage replay", Sources: map[string][]byte{plan.File: plan.Src}, KeyLabel: "run_id"}
	enabled := 0
	for _, r := range RuleInfos() {
		if !opt.Disabled[r.ID] {
			enabled++
			rep.Rules = append(rep.Rules, r)
		}
	}
	for _, f := range append(slices.Clone(plan.Findings), plan.riskAgainst(opt.Language)...) {
		if !opt.Disabled[f.Rule] {
			rep.Add(f)
		}
	}
	entries := 0
	for _, in := range inputs {
		rc, err := in.Open()
		if err != nil {
			return nil, err
		}
		res := Replay(plan, in.File, rc, opt)
		rc.Close()
		if res.ReadErr != nil {
			return nil, fmt.Errorf("%s: %w", in.File, res.ReadErr)
		}
		rep.Files = append(rep.Files, in.File)
		if res.Source != nil {
			rep.Sources[in.File] = res.Source
		}
		rep.Add(res.Findings...)
		entries += res.Entries
	}
	rep.Summary.Files = len(inputs)
	rep.Summary.Checked = map[string]int{"entries": entries, "rules": enabled, "plan steps": len(plan.Steps)}
	rep.Sort()
	return rep, nil
}

// Result is the replay of one trace file.
type Result struct {
	Findings []report.Finding
	// Entries counts the trace steps read.
	Entries int
	// Source is the whole file when it is small enough for snippets.
	Source []byte
	// ReadErr is an I/O error of the reader (not a JSON problem).
	ReadErr error
}

// errReader remembers the reader's own error, which the decoder would
// otherwise report as malformed JSON.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// Replay checks one trace file, read as a stream, against the plan.
func Replay(plan *Plan, file string, r io.Reader, opt Options) Result {
	max := opt.MaxPerRule
	if max <= 0 {
		max = report.DefaultMaxPerRule
	}
	er := &errReader{r: r}
	c := newChecker(plan, opt.Language, file, max)
	onEntry := c.entry
	if opt.OnEntry != nil || opt.OnStep != nil {
		onEntry = func(e *entry) {
			c.entry(e)
			if opt.OnStep != nil {
				opt.OnStep(seen(file, e))
			}
			if opt.OnEntry != nil {
				opt.OnEntry()
			}
		}
	}
	s, pr := walk(er, sourceLimit, func(m *traceMembers) { c.known = holds(m, false) }, onEntry, c.diagnostic)
	if s.syntax != nil {
		// The walk stopped at the error; the rest of a small file is
		// read so the finding shows the line in text output.
		_, _ = io.Copy(io.Discard, io.LimitReader(pr, sourceLimit+1-pr.total))
	}
	if er.err != nil {
		return Result{ReadErr: er.err}
	}
	fs := c.finish(s)
	out := fs[:0]
	for _, f := range fs {
		if !opt.Disabled[f.Rule] {
			out = append(out, f)
		}
	}
	if opt.OnTrace != nil {
		opt.OnTrace(traceSeen(file, s, out))
	}
	return Result{Findings: out, Entries: s.entries, Source: pr.source()}
}

// outcomeOf reads an outcome value; ok reports whether ok and status are
// both there.
func outcomeOf(l *located) (o wireOutcome, ok bool) {
	if l == nil || json.Unmarshal(l.raw, &o) != nil {
		return o, false
	}
	return o, o.OK != nil && o.Status != nil
}

func stringOf(l *located) (string, bool) {
	var s string
	if l == nil || json.Unmarshal(l.raw, &s) != nil {
		return "", false
	}
	return s, true
}

// stepsSite is where findings about the trace as a whole point: its steps
// array, or the start of the trace.
func (c *checker) stepsSite() site {
	if c.steps != nil {
		return *c.steps
	}
	return c.traceAt
}

// finish runs the checks that need the whole file (run_id, level,
// outcome and mode may come after the steps) and settles the findings
// kept until now.
func (c *checker) finish(s *stream) []report.Finding {
	if s.syntax != nil {
		return []report.Finding{{Rule: RuleTraceJSON, Section: "5.8", Severity: report.Error, File: c.file,
			Line: s.syntax.line, Column: s.syntax.col, Message: "malformed JSON: " + s.syntaxMsg,
			Hint: "fix the JSON first; nothing else in this file was checked"}}
	}
	for _, p := range s.shape {
		c.add(finding{rule: RuleTraceShape, at: p.site, msg: p.msg})
	}
	t := s.trace()
	c.steps, c.traceAt = t.steps, s.traceAt
	runID, ok := stringOf(t.runID)
	if t.runID != nil && !ok {
		c.add(finding{rule: RuleTraceShape, at: t.runID.site, msg: fmt.Sprintf("run_id is %s, not a string", t.runID.raw),
			hint: "run_id is an opaque string (§3.6)"})
	}
	if runID == "" {
		runID, _ = stringOf(s.top.runID)
	}
	if !s.object {
		return c.out.resolve(all, none, "")
	}
	switch {
	case s.response && t.steps == nil && t.outcome == nil && t.level == nil:
		return c.noTrace(s, s.top.outcome, runID)
	case !s.response && t.steps == nil && t.level == nil && t.outcome != nil && t.runID != nil:
		// An execute response at level none, or a refused Run's (reading 8).
		return c.noTrace(s, t.outcome, runID)
	case t.steps == nil && t.outcome == nil && t.level == nil:
		c.add(finding{rule: RuleTraceShape, at: c.traceAt, msg: "not a trace: the file has no steps, level or outcome",
			hint: "give a trace object (§5.8), an execute response or a trace-fetch response carrying one"})
		return c.out.resolve(all, none, runID)
	}
	badSteps := slices.ContainsFunc(s.shape, func(p shapeProblem) bool { return strings.HasSuffix(p.ptr, "/steps") })
	for _, m := range []struct {
		v    bool
		name string
	}{{t.runID != nil, "run_id"}, {t.level != nil, "level"}, {t.outcome != nil, "outcome"}, {t.steps != nil || badSteps, "steps"}} {
		if !m.v {
			c.add(finding{rule: RuleTraceShape, at: c.traceAt, msg: "trace has no " + m.name, hint: "run_id, level, outcome and steps are required members of a trace (§5.8)"})
		}
	}
	if t.steps != nil {
		c.closeTo(0, false)
	}
	c.level(t)
	o, outcomeOK := c.runOutcome(t)
	refused := outcomeOK && pilotage.IsRefusal(*o.Status)
	if refused && s.entries > 0 {
		c.add(finding{rule: RuleRefusedRun, at: *c.first,
			msg:  fmt.Sprintf("the Run was refused (%s) but its trace has %d step(s)", *o.Status, s.entries),
			hint: "a refused Run executed nothing: it returns no trace, or a trace with an empty steps (reading 8)"})
	}
	if s.response {
		c.sameAsResponse(s)
		c.response(&s.top)
	}
	c.mode(t)
	c.catalogVersion(t)
	installation := c.installation(t)
	drop := func(rule string) bool {
		// A trace object's own members are all it has: diagnostics there
		// are an unknown member, ignored (§1.2).
		return RuleByID(rule).UsesPlan && (installation || refused) || rule == RuleResponseDiagnostics && !s.response
	}
	return c.out.resolve(holds(t, true), drop, runID)
}

// all and none settle held findings when no condition can be decided (no
// trace to decide them from): every finding stands, no rule is dropped.
func all(cond) bool    { return true }
func none(string) bool { return false }

// holds decides the conditions of held findings from a trace's members.
// Before the end of the file (final false) a member not yet seen may still
// come, so the conditions that depend on it hold.
func holds(m *traceMembers, final bool) func(cond) bool {
	level, _ := stringOf(m.level)
	o, outcomeOK := outcomeOf(m.outcome)
	refused := outcomeOK && pilotage.IsRefusal(*o.Status)
	// m changes as the walk goes on; decide from what it holds now.
	levelSeen, outcomeSeen := m.level != nil, m.outcome != nil
	return func(k cond) bool {
		switch k {
		case ifComplete, ifIncomplete:
			if !outcomeSeen {
				return !final
			}
			if k == ifComplete {
				return outcomeOK && *o.OK
			}
			return outcomeOK && !*o.OK && !refused
		case ifFull, ifSummary:
			if !levelSeen {
				return !final
			}
			return (level == "full") == (k == ifFull)
		}
		return true
	}
}

// noTrace handles a response without a trace: right for a refused Run
// (reading 8) and for level none, but then nothing could be checked.
func (c *checker) noTrace(s *stream, outcome *located, runID string) []report.Finding {
	c.response(&s.top)
	o, ok := outcomeOf(outcome)
	if !ok || !pilotage.IsRefusal(*o.Status) {
		c.add(finding{rule: RuleTraceShape, sev: report.Warning, at: site{line: 1, col: 1},
			msg:  "the response carries no trace, so nothing was checked against the plan",
			hint: "execute with trace_level summary or full to get a trace (§5.8.1)"})
	}
	return c.out.resolve(all, none, runID)
}

// level checks the trace level (§5.8.1); an unknown level reads as
// summary (§1.3).
func (c *checker) level(t *traceMembers) {
	if t.level == nil {
		return
	}
	l, ok := stringOf(t.level)
	switch {
	case !ok || (l != "summary" && l != "full"):
		c.add(finding{rule: RuleTraceLevel, at: t.level.site, msg: fmt.Sprintf("level is %s; a trace's level is summary or full", t.level.raw),
			hint: "none is a request value and never a trace's level; an unknown level is read as summary (§1.3)"})
	case c.lang != nil && c.lang.TraceLevel == "":
		c.add(finding{rule: RuleTraceLevel, at: t.level.site, msg: fmt.Sprintf("a trace of Language %q, which declares no trace_level: it does not declare execute", c.lang.ID),
			hint: "only a Language that declares execute runs programs and traces them (§4.3 rule 4, §5.8.1)"})
	case l == "full" && c.lang != nil && c.lang.TraceLevel == "summary":
		c.add(finding{rule: RuleTraceLevel, at: t.level.site, msg: "level is full, but the Language declares trace_level summary",
			hint: "the effective level is the lower of the requested level and the declared ceiling (§5.8.1)"})
	}
}

// runOutcome checks the run outcome (§5.7, §6.5.6).
func (c *checker) runOutcome(t *traceMembers) (wireOutcome, bool) {
	if t.outcome == nil {
		return wireOutcome{}, false
	}
	o, ok := outcomeOf(t.outcome)
	if !ok {
		c.add(finding{rule: RuleTraceShape, at: t.outcome.site, msg: "the run outcome lacks ok or status", hint: "an outcome is {ok: bool, status: string, error?} (§5.7)"})
		return o, false
	}
	st, okv := *o.Status, *o.OK
	for _, r := range pilotage.ReservedRunStatuses {
		if r.Status == st && r.OK != okv {
			c.add(finding{rule: RuleRunOutcome, at: t.outcome.at("/ok"),
				msg:  fmt.Sprintf("run status %q with ok %v; %s always has ok %v", st, okv, st, r.OK),
				hint: "a started Run that did not complete is ok: false (§6.5.6); only success is ok: true"})
		}
	}
	reserved := isReserved(st)
	switch {
	case c.lang != nil:
		c.listed(t.outcome.site, "run", c.lang.Sets.RunStatuses, st, okv)
	case !reserved && okv:
		c.add(finding{rule: RuleRunOutcome, sev: report.Warning, at: t.outcome.at("/status"),
			msg:  fmt.Sprintf("engine-defined run status %q with ok true; a completed Run reports success", st),
			hint: "give --snapshot to check the status against the Language's closed-sets guide"})
	}
	return o, true
}

func isReserved(st string) bool {
	for _, r := range pilotage.ReservedRunStatuses {
		if r.Status == st {
			return true
		}
	}
	return false
}

// sameAsResponse checks that the response and the trace it carries tell
// the same Run: same run_id and outcome.
func (c *checker) sameAsResponse(s *stream) {
	if a, okA := stringOf(s.top.runID); okA {
		if b, okB := stringOf(s.inner.runID); okB && a != b {
			c.add(finding{rule: RuleRunOutcome, at: s.inner.runID.site,
				msg: fmt.Sprintf("the trace's run_id %q differs from the response's %q", b, a)})
		}
	}
	a, okA := outcomeOf(s.top.outcome)
	b, okB := outcomeOf(s.inner.outcome)
	if okA && okB && (*a.OK != *b.OK || *a.Status != *b.Status) {
		c.add(finding{rule: RuleRunOutcome, at: s.inner.outcome.site,
			msg: fmt.Sprintf("the trace's outcome (%s, ok %v) differs from the response's (%s, ok %v)", *b.Status, *b.OK, *a.Status, *a.OK)})
	}
}

// traceModes are the values of a trace's mode (data-model.md §5.8).
var traceModes = []string{pilotage.ModeImmediate, pilotage.ModeDeploy, pilotage.ModeTestRun}

// mode checks the trace's mode: a closed set, and with the Language one
// its execution_mode (§6.5.7) and execute.test_run allow.
func (c *checker) mode(t *traceMembers) {
	if t.mode == nil {
		return
	}
	m, ok := stringOf(t.mode)
	switch {
	case !ok || !slices.Contains(traceModes, m):
		c.add(finding{rule: RuleTraceMode, at: t.mode.site, msg: fmt.Sprintf("mode is %s; a trace's mode is immediate, deploy or test_run", t.mode.raw)})
	case c.lang == nil:
	case m == pilotage.ModeTestRun:
		if !c.lang.TestRun {
			c.add(finding{rule: RuleTraceMode, at: t.mode.site, msg: fmt.Sprintf("a test_run trace, but Language %q does not declare execute.test_run", c.lang.ID),
				hint: "test_run is accepted only when execute.test_run is declared (§6.5)"})
		}
	case c.lang.ExecutionMode != "" && c.lang.ExecutionMode != pilotage.ModeBoth && m != c.lang.ExecutionMode:
		c.add(finding{rule: RuleTraceMode, at: t.mode.site, msg: fmt.Sprintf("a %s trace, but Language %q has execution_mode %s", m, c.lang.ID, c.lang.ExecutionMode),
			hint: "a Language runs programs in its declared execution mode; both allows immediate and deploy (§6.5.7)"})
	}
}

// catalogVersion checks that the Run executed at the catalog_version the
// plan was derived at: §5.8.4 ties a trace to its plan at one
// catalog_version, and a Client that supplied the plan's token as
// expected_catalog_version gets catalog_drift otherwise (§6.5.2, §6.5.3).
func (c *checker) catalogVersion(t *traceMembers) {
	if t.catalogVersion == nil {
		return
	}
	v, ok := stringOf(t.catalogVersion)
	switch {
	case !ok:
		c.add(finding{rule: RuleTraceShape, at: t.catalogVersion.site, msg: fmt.Sprintf("catalog_version is %s, not a string", t.catalogVersion.raw),
			hint: "catalog_version is an opaque token (§5.4)"})
	case c.plan.CatalogVersion != "" && v != c.plan.CatalogVersion:
		pos, _ := c.plan.doc.Locate(c.plan.ptr+"/catalog_version", false)
		c.add(finding{rule: RuleCatalogVersion, at: t.catalogVersion.site,
			rel:  []report.Location{{File: c.plan.File, Line: pos.Line, Column: pos.Column, Pointer: c.plan.ptr + "/catalog_version", Note: "the plan's catalog_version"}},
			msg:  fmt.Sprintf("the Run executed at catalog_version %q, but the plan was derived at %q", v, c.plan.CatalogVersion),
			hint: "correspondence holds at one catalog_version (§5.8.4); executing with the plan's token as expected_catalog_version returns catalog_drift instead (§6.5.2)"})
	}
}

// installation reports whether the trace describes a deploy
// installation, which is not matched against the body plan (§5.8.4).
func (c *checker) installation(t *traceMembers) bool {
	mode, _ := stringOf(t.mode)
	at := c.traceAt
	if t.mode != nil {
		at = t.mode.site
	}
	switch {
	case mode == "deploy":
		c.add(finding{rule: RuleDeployTrace, at: at, msg: "a deploy installation trace: identity, levels and outcome checked; not matched against the body plan",
			hint: "body-plan correspondence is checked against a test_run trace (§6.5.7)"})
		return true
	case c.plan.Mode == "deploy" && mode == "":
		c.add(finding{rule: RuleDeployTrace, at: at, msg: "the plan describes a deployed body and the trace has no mode: taken as an installation trace, not matched against the plan",
			hint: "a test run's trace carries mode test_run; only those are matched against a deploy plan (§5.8.4)"})
		return true
	}
	return false
}

// listed checks a status against a closed-sets table (§1.5).
func (c *checker) listed(at site, which string, table []closedsets.Status, st string, ok bool) {
	if len(table) == 0 {
		return // the guide has no such table; pilotage lint reports that
	}
	var names []string
	for _, r := range table {
		if r.Status == st {
			if r.OK != ok {
				c.add(finding{rule: RuleClosedSetStatus, at: at,
					msg: fmt.Sprintf("%s status %q has ok %v, but the closed-sets guide lists it with ok %v", which, st, ok, r.OK)})
			}
			return
		}
		names = append(names, r.Status)
	}
	c.add(finding{rule: RuleClosedSetStatus, at: at,
		msg:  fmt.Sprintf("%s status %q is not in the Language's closed-sets guide (%s)", which, st, strings.Join(names, ", ")),
		hint: "every status an Engine uses is enumerated in the closed-sets guide (§1.5, §5.7)"})
}
