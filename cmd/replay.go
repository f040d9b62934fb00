package cmd

import (
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/picture"
	"github.com/spf13/cobra"
)

type replayParams struct {
	out        reportFlags
	plan       string
	snapshot   string
	lang       string
	language   string
	disable    []string
	maxPerRule int
	listRules  bool
	progress   string
	traceOnly  bool
	verbose    bool
	program    string
	deep       bool
	input      string
}

func newReplayCmd() *cobra.Command {
	p := &replayParams{}
	c := &cobra.Command{
		Use:   "replay TRACE... --plan PLAN",
		Short: "Check recorded traces against their plan (§5.7, §5.8)",
		Long: `Check recorded traces against the plan they ran from: trace identity (§5.8.2),
branch and loop entries and their decisions, trace levels (§5.8.1),
plan-trace correspondence (§5.8.4) and outcomes (§5.7, §6.5.6), read as
data-model.md's "Readings the project commits to" settle Part II's open points.

A TRACE is a trace object, an execute response or a trace-fetch response
carrying one; - reads standard input. A directory stands for the trace
files under it (*.json), at any depth in name order: manifests, snapshots,
plans and programs there are skipped (lint, --plan and validate read them),
as are hidden directories, the --plan and --snapshot files and what
pilotage.yaml's ignore patterns match. A quoted glob ('runs/**/*.json') is
expanded the same way. --verbose names each file skipped and why; a
directory or glob with no trace is exit 2. The plan is a plan object or a
validate response carrying one. Traces are streamed, so their size does not
matter.

With --snapshot (or --lang, the Language's PDL definition), run and step
statuses, trace levels, sub-program expansion and summary truncation are
also checked against the Language's manifest entry and closed-sets guide;
with --lang, branch labels against its grammar too. A PDL with errors is
printed with at most --max-per-rule of one rule listed, and exits 2.

With --deep (and --program, --lang), replay re-decides each Run from the
values its trace records: every branch condition, loop list, call
argument and output expression of the program is evaluated again in the
Language's CEL environment over the recorded outputs and loop elements,
and a branch arm, an iteration count, a call input or an output the
program does not give is a finding (deep-* rules), as is a step traced
after a failure that ended the Run. What cannot be re-decided (a summary
trace records no outputs; no trace records the Run's input unless
--input gives it) is said in deep-undecided info findings.

Each finding names its rule and spec section, points at the trace entry
(file:line:col and JSON Pointer) and at the plan step it was matched
against, and carries the trace's run_id. At most --max-per-rule findings
of one rule are listed per trace file; the rest are counted in one more
finding, as lint counts them. The summary counts the entries and
rules checked. See docs/replay.md.

--format html writes one self-contained page: the plan drawn as a graph
with the traces laid over it (steps that ran and how often, arms taken,
statuses, durations), each finding on the step it concerns and linked to
its file:line:col, and the traces grouped by outcome and by rule.
--format markdown writes the same as a Mermaid graph and tables, cut to
fit a GitHub job summary. With --trace-only and --format html, one TRACE
(a trace, an execute response or a trace fetched over MCP, narration
included) is drawn as its Run's timeline instead, with no plan and no
checks. See docs/pictures.md.

While traces of 16 MB or more (or of unknown size) are read, a line on
standard error shows the bytes read, the steps checked and the rate, when
standard error is a terminal (--progress auto); it is erased at the end.

Exit status: 0 no errors, 1 error findings (or warnings with --strict),
2 usage errors or unreadable files.`,
		Example: `  pilotage replay trace.json --plan plan.json
  pilotage replay runs/ --plan plan.json --format junit -o replay.xml
  pilotage replay 'runs/**/*.json' --plan plan.json --verbose
  pilotage replay run.json --plan validate.json --snapshot snapshot.json
  pilotage replay run.json --plan plan.json --lang langs/homeflow/homeflow.pdl
  pilotage replay run.json --plan plan.json --lang langs/homeflow/homeflow.pdl --program prog.json --deep
  engine-run | pilotage replay - --plan plan.json
  pilotage replay runs/ --plan plan.json --format html -o report.html
  pilotage replay runs/ --plan plan.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  pilotage replay --trace-only fetched.json --format html -o run.html
  pilotage replay --list-rules`,
		RunE: func(c *cobra.Command, args []string) error { return runReplay(streams(c), p, args) },
	}
	p.out.register(c, report.Formats)
	addPictureFormats(c, &p.out)
	f := c.Flags()
	f.StringVar(&p.plan, "plan", "", "the plan `FILE`: a plan object or a validate response (required)")
	f.StringVar(&p.snapshot, "snapshot", "", "a snapshot `FILE` of the Language, to check statuses, levels and truncation against its closed sets")
	f.StringVar(&p.lang, "lang", "", "a PDL `FILE` defining the Language, instead of --snapshot (also checks arm labels against its grammar)")
	f.StringVar(&p.language, "language", "", "the Language `ID` in the snapshot or PDL, when it has more than one")
	f.StringSliceVar(&p.disable, "disable", nil, "turn off a rule by `ID` (repeatable, or comma-separated)")
	f.BoolVar(&p.listRules, "list-rules", false, "list the rules and exit")
	f.StringVar(&p.program, "program", "", "the program `FILE` the plan came from (with --lang): findings about a step quote its statement")
	f.BoolVar(&p.deep, "deep", false, "re-decide each Run from its recorded values with --program (deep replay, docs/replay.md)")
	f.StringVar(&p.input, "input", "", "with --deep, the Runs' input `FILE` (a JSON object), for expressions that read input")
	f.BoolVar(&p.traceOnly, "trace-only", false, "draw one TRACE's timeline (--format html), without a plan and without checking it")
	maxPerRuleFlag(c, &p.maxPerRule)
	progressFlag(c, &p.progress)
	verboseFlag(c, &p.verbose)
	return c
}

func runReplay(s stdio, p *replayParams, args []string) error {
	draw := ""
	if picture.IsReportFormat(p.out.format) {
		draw, p.out.format = p.out.format, string(report.Text)
	}
	format, mode, err := p.out.validateWithProgress(p.progress)
	if err != nil {
		return err
	}
	if p.listRules {
		if err := listRulesAlone(args); err != nil {
			return err
		}
		return printRules(s, p.out.output, format, replay.RuleInfos())
	}
	if p.traceOnly {
		return replayTimeline(s, p, draw, args)
	}
	// The trace is what replay checks, so its absence is said first:
	// `pilotage replay` alone asked for --plan and, once given it, for
	// the trace.
	if len(args) == 0 {
		return usageErr("replay needs at least one TRACE (a file, a directory, or - for standard input)")
	}
	if p.plan == "" {
		return usageErr("replay needs --plan PLAN; see 'pilotage replay --help'")
	}
	if err := verb.CheckMaxPerRule(p.maxPerRule); err != nil {
		return err
	}
	if err := verb.OneStdin(append([]string{p.plan, p.snapshot}, args...)...); err != nil {
		return err
	}
	if err := verb.OutputNotInput(p.out.output, append([]string{p.plan, p.snapshot, p.lang}, args...)...); err != nil {
		return err
	}
	planSrc, err := readInput(s, p.plan)
	if err != nil {
		return err
	}
	plan, err := replay.LoadPlan(p.plan, planSrc)
	if err != nil {
		return usageErr("%v", err)
	}
	opt := replay.Options{Disabled: map[string]bool{}, MaxPerRule: p.maxPerRule}
	for _, id := range p.disable {
		opt.Disabled[id] = true
	}
	if opt.Language, opt.Deep, err = replayLanguage(s, p); err != nil {
		return err
	}
	var stdin io.Reader
	if slices.Contains(args, "-") {
		stdin = verb.Stdin(s.verb())
	}
	files, err := expandArgs(s, args, inputs.Replay, p.out.cfg, p.verbose, p.plan, p.snapshot, p.lang)
	if err != nil {
		return err
	}
	traces := replay.Inputs(files, stdin)
	m := progress.Start(s.err, mode, verb.InputsSize(s.verb(), files), "replay", "steps")
	defer m.Stop()
	if m != nil {
		meteredInputs(m, traces)
		opt.OnEntry = m.Add
	}
	var pic *picture.Replay
	if draw != "" {
		pic = picture.NewReplay(plan)
		opt.OnStep, opt.OnTrace = pic.Step, pic.Trace
	}
	rep, err := replay.Run(plan, traces, opt)
	m.Stop()
	if err != nil {
		return usageErr("%v", err)
	}
	if p.program != "" {
		if err := quoteStatements(s, p, rep); err != nil {
			return err
		}
	}
	if pic != nil {
		return p.out.emitPage(s, draw, pic.Page(rep, picture.PageOptions{Dir: outputDir(p.out.output)}), rep)
	}
	return p.out.emit(s, format, rep)
}

// replayTimeline draws one trace file's Run as a timeline page, reading
// the file as a stream (picture.ReadRun keeps what the page draws).
func replayTimeline(s stdio, p *replayParams, draw string, args []string) error {
	if draw != "html" || len(args) != 1 {
		return usageErr("--trace-only draws one TRACE as a timeline: pilotage replay --trace-only TRACE --format html -o run.html")
	}
	if err := verb.OutputNotInput(p.out.output, args[0]); err != nil {
		return err
	}
	var stdin io.Reader
	if args[0] == "-" {
		stdin = verb.Stdin(s.verb())
	}
	rc, err := replay.Inputs(args, stdin)[0].Open()
	if err != nil {
		return usageErr("%v", err)
	}
	defer rc.Close()
	rec, err := picture.ReadRun(rc)
	if err != nil {
		return usageErr("%s: %v", args[0], err)
	}
	return writeOutput(s, p.out.output, "the timeline", picture.NewTimeline(rec).WriteHTML)
}

// replayLanguage loads the Language from --snapshot or --lang, if given,
// and with --program the program deep replay re-decides the Runs with.
func replayLanguage(s stdio, p *replayParams) (*replay.Language, *replay.Deep, error) {
	switch {
	case p.snapshot != "" && p.lang != "":
		return nil, nil, usageErr("give --snapshot or --lang, not both")
	case (p.deep || p.input != "") && (p.program == "" || p.lang == ""):
		return nil, nil, usageErr("--deep and --input need --program and --lang: deep replay re-decides the program in the Language's own CEL environment, which a snapshot does not carry")
	case p.input != "" && !p.deep:
		return nil, nil, usageErr("--input is the input of the Runs --deep re-decides; give --deep too")
	case p.snapshot != "":
		src, err := readInput(s, p.snapshot)
		if err != nil {
			return nil, nil, err
		}
		l, err := replay.LoadSnapshot(p.snapshot, src, p.language)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		return l, nil, nil
	case p.lang != "":
		res, err := loadPDL(s.err, p.lang, p.out.useColor(s.err), p.maxPerRule)
		if err != nil {
			return nil, nil, err
		}
		l, err := res.Server.Pick(p.language)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		// replay reads the snapshot build would write, the artifact a
		// server publishes, so --lang checks what --snapshot checks;
		// only the grammar's arm labels are not in it.
		snap, err := emit.SnapshotJSON(res.Server)
		if err != nil {
			return nil, nil, err
		}
		rl, err := replay.LoadSnapshot(p.lang, snap, l.ID)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		rl.Arms = l.Grammar.Arms
		if !p.deep {
			return rl, nil, nil
		}
		src, err := readInput(s, p.program)
		if err != nil {
			return nil, nil, err
		}
		deep, err := replay.LoadDeep(p.program, src, res.Server, l)
		if err != nil {
			return nil, nil, usageErr("%v", err)
		}
		if p.input != "" {
			in, err := readInput(s, p.input)
			if err != nil {
				return nil, nil, err
			}
			if deep.Input, err = expr.DecodeJSON(in); err != nil {
				return nil, nil, usageErr("%s: the input is not JSON: %v", p.input, err)
			}
		}
		return rl, deep, nil
	case p.language != "":
		return nil, nil, usageErr("--language picks a Language of --snapshot or --lang; give one of them too")
	}
	return nil, nil, nil
}

// planStep reads the step id out of the note replay gives a finding's
// plan step (replay's checker.rel).
var planStep = regexp.MustCompile(`^plan step ("(?:[^"\\]|\\.)*")`)

// quoteStatements relates every finding about a plan step to the
// statement of --program that the step came from: its place in the
// program file, with the statement's first line as the note, so a
// finding on a generated id (§3.4) shows what the author wrote.
func quoteStatements(s stdio, p *replayParams, rep *report.Report) error {
	if p.lang == "" {
		return usageErr("--program needs --lang, the PDL whose Language reads it")
	}
	src, err := readInput(s, p.program)
	if err != nil {
		return err
	}
	res, err := loadPDL(s.err, p.lang, p.out.useColor(s.err), p.maxPerRule)
	if err != nil {
		return err
	}
	l, err := res.Server.Pick(p.language)
	if err != nil {
		return usageErr("%v", err)
	}
	parsed, err := syntax.For(l).Parse(src, l.Limits.WithDefaults().Depth)
	if err != nil || !pilotage.Valid(parsed.Diagnostics) {
		return usageErr("%s is not a program of %s that validates; give the program the plan came from", p.program, l.ID)
	}
	lines := strings.Split(string(src), "\n")
	at := map[string]report.Location{}
	program.Walk(parsed.Program.Steps, func(st *program.Step) {
		start, _ := parsed.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(st.Pointer)})
		if start.Line >= 1 && start.Line <= len(lines) {
			text := strings.TrimSpace(strings.TrimRight(lines[start.Line-1], "\r"))
			at[st.ID] = report.Location{File: p.program, Line: start.Line, Column: start.Column, Note: "statement: " + text}
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
	return nil
}
