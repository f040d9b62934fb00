// Package replayverb is pilotage replay as a function: traces read from
// files, directories, globs or standard input, checked by replay against
// their plan and Language, reported or drawn.
package replayverb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/picture"
	"github.com/pilotage-dev/pilotage/workbench/progtext"
)

// Params are pilotage replay's arguments and flags.
type Params struct {
	// Traces are the TRACE arguments: files, directories, globs, or - for
	// standard input.
	Traces []string
	// Plan is the plan file (--plan).
	Plan string
	// Snapshot or Lang gives the Language, Language its ID among several.
	Snapshot, Lang, Language string
	// Program is the program the plan came from: findings quote its
	// statements, and with Deep the Runs are re-decided from it on Input.
	Program string
	Deep    bool
	Input   string
	// TraceOnly draws one trace's timeline without checking it.
	TraceOnly bool
	// Disable are the rule IDs turned off.
	Disable []string
	// MaxPerRule bounds the findings listed per rule and file.
	MaxPerRule int
	// Verbose names on standard error each file a walk skipped.
	Verbose bool
	// Progress says when the status line is drawn.
	Progress progress.Mode
	// Output is the -o file, which must not be an input.
	Output string
	// Draw is the picture format the report is drawn in
	// (picture.ReportFormats), or "" to hand it to Report.
	Draw string
	// Strict fails a drawn report on warnings too.
	Strict bool
	// Color colours the errors of a PDL that does not compile and of a
	// program that does not validate.
	Color bool
	// Ignored says which walked paths pilotage.yaml ignores; nil for none.
	Ignored func(path string) bool
	// Report writes the report and says how replay ends.
	Report verb.Reporter
}

// Replay checks the traces p names against p.Plan (and the Language of
// p.Snapshot or p.Lang) and hands the report to p.Report, or with p.Draw
// writes it drawn as a page; with p.TraceOnly it draws one trace's
// timeline. Its error carries the exit code (verb.Code): 2 for usage
// errors and unreadable inputs.
func Replay(_ context.Context, p Params, s verb.Streams) error {
	args := p.Traces
	if p.TraceOnly {
		return replayTimeline(s, p, args)
	}
	// The trace is what replay checks, so its absence is said first:
	// `pilotage replay` alone asked for --plan and, once given it, for
	// the trace.
	if len(args) == 0 {
		return verb.Usage("replay needs at least one TRACE (a file, a directory, or - for standard input)")
	}
	if p.Plan == "" {
		return verb.Usage("replay needs --plan PLAN; see 'pilotage replay --help'")
	}
	if err := verb.CheckMaxPerRule(p.MaxPerRule); err != nil {
		return err
	}
	if err := verb.OneStdin(append([]string{p.Plan, p.Snapshot}, args...)...); err != nil {
		return err
	}
	if err := verb.OutputNotInput(p.Output, append([]string{p.Plan, p.Snapshot, p.Lang}, args...)...); err != nil {
		return err
	}
	planSrc, err := verb.ReadInput(s, p.Plan, verb.ArtifactBound)
	if err != nil {
		return err
	}
	plan, err := replay.LoadPlan(p.Plan, planSrc, p.MaxPerRule)
	if err != nil {
		return unreadable("--plan", err, planSrc)
	}
	opt := replay.Options{Disabled: map[string]bool{}, MaxPerRule: p.MaxPerRule}
	for _, id := range p.Disable {
		opt.Disabled[id] = true
	}
	lang, err := replayLanguage(s, p)
	if err != nil {
		return err
	}
	opt.Language, opt.Deep = lang.replay, lang.deep
	var stdin io.Reader
	if slices.Contains(args, "-") {
		stdin = verb.Stdin(s)
	}
	files, err := verb.Expand(s, args, inputs.Replay, p.Ignored, p.Verbose, p.Plan, p.Snapshot, p.Lang)
	if err != nil {
		return err
	}
	traces := replay.Inputs(files, stdin)
	m := progress.Start(s.Err, p.Progress, verb.InputsSize(s, files), "replay", "steps")
	defer m.Stop()
	if m != nil {
		meteredInputs(m, traces)
		opt.OnEntry = m.Add
	}
	var pic *picture.Replay
	if p.Draw != "" {
		pic = picture.NewReplay(plan)
		opt.OnStep, opt.OnTrace = pic.Step, pic.Trace
		// Now the inputs are found good, before replay grows the heap
		// (picture.Prepare).
		if pic.DrawsSVG(p.Draw) {
			picture.Prepare()
		}
	}
	if pic != nil {
		rep, err := replay.Run(plan, traces, opt)
		m.Stop()
		if err != nil {
			return unreadable("", err, nil)
		}
		if lang.program != nil {
			quoteStatements(p, lang, rep)
		}
		page := pic.Page(rep, picture.PageOptions{Dir: outputDir(p.Output)})
		if err := verb.WriteOutput(s, p.Output, "the report", func(w io.Writer) error { return page.Write(w, p.Draw) }); err != nil {
			return err
		}
		if rep.Failed(p.Strict) {
			return verb.Findings
		}
		return nil
	}
	r, err := replay.NewRunner(plan, opt)
	if err != nil {
		return verb.Usage("%v", err)
	}
	head := r.Head()
	for _, in := range traces {
		head.Files = append(head.Files, in.File)
	}
	return p.Report.Stream(s, verb.Batches{Head: head, Produce: func(add func(*report.Report, string) error) error {
		ahead := verb.Ahead(head.Files)
		// The plan's findings wait, if they must, among those of the
		// traces for their place.
		check := func(b *report.Report, next string) error {
			if lang.program != nil {
				quoteStatements(p, lang, b)
			}
			if len(b.Findings) > 0 && verb.IsStdout(p.Output) {
				// The report goes where the line is drawn.
				m.Stop()
			}
			return add(b, next)
		}
		first := ""
		if len(head.Files) > 0 {
			first = slices.Min(head.Files)
		}
		if err := check(r.PlanReport(), first); err != nil {
			return err
		}
		for i, in := range traces {
			b, err := r.Check(in)
			if err != nil {
				return unreadable("", err, nil)
			}
			if err := check(b, ahead[i]); err != nil {
				return err
			}
		}
		m.Stop()
		head.Summary.Files = len(traces)
		head.Summary.Checked = r.Checked()
		return nil
	}})
}

// replayTimeline draws one trace file's Run as a timeline page, reading
// the file as a stream (picture.ReadRun keeps what the page draws).
func replayTimeline(s verb.Streams, p Params, args []string) error {
	if p.Draw != "html" || len(args) != 1 {
		return verb.Usage("--trace-only draws one TRACE as a timeline: pilotage replay --trace-only TRACE --format html -o run.html")
	}
	if err := verb.OutputNotInput(p.Output, args[0]); err != nil {
		return err
	}
	var stdin io.Reader
	if args[0] == "-" {
		stdin = verb.Stdin(s)
	}
	rc, err := replay.Inputs(args, stdin)[0].Open()
	if err != nil {
		return verb.Usage("%v", err)
	}
	defer rc.Close()
	rec, err := picture.ReadRun(args[0], rc)
	if err != nil {
		return verb.Usage("%v", err)
	}
	return verb.WriteOutput(s, p.Output, "the timeline", picture.NewTimeline(rec).WriteHTML)
}

// loaded is what replay reads besides the plan and the traces: the
// Language of --snapshot or --lang, and with --program the program, read
// and checked before any trace is, and deep replay's view of it.
type loaded struct {
	replay  *replay.Language
	deep    *replay.Deep
	program *syntax.Parsed
	// programSrc is the program's file and grammar its Language's, for
	// quoteStatements.
	programSrc []byte
	grammar    *language.Grammar
}

// replayLanguage loads the Language from --snapshot or --lang, if given,
// and with --program the program, which must validate: a program that
// does not is reported before a trace is read, not after.
func replayLanguage(s verb.Streams, p Params) (loaded, error) {
	switch {
	case p.Snapshot != "" && p.Lang != "":
		return loaded{}, verb.Usage("give --snapshot or --lang, not both")
	case (p.Deep || p.Input != "") && (p.Program == "" || p.Lang == ""):
		return loaded{}, verb.Usage("--deep and --input need --program and --lang: deep replay re-decides the program in the Language's own CEL environment, which a snapshot does not carry")
	case p.Input != "" && !p.Deep:
		return loaded{}, verb.Usage("--input is the input of the Runs --deep re-decides; give --deep too")
	case p.Program != "" && p.Lang == "":
		return loaded{}, verb.Usage("--program needs --lang, the PDL whose Language reads it")
	case p.Snapshot != "":
		src, err := verb.ReadInput(s, p.Snapshot, verb.ArtifactBound)
		if err != nil {
			return loaded{}, err
		}
		l, err := replay.LoadSnapshot(p.Snapshot, src, p.Language)
		if err != nil {
			return loaded{}, unreadable("--snapshot", err, src)
		}
		return loaded{replay: l}, nil
	case p.Lang != "":
		return fromPDL(s, p)
	case p.Language != "":
		return loaded{}, verb.Usage("--language picks a Language of --snapshot or --lang; give one of them too")
	}
	return loaded{}, nil
}

// fromPDL is replayLanguage of --lang.
func fromPDL(s verb.Streams, p Params) (loaded, error) {
	res, err := verb.LoadPDL(s.Err, p.Lang, "--lang", p.Color, p.MaxPerRule)
	if err != nil {
		return loaded{}, err
	}
	l, err := res.Server.Pick(p.Language)
	if err != nil {
		return loaded{}, verb.Usage("%v", err)
	}
	// replay reads the snapshot build would write, the artifact a
	// server publishes, so --lang checks what --snapshot checks; only
	// the grammar's arm labels are not in it.
	snap, err := emit.SnapshotJSON(res.Server)
	if err != nil {
		return loaded{}, err
	}
	rl, err := replay.LoadSnapshot(p.Lang, snap, l.ID)
	if err != nil {
		return loaded{}, verb.Usage("%v", err)
	}
	rl.Arms = l.Grammar.Arms
	out := loaded{replay: rl}
	if p.Program == "" {
		return out, nil
	}
	src, err := verb.ReadInput(s, p.Program, verb.ProgramBound(l.Limits, "program"))
	if err != nil {
		return loaded{}, err
	}
	out.programSrc, out.grammar = src, &l.Grammar
	if out.program, err = syntax.For(l).Parse(src, l.Limits.WithDefaults().Depth); err != nil {
		return loaded{}, verb.Usage("%s is not a program of %s: %v; give the program the plan came from", p.Program, l.ID, err)
	}
	if !p.Deep {
		if !pilotage.Valid(out.program.Diagnostics) {
			return loaded{}, programInvalid(s, p, l, src, out.program.Diagnostics)
		}
		return out, nil
	}
	out.deep, err = replay.LoadDeep(p.Program, src, res.Server, l)
	var pe *replay.ProgramError
	if errors.As(err, &pe) {
		return loaded{}, programInvalid(s, p, l, src, pe.Diagnostics)
	}
	if err != nil {
		return loaded{}, verb.Usage("%v", err)
	}
	if p.Input != "" {
		in, err := verb.ReadInput(s, p.Input, verb.InputBound(l.Limits))
		if err != nil {
			return loaded{}, err
		}
		if out.deep.Input, err = expr.DecodeJSON(in); err != nil {
			return loaded{}, verb.Usage("%s: the input is not JSON: %v", p.Input, err)
		}
	}
	return out, nil
}

// planStep reads the step id out of the note replay gives a finding's
// plan step (replay's checker.rel).
var planStep = regexp.MustCompile(`^plan step ("(?:[^"\\]|\\.)*")`)

// quoteStatements relates every finding about a plan step to the
// statement of --program that the step came from: its place in the
// program file, with the statement's first line as the note, so a
// finding on a generated id (§3.4) shows what the author wrote.
func quoteStatements(p Params, lang loaded, rep *report.Report) {
	parsed := lang.program
	lines := strings.Split(string(lang.programSrc), "\n")
	at := map[string]report.Location{}
	program.Walk(parsed.Program.Steps, func(st *program.Step) {
		start, _ := parsed.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(st.Pointer(lang.grammar))})
		if start.Line >= 1 && start.Line <= len(lines) {
			text := strings.TrimSpace(strings.TrimRight(lines[start.Line-1], "\r"))
			at[st.ID] = report.Location{File: p.Program, Line: start.Line, Column: start.Column, Note: "statement: " + text}
		}
	})
	for i := range rep.Findings {
		f := &rep.Findings[i]
		for _, r := range f.Related {
			m := planStep.FindStringSubmatch(r.Note)
			if m == nil {
				continue
			}
			if id, err := strconv.Unquote(m[1]); err == nil {
				if loc, ok := at[id]; ok {
					f.Related = append(f.Related, loc)
					break
				}
			}
		}
	}
}

// programInvalid reports a --program replay cannot use, one that does not
// validate, as pilotage validate reports it: each diagnostic at its
// file:line:col with the source line and a caret. Like a PDL's errors it
// goes to standard error and replay ends with exit 2: the program is an
// input, as the plan is, not a trace replay checks.
func programInvalid(s verb.Streams, p Params, l *language.Language, src []byte, diags []pilotage.Diagnostic) error {
	_, text := syntax.Wire(l.Locator, src)
	files := &progtext.Files{Program: p.Program, Docs: progdiag.Files{Program: progdiag.NewDoc(p.Program, src, text)},
		Sources: map[string][]byte{p.Program: src}}
	if err := progtext.Diagnostics(s.Err, diags, files, p.MaxPerRule, p.Color); err != nil {
		return verb.Usage("writing errors: %v", err)
	}
	return &verb.ExitError{Code: verb.ExitUsage}
}

// unreadable is the usage error of a plan or snapshot replay cannot use,
// given with flag, or of a trace (flag "", src nil: the trace was read
// as a stream): an *replay.InputError has its line quoted under it
// with a caret, as lint and validate show a malformed JSON file, then
// its hint. A PDL file given with a flag is said to be one, which
// --lang takes, rather than malformed JSON at its first comment.
func unreadable(flag string, err error, src []byte) error {
	var ie *replay.InputError
	if !errors.As(err, &ie) || ie.Line == 0 {
		return verb.Usage("%v", err)
	}
	if flag != "" && strings.EqualFold(filepath.Ext(ie.File), ".pdl") && jsonpos.Check(src) != nil {
		also := ""
		if flag == "--plan" {
			also = ", and --plan the plan pilotage plan --format json writes"
		}
		return verb.Usage("%s %s: this is a PDL file, not JSON; give it with --lang, which reads the Language from it as --snapshot does from a snapshot%s", flag, ie.File, also)
	}
	msg := fmt.Sprintf("%s:%d:%d: %s", ie.File, ie.Line, ie.Col, ie.Msg)
	if snip := report.Snippet(src, ie.Line, ie.Col); snip != "" {
		msg += "\n" + strings.TrimRight(snip, "\n")
	}
	if ie.Hint != "" {
		msg += "\n  hint: " + ie.Hint
	}
	return verb.Usage("%s", msg)
}

// outputDir is the directory -o writes into, which a report's links are
// relative to: the working directory for standard output.
func outputDir(output string) string {
	if output == "" || output == "-" {
		return "."
	}
	return filepath.Dir(output)
}

// meteredInputs makes every input count the bytes read from it on m.
func meteredInputs(m *progress.Meter, inputs []replay.Input) {
	for i := range inputs {
		open := inputs[i].Open
		inputs[i].Open = func() (io.ReadCloser, error) {
			rc, err := open()
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{m.Reader(rc), rc}, nil
		}
	}
}
