// Package langtest runs `pilotage test` case files (internal/model/testcase)
// against the engine, with each case's stubs and catalog drift, and replays
// every trace against its plan, so a passing case is one replay accepts.
package langtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/lru"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// Params select the cases to run.
type Params struct {
	Run *regexp.Regexp // nil runs every case
}

// The rules of findings that are not failed expectations. RulePDL marks
// a case whose PDL does not load or has no such Language: unusable
// input, as for every other verb, not a failed case. RuleParse marks a
// case file that does not say what it means.
const (
	RulePDL   = "test-pdl"
	RuleParse = "test-parse"
)

// ParseFindings are e, a case file's problems (e and e.More), as
// findings at their places: in a file a case names (an input that is
// not JSON), at its place in that file, related to where the case file
// names it.
func ParseFindings(e *testcase.Error) []report.Finding {
	var fs []report.Finding
	for _, e := range append([]*testcase.Error{e}, e.More...) {
		f := report.Finding{Rule: RuleParse, Section: "docs/test.md", Severity: report.Error, Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line, Column: e.Col}
		if e.EndCol > e.Col {
			f.EndLine, f.EndColumn = e.Line, e.EndCol
		}
		if n := e.Named; n.File != "" {
			f.Related = []report.Location{{File: n.File, Line: n.Line, Column: n.Col, Note: "the case file names it here"}}
		}
		fs = append(fs, f)
	}
	return fs
}

// Outcome is one case's result: what the engine answered and the
// findings (failed expectations, bad cases) at their lines.
type Outcome struct {
	File     *testcase.File
	Case     *testcase.Case
	Got      *testcase.Got
	Lang     *language.Language
	Server   *language.Server // the PDL's, before stubs
	Findings []report.Finding
	// Unmet are the expectations the answer did not meet: what --update
	// rewrites, apart from Findings, which no rewrite fixes.
	Unmet    []report.Finding
	Failures []testcase.Failure
}

// Runner runs case files, compiling each PDL once for every case of
// every file that names it.
type Runner struct {
	p    Params
	pdls map[string]*compiled
	// answers are validate's answers to the cases of shared engines, by
	// PDL, Language, principal and program and context (answerKey): a
	// program is validated once for every case that checks it, not once
	// a case (the engine remembers only the program it checked last, and
	// derives the plan again each time). They are shared by the Outcomes
	// they answer, which only read them.
	answers *lru.Cache[*pilotage.ValidateResponse]
	// Skipped counts the cases --run did not select; skipped keeps the
	// first maxSkipped of their names, for Nearest.
	Skipped int
	skipped []string
}

// maxSkipped bounds the names of the cases --run did not select that a
// Runner keeps to suggest one: a typo in --run is looked for among the
// first thousand.
const maxSkipped = 1000

// answersBudget bounds what Runner.answers holds, charged answerWeight
// an answer: a few of the largest programs a Language takes by default.
const answersBudget = 16 << 20

// answerWeight is what an answer to a program of n bytes is charged:
// its plan, a step of about 200 bytes for a step of about 50 in JSON,
// and a kilobyte for the response and plan around the steps, so that
// many small programs are not held by the tens of thousands.
func answerWeight(n int) int { return 4*n + 1<<10 }

// NewRunner is a Runner of the cases p selects; Close ends it.
func NewRunner(p Params) *Runner {
	return &Runner{p: p, pdls: map[string]*compiled{}, answers: lru.New[*pilotage.ValidateResponse](answersBudget, 0)}
}

// answerKey is what validate's answer to c in Language lang of the PDL
// at path depends on on a shared engine, whose catalog no case changes.
func answerKey(path, lang string, c *testcase.Case) string {
	h := sha256.New()
	for _, s := range [][]byte{[]byte(path), []byte(lang), []byte(c.Principal), c.Program, c.Context} {
		fmt.Fprintf(h, "%d:", len(s))
		h.Write(s)
	}
	return string(h.Sum(nil))
}

// File runs the selected cases of f in order and hands each one's
// Outcome to each as the case finishes. The Runner keeps nothing of a
// case once each returns, and a file Read a case at a time is read a case
// at a time here (testcase.File.All), so what each keeps is all a run
// holds of its cases: a corpus reported as it runs holds one case's
// program, answers and findings at a time, not every case's, while
// --update and --coverage keep what they read. A file is all or nothing:
// when one read a case at a time turns out not to read, at a case further
// on, File returns its error, and the Outcomes handed over before it are
// of a file that does not count.
//
// A file whose language: names no Language of its PDL is such a file:
// its cases are read, to report their errors too, and none runs.
func (r *Runner) File(f *testcase.File, each func(Outcome)) *testcase.Error {
	pdl := r.load(f.PDL)
	var lang *language.Language
	var bad *testcase.Error
	if pdl.srv != nil {
		var err error
		if lang, err = pdl.srv.PickAs(f.Language, "language:"); err != nil {
			at := f.LanguageAt
			bad = &testcase.Error{File: f.Name, Line: max(at.Line, 1), Col: max(at.Col, 1), EndCol: at.End, Msg: err.Error(), Hint: languageHint}
		}
	}
	for c, e := range f.All() {
		if e != nil {
			if bad != nil {
				bad.More, bad.Partial = append([]*testcase.Error{e}, e.More...), e.Partial
				return bad
			}
			return e
		}
		if bad != nil {
			continue
		}
		if r.p.Run == nil || r.p.Run.MatchString(c.Name) {
			each(r.runCase(f, c, pdl, lang))
			continue
		}
		if r.Skipped++; len(r.skipped) < maxSkipped {
			r.skipped = append(r.skipped, c.Name)
		}
	}
	return bad
}

// Nearest is the name of a case --run did not select that its
// expression, read as a name, is a likely typo of ("" when none is):
// the did-you-mean of a --run that selects nothing.
func (r *Runner) Nearest() string {
	if r.p.Run == nil {
		return ""
	}
	return suggest.Closest(r.p.Run.String(), r.skipped)
}

// Close ends the engines the Runner started.
func (r *Runner) Close() {
	for _, c := range r.pdls {
		if c.eng != nil {
			c.eng.Close()
		}
	}
}

// compiled is a PDL loaded once for every case that names it, with what
// replay knows of its Languages.
type compiled struct {
	srv *language.Server
	err string
	// readErr is why the PDL could not be read, when it could not.
	readErr error
	// eng serves the cases that change nothing of the PDL (no stubs, no
	// drift): starting an engine per case was most of a corpus's time.
	eng    *engine.Engine
	replay map[string]*replay.Language
	// cel checks the cases' stub CEL in the PDL's entries' environments.
	cel *compile.Behaviours
}

// finding is the RulePDL finding of case c of f, whose PDL, p, does not
// load: at the file's pdl:, the same for each of its cases (the test
// verb reports it once), naming a file that cannot be read as written
// there; at the case when the file gives no pdl: (the *.pdl beside its
// tests directory).
func (p *compiled) finding(f *testcase.File, c *testcase.Case) report.Finding {
	at := f.PDLAt
	if at.Line == 0 {
		return finding(f, c.Line, RulePDL, p.err, "")
	}
	msg, hint := p.err, ""
	if p.readErr != nil {
		dir := filepath.Dir(f.Name)
		rel := f.PDL
		if r, err := filepath.Rel(dir, f.PDL); err == nil && !filepath.IsAbs(f.PDL) {
			rel = r
		}
		msg, hint = testcase.ReadError(dir, rel, p.readErr)
	}
	return findingAt(f, at, RulePDL, msg, hint)
}

func (r *Runner) load(path string) *compiled {
	if c, ok := r.pdls[path]; ok {
		return c
	}
	c := &compiled{replay: map[string]*replay.Language{}, cel: compile.NewBehaviours()}
	res, rep, err := compile.Load(path, 1)
	switch {
	case err != nil:
		c.err, c.readErr = err.Error(), err
	case !res.OK():
		// The first error of the PDL, not a count of those its cap left
		// out, which sorts first (it has no line).
		i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Severity == report.Error && !f.CountsLeft() })
		c.err = fmt.Sprintf("%s has errors (%s); run pilotage lint %s", path, rep.Findings[i].Message, path)
	default:
		c.srv = res.Server
		if snap, err := json.Marshal(emit.Snapshot(c.srv)); err == nil {
			for _, l := range c.srv.Languages {
				if rl, err := replay.LoadSnapshot("snapshot.json", snap, l.ID); err == nil {
					c.replay[l.ID] = rl
				}
			}
		}
	}
	r.pdls[path] = c
	return c
}

func finding(f *testcase.File, line int, rule, msg, hint string) report.Finding {
	return report.Finding{Rule: rule, Section: "docs/test.md", Severity: report.Error, Message: msg, File: f.Name, Line: line, Column: 1, Hint: hint}
}

// findingAt is a finding at a value of the case file, underlined whole
// when it is written on one line.
func findingAt(f *testcase.File, at testcase.Place, rule, msg, hint string) report.Finding {
	x := finding(f, at.Line, rule, msg, hint)
	x.Column = max(at.Col, 1)
	if at.End > x.Column {
		x.EndLine, x.EndColumn = at.Line, at.End
	}
	return x
}

// valueFindings are c's values no Run could meet, all at once: an
// undeclared principal, stubs of entries the catalog lacks, values
// outside lang's closed sets (not checked when lang is nil). They need
// the PDL, pdl, but not the program. withStubs is pdl's server with c's
// stubs.
func valueFindings(f *testcase.File, c *testcase.Case, pdl *compiled, lang *language.Language) (withStubs *language.Server, fs []report.Finding) {
	srv := pdl.srv
	if err := srv.CheckPrincipalAs(c.Principal, "principal:"); err != nil {
		fs = append(fs, findingAt(f, c.PrincipalAt, "test-case", fmt.Sprintf("case %q: %v", c.Name, err), ""))
	}
	withStubs, more := stubbed(srv, f, c, pdl.cel)
	if fs = append(fs, more...); lang != nil {
		fs = append(fs, closedSetFindings(f, c, lang)...)
		if x, ok := textInJSON(f, c, lang); ok {
			fs = append(fs, x)
		}
	}
	return withStubs, fs
}

// textInJSON is the finding of a case that gives a text program to lang,
// a Language that takes JSON programs (neither a text syntax nor text
// ranges, §5.5), unless it expects the program to
// be refused (valid: false, diagnostics): the engine's answer, that "the
// program is a JSON string, not an object", does not say what to write.
func textInJSON(f *testcase.File, c *testcase.Case, lang *language.Language) (report.Finding, bool) {
	e := &c.Expect
	if !c.Text || lang.Text != nil || syntax.Textual(lang.Locator) || e.Valid != nil && !*e.Valid || e.Diagnostics != nil {
		return report.Finding{}, false
	}
	what, hint := "a text program", "write it under program: as JSON (program: {steps: […]}), or name a .json file"
	if c.ProgramFile != "" {
		what, hint = "a text program file", "name a .json file, or write the program under program: as JSON (program: {steps: […]})"
	}
	return findingAt(f, c.ProgramAt, "test-case", fmt.Sprintf("case %q gives %s, but %s takes JSON programs", c.Name, what, lang.ID), hint), true
}

// Broken is what a run reports of a case file that does not read, e:
// its errors (ParseFindings), then, up to testcase.MaxErrors findings
// in all, what is wrong with the values its cases gave against its PDL
// (valueFindings), and of its language:, which need no program: a file
// with an unknown key is not mended a run at a time. What follows from
// an error is left out as the reading leaves it out: a case whose
// program could not be read has no program to check. Past the cap, a
// last finding says how many were left out.
func (r *Runner) Broken(e *testcase.Error) []report.Finding {
	fs := ParseFindings(e)
	f := e.Partial
	if f == nil || len(fs) >= testcase.MaxErrors {
		return fs
	}
	pdl := r.load(f.PDL)
	if pdl.srv == nil {
		return fs // the PDL's own errors are lint's to name
	}
	lang, err := pdl.srv.PickAs(f.Language, "language:")
	if err != nil && err.Error() != e.Msg {
		// File names a bad language: first; a file Parse refused was
		// not asked.
		fs = append(fs, languageError(f, err))
	}
	var values []report.Finding
	for _, c := range f.Cases {
		if len(fs)+len(values) > testcase.MaxErrors {
			break
		}
		_, more := valueFindings(f, c, pdl, lang)
		values = append(values, more...)
	}
	if room := testcase.MaxErrors - len(fs); len(values) > room {
		x := values[room]
		x.Rule, x.Hint = RuleParse, "mend the errors listed and run pilotage test again"
		x.Message = fmt.Sprintf("%d errors listed; the cases' values are checked no further from here", testcase.MaxErrors)
		x.EndLine, x.EndColumn = 0, 0
		values = append(values[:room], x)
	}
	return append(fs, values...)
}

// languageHint is the hint of a language: that names none of the PDL's
// Languages.
const languageHint = "language: names one of the PDL's Languages (docs/test.md)"

// languageError is the finding of f's language:, which names none of its
// PDL's Languages (err), at the file's first line when it gives none.
func languageError(f *testcase.File, err error) report.Finding {
	at := f.LanguageAt
	at.Line, at.Col = max(at.Line, 1), max(at.Col, 1)
	return findingAt(f, at, RuleParse, err.Error(), languageHint)
}

// runCase runs c of f against lang of pdl (nil when the PDL does not
// load).
func (r *Runner) runCase(f *testcase.File, c *testcase.Case, pdl *compiled, lang *language.Language) Outcome {
	o := Outcome{File: f, Case: c}
	bad := func(line int, rule, msg, hint string) Outcome {
		o.Findings = append(o.Findings, finding(f, line, rule, msg, hint))
		return o
	}
	if pdl.srv == nil {
		o.Findings = append(o.Findings, pdl.finding(f, c))
		return o
	}
	o.Lang, o.Server = lang, pdl.srv
	srv, fs := valueFindings(f, c, pdl, lang)
	if o.Findings = fs; len(o.Findings) > 0 {
		return o
	}
	eng, err := pdl.engine(srv, c)
	if err != nil {
		return bad(c.Line, "test-case", err.Error(), "")
	}
	if eng != pdl.eng {
		defer eng.Close()
	}
	ctx, caller := context.Background(), service.Caller{Principal: c.Principal, Session: fmt.Sprintf("test-%p", c)}
	defer eng.EndSession(caller.Session)
	got := &testcase.Got{}
	o.Got = got
	if c.ProgramRef != "" {
		// A reference is not validated (§6.5.1): the Run is all there is.
		got.Validate = &pilotage.ValidateResponse{Valid: true, Diagnostics: []pilotage.Diagnostic{}}
	} else if got.Validate, err = r.validate(ctx, eng, caller, pdl, f, c, lang.ID); err != nil {
		return bad(c.Line, "test-request", fmt.Sprintf("validate answered a request error: %v", err), "")
	}
	if got.Validate.Valid && c.NeedsRun() {
		req := pilotage.ExecuteRequest{Program: c.Program, Input: c.Input, Context: c.Context}
		if c.ProgramRef != "" {
			req.ProgramRef = &c.ProgramRef
		}
		if c.TestRun {
			req.TestRun = &c.TestRun
		}
		if c.TraceLevel != "" {
			req.TraceLevel = &c.TraceLevel
		}
		if d := c.Drift; d != nil {
			if err := drift(eng, srv, d); err != nil {
				return bad(d.Line, "test-case", err.Error(), "")
			}
			if d.Pin {
				req.ExpectedCatalogVersion = &got.Validate.CatalogVersion
			}
		}
		if got.Execute, err = eng.Execute(ctx, caller, lang.ID, req); err != nil {
			return bad(c.Line, "test-request", fmt.Sprintf("execute answered a request error: %v", err), "")
		}
		if _, ok := c.Expect.Lines["narration"]; ok {
			if tr, err := eng.Trace(ctx, caller, lang.ID, pilotage.TraceFetchRequest{RunID: got.Execute.RunID}); err == nil {
				got.Narration = tr.Narration
			}
		}
	}
	o.Findings = append(o.Findings, unusedStubs(f, c, got)...)
	plan := got.Validate.Plan
	if c.Drift != nil && got.Execute != nil && c.ProgramRef == "" {
		// The Run executed at the changed catalog: replay it against the
		// plan derived there.
		if v, err := eng.Validate(ctx, caller, lang.ID, pilotage.ValidateRequest{Program: c.Program, Context: c.Context}); err == nil {
			plan = v.Plan
		}
	}
	o.Findings = append(o.Findings, replayFindings(f, c, got.Execute, plan, pdl.replay[lang.ID])...)
	o.Failures = testcase.Check(c, got)
	for _, x := range o.Failures {
		u := finding(f, x.Line, "test-"+x.Key, fmt.Sprintf("case %q: %s", c.Name, x.Msg), x.Diff)
		if u.Column = x.Col; x.End > x.Col {
			u.EndLine, u.EndColumn = x.Line, x.End
		}
		o.Unmet = append(o.Unmet, u)
	}
	return o
}

// validate is validate's answer to c on eng, the one remembered when eng
// is the PDL's shared engine.
func (r *Runner) validate(ctx context.Context, eng *engine.Engine, caller service.Caller, pdl *compiled, f *testcase.File, c *testcase.Case, lang string) (*pilotage.ValidateResponse, error) {
	ask := func() (*pilotage.ValidateResponse, error) {
		return eng.Validate(ctx, caller, lang, pilotage.ValidateRequest{Program: c.Program, Context: c.Context})
	}
	if eng != pdl.eng {
		return ask()
	}
	key := answerKey(f.PDL, lang, c)
	if v, ok := r.answers.Get(key); ok {
		return v, nil
	}
	v, err := ask()
	if err != nil {
		return nil, err
	}
	return r.answers.Put(key, v, answerWeight(len(c.Program)+len(c.Context))), nil
}

// engine is the shared engine for a case that changes nothing of the
// PDL, a fresh one for a case with stubs or drift.
func (p *compiled) engine(srv *language.Server, c *testcase.Case) (*engine.Engine, error) {
	if behave := perCall(c); srv != p.srv || c.Drift != nil || behave != nil {
		return engine.New(srv, engine.Options{Behave: behave})
	}
	if p.eng == nil {
		var err error
		if p.eng, err = engine.New(srv, engine.Options{}); err != nil {
			return nil, err
		}
	}
	return p.eng, nil
}

// drift changes the served catalog between plan and execute.
func drift(eng *engine.Engine, srv *language.Server, d *testcase.Drift) error {
	for _, id := range d.Remove {
		if err := eng.RemoveEntry(id); err != nil {
			return err
		}
	}
	for id, text := range d.Describe {
		i := slices.IndexFunc(srv.Catalog, func(e *language.Entry) bool { return e.ID == id })
		if i < 0 {
			return fmt.Errorf("drift describes %s, which the catalog does not hold", id)
		}
		en := *srv.Catalog[i]
		en.Description = text
		if err := eng.UpsertEntry(&en); err != nil {
			return err
		}
	}
	return nil
}

// replayFindings replays the case's trace against its plan: a trace
// replay rejects fails the case whatever it expects.
func replayFindings(f *testcase.File, c *testcase.Case, x *pilotage.ExecuteResponse, p *pilotage.Plan, rl *replay.Language) []report.Finding {
	if x == nil || x.Trace == nil || p == nil {
		return nil
	}
	plan, _ := json.Marshal(p)
	rp, err := replay.LoadPlan("plan.json", plan, 0)
	if err != nil {
		return []report.Finding{finding(f, c.Line, "test-replay", fmt.Sprintf("case %q: the plan does not load in replay: %v", c.Name, err), "")}
	}
	trace, _ := json.Marshal(x.Trace)
	var fs []report.Finding
	for _, x := range replay.Replay(rp, "trace.json", bytes.NewReader(trace), replay.Options{Language: rl}).Findings {
		if x.Severity != report.Info {
			fs = append(fs, finding(f, c.Line, "test-replay", fmt.Sprintf("case %q: replay rejects its trace: %s at %s: %s", c.Name, x.Rule, x.Pointer, x.Message), ""))
		}
	}
	return fs
}
