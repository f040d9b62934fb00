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
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
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
	// Deep, when set, re-decides every Run from its own recorded values
	// with the program it executed (deep replay, deepwalk.go).
	Deep *Deep
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
	r, err := NewRunner(plan, opt)
	if err != nil {
		return nil, err
	}
	rep := r.Head()
	rep.AddReport(r.PlanReport())
	for _, in := range inputs {
		b, err := r.Check(in)
		if err != nil {
			return nil, err
		}
		rep.AddReport(b)
	}
	rep.Summary.Files = len(inputs)
	rep.Summary.Checked = r.Checked()
	rep.Sort()
	return rep, nil
}

// Runner is Run a trace file at a time, so a command can report each
// file's findings before it reads the next (pilotage replay of thousands
// of traces holds one file's findings, not every file's).
type Runner struct {
	plan    *Plan
	opt     Options
	rules   []report.RuleInfo
	entries int
}

// NewRunner prepares a replay against plan; it fails on an unknown rule
// ID in Disabled.
func NewRunner(plan *Plan, opt Options) (*Runner, error) {
	var known []string
	for _, r := range Rules() {
		known = append(known, r.ID)
	}
	if err := suggest.UnknownRule(opt.Disabled, known); err != nil {
		return nil, err
	}
	r := &Runner{plan: plan, opt: opt}
	for _, ri := range RuleInfos() {
		// The deep rules check nothing without the program, so a replay
		// without it does not count them as checked.
		if !opt.Disabled[ri.ID] && (opt.Deep != nil || ri.Category != CatDeep) {
			r.rules = append(r.rules, ri)
		}
	}
	return r, nil
}

// Head is the report of no trace: the tool, the rules that run, and the
// plan's text, which findings in the plan quote. The plan's report and
// the traces' join it (Report.AddReport, report.Stream).
func (r *Runner) Head() *report.Report {
	return &report.Report{Tool: "pilotage replay", Sources: map[string][]byte{r.plan.File: r.plan.Src}, KeyLabel: "run_id",
		Rules: slices.Clip(r.rules)}
}

// PlanReport is the report of the plan's own findings, capped as a trace
// file's: those LoadPlan listed and counted, then those against the
// Language.
func (r *Runner) PlanReport() *report.Report {
	rep := &report.Report{}
	keep := func(rule string) bool { return !r.opt.Disabled[rule] }
	planCap := report.NewCap(perRule(r.opt.MaxPerRule))
	for _, f := range r.plan.Findings {
		// Offered unplaced, as LoadPlan and riskAgainst offer theirs:
		// the plan's are listed in the order its walk raises them.
		head := report.Finding{Rule: f.Rule, Section: f.Section, Sections: f.Sections, Severity: f.Severity, File: f.File}
		if keep(f.Rule) && planCap.Admit(head) {
			rep.Add(f)
		}
	}
	planCap.Include(r.plan.left, keep)
	if keep(RulePlanRisk) {
		rep.Add(r.plan.riskAgainst(r.opt.Language, planCap)...)
	}
	rep.Add(planCap.Left()...)
	rep.Sort()
	return rep
}

// Check replays one trace file and returns its report, sorted: the file,
// its text when small enough for snippets, and its findings. It fails
// when the file cannot be opened or read, or is a program rather than a
// trace (an *InputError).
func (r *Runner) Check(in Input) (*report.Report, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, err
	}
	res := Replay(r.plan, in.File, rc, r.opt)
	rc.Close()
	if res.ReadErr != nil {
		return nil, fmt.Errorf("%s: %w", in.File, res.ReadErr)
	}
	if res.Program {
		return nil, &InputError{File: in.File, Line: 1, Col: 1, Msg: "this looks like a program, not a trace", Hint: notTrace}
	}
	r.entries += res.Entries
	rep := &report.Report{Files: []string{in.File}, Sources: map[string][]byte{}}
	if res.Source != nil {
		rep.Sources[in.File] = res.Source
	}
	rep.Add(res.Findings...)
	rep.Sort()
	return rep, nil
}

// notTrace is the hint of a program given as the trace.
const notTrace = "give a trace of the program's Run, which pilotage run --format json writes; the program itself goes with --program, beside --lang"

// Checked counts what the replay so far checked, for the summary.
func (r *Runner) Checked() map[string]int {
	return map[string]int{"entries": r.entries, "rules": len(r.rules), "plan steps": len(r.plan.Steps)}
}

// perRule is how many findings of a rule a file lists for a MaxPerRule
// of max: report.DefaultMaxPerRule for 0.
func perRule(max int) int {
	if max <= 0 {
		return report.DefaultMaxPerRule
	}
	return max
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
	// Program says the file is a program given as the trace (misfiled).
	Program bool
}

// misfiled reports whether the file walked as s, src its bytes or nil
// when too large to keep, is a program given as the trace: a trace-shape
// error for each member a trace has and a program has not is no help,
// where one error naming the kind is. Only a file with none of a
// trace's run_id, level and outcome, which the walk already knows, is
// looked at again, and only when the walk kept it whole: a trace is
// never read twice. A file too large to keep is told by what the walk
// saw of its steps, each of which reads as a program's.
func misfiled(s *stream, src []byte) bool {
	t := s.trace()
	if s.syntax != nil || s.response || t.runID != nil || t.level != nil || t.outcome != nil {
		return false
	}
	if src == nil {
		return s.programSteps > 0 && !s.notProgram
	}
	return inputs.RecognizeSrc(src) == inputs.Program
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
	er := &errReader{r: r}
	c := newChecker(plan, opt.Language, file, perRule(opt.MaxPerRule))
	onEntry := c.entry
	if opt.OnEntry != nil || opt.OnStep != nil {
		onEntry = func(e *entry) {
			c.entry(e)
			if opt.OnStep != nil {
				opt.OnStep(seen(e))
			}
			if opt.OnEntry != nil {
				opt.OnEntry()
			}
		}
	}
	var deep *deepRun
	var endDeep func()
	if opt.Deep != nil {
		deep = newDeepRun(opt.Deep, c)
		var feed func(*entry)
		feed, endDeep = deep.start()
		check := onEntry
		onEntry = func(e *entry) {
			check(e)
			feed(e)
		}
	}
	// Entries that are not steps are counted in a row when the checker
	// would only count them and nothing else reads each entry; so are
	// diagnostics that are not diagnostics, which only the checker reads.
	countBad := func(rule string, n int, at site) bool {
		steps := rule == RuleTraceShape
		if steps && (opt.OnStep != nil || deep != nil) || !c.countBad(rule, n, at) {
			return false
		}
		if steps && opt.OnEntry != nil {
			for range n {
				opt.OnEntry()
			}
		}
		return true
	}
	s, pr := walk(er, sourceLimit, func(m *traceMembers) { c.known = holds(m, false) }, onEntry, countBad, c.diagnostic, deep != nil)
	if deep != nil {
		endDeep()
		if s.syntax == nil {
			deep.finish(s)
		}
	}
	if s.syntax != nil {
		// The walk stopped at the error; the rest of a small file is
		// read so the finding shows the line in text output.
		pr.readTo(sourceLimit + 1)
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
	src := pr.source()
	return Result{Findings: out, Entries: s.entries, Source: src, Program: misfiled(s, src)}
}

// outcomeOf reads an outcome value; ok reports whether ok and status are
// both there.
func outcomeOf(l *located) (o wireOutcome, ok bool) {
	if l == nil || l.cut || json.Unmarshal(l.raw, &o) != nil {
		return o, false
	}
	return o, o.OK != nil && o.Status != nil
}

// stringOf returns the value of a string member; ok is false when it
// is not a string, or is one too long for any value replay reads from
// it (located.cut, cutString).
func stringOf(l *located) (string, bool) {
	var s string
	switch {
	case l != nil && l.str != nil:
		return *l.str, true
	case l == nil || l.cut || json.Unmarshal(l.raw, &s) != nil:
		return "", false
	}
	return s, true
}

// cutString reports whether l is a string too long to be kept
// (stringOf): one the trace gives, though replay does not read it.
func cutString(l *located) bool { return l != nil && l.cut && l.str == nil && l.raw[0] == '"' }

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
		c.add(finding{rule: RuleTraceShape, at: t.runID.site, msg: fmt.Sprintf("run_id is %s, not a string", report.Clip(t.runID.raw)),
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
		hint := "give a trace object (§5.8), an execute response or a trace-fetch response carrying one"
		if s.other != "" {
			hint = "this looks like " + s.other + "; " + hint
		}
		c.add(finding{rule: RuleTraceShape, at: c.traceAt, msg: "not a trace: the file has no steps, level or outcome", hint: hint})
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
		// A deep rule re-decides a Run of the program: an installation
		// or a refused Run executed none (deep-undecided included, as
		// deploy-trace and refused-run say what the trace is).
		r := RuleByID(rule)
		return (r.UsesPlan || r.Category == CatDeep) && (installation || refused) || rule == RuleResponseDiagnostics && !s.response
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
				msg: fmt.Sprintf("the trace's run_id %q differs from the response's %q", report.Clip(b), report.Clip(a))})
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
