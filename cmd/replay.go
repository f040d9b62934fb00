package cmd

import (
	"context"

	"github.com/pilotage-dev/pilotage/cmd/replayverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/replay"
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
after a failure that ended the Run. A step that runs a promoted program
whose body the PDL defines is followed into its expanded entries
(STEP/ID…), re-decided the same way with the step's input as the body's;
entries the body does not give are deep-drift. What cannot be re-decided
(a summary trace records no outputs; no trace records the Run's input
unless --input gives it; an opaque body records no entries) is said in
deep-undecided info findings.

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
	p.out.pictures = picture.ReportFormats
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
		return verb.ListRules(s.verb(), args, p.out.output, format, replay.RuleInfos())
	}
	return replayverb.Replay(context.Background(), replayverb.Params{
		Traces:     args,
		Plan:       p.plan,
		Snapshot:   p.snapshot,
		Lang:       p.lang,
		Language:   p.language,
		Program:    p.program,
		Deep:       p.deep,
		Input:      p.input,
		TraceOnly:  p.traceOnly,
		Disable:    p.disable,
		MaxPerRule: p.maxPerRule,
		Verbose:    p.verbose,
		Progress:   mode,
		Output:     p.out.output,
		Draw:       draw,
		Strict:     p.out.strict,
		Color:      p.out.useColor(s.err),
		Ignored:    p.out.cfg.Ignored,
		Report:     p.out.reporter(format),
	}, s.verb())
}
