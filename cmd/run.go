package cmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pilotage-dev/pilotage/cmd/progverb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/picture"
)

// progParams are the flags of validate, plan and run.
type progParams struct {
	lang       string
	language   string
	principal  string
	input      string
	context    string
	traceLevel string
	format     string
	output     string
	color      string
	maxPerRule int
	// flags are the verb's flags, for telling a flag given from its
	// default: only a given --trace-level is a supplied trace_level.
	flags *pflag.FlagSet
}

// progVerb says how each of the three verbs differs.
type progVerb struct {
	name, short, long, example string
	run                        bool
}

// principalHelp says what leaving --principal out means, in the help of
// validate, plan and run.
const principalHelp = `
--principal NAME acts as a principal the PDL declares (§10.3). Left out,
on a PDL that declares principals, the caller is none of them and sees no
catalog entry, so every name a program calls is unknown (the diagnostic's
hint names the declared principals); a PDL without principals shows every
entry to every caller.`

// capHelp says how many diagnostics validate, plan and run list and
// build, in their help.
const capHelp = `

At most --max-per-rule diagnostics of one code are listed (50 by
default), in text and json; the rest are counted in one more diagnostic
of that code. A program with more than 1,000 diagnostics is a
resource_limit request error (§10.1), printed at the program's file,
line and column, as is a program over a limit of the Language.`

var progVerbs = []progVerb{
	{name: "validate", short: "Validate a program against a PDL Language without MCP (§6.4)",
		long: `Validate a program exactly as the Language's <prefix>_validate tool would
(same engine, same principal rules), without starting a server. With
--format json the output is the tool's structuredContent: the validate
response {valid, diagnostics, catalog_version?, plan?, references?}. Text
output shows each diagnostic at its line and column in the program (or in
the --context file) with the source line underlined.
` + principalHelp + capHelp + `

Exit status: 0 valid, 1 invalid (an error diagnostic), 2 usage errors,
unreadable files, a PDL with errors or a request error.`,
		example: `  pilotage validate --lang langs/homeflow/homeflow.pdl --principal owner program.json
  pilotage validate --lang langs/calc/calc.pdl --format json - < program.json`},
	{name: "plan", short: "Show the plan of a program: its steps and their risk (§5.6)",
		long: `Validate a program and show its plan (§5.6): every step the program may
run, the catalog entries it calls, its risk and the aggregated maximum risk
a Host gates on (§7.3). Text output is a table, a line per step, its
columns two spaces apart and padded to their widest cell of at most 40
characters: a longer step id is written whole and widens no column (a
text program is listed under it with the ids beside their lines, padded
alike). With --format json the output is the validate
response, plan included (replay --plan accepts it). With --format svg,
dot or mermaid the plan is drawn as a graph: a box per step coloured by
its risk level, branches with their conditions, loops as clusters,
max_risk in the title (docs/pictures.md). An invalid program prints its
diagnostics as validate does.
` + principalHelp + capHelp + `

Exit status: 0 valid, 1 invalid, 2 usage errors, unreadable files, a PDL
with errors or a request error.`,
		example: `  pilotage plan --lang langs/homeflow/homeflow.pdl --principal owner program.json
  pilotage plan --lang langs/homeflow/homeflow.pdl --principal owner --format svg -o plan.svg program.json`},
	{name: "run", short: "Execute a program against a PDL Language without MCP (§6.5)", run: true,
		long: `Execute a program exactly as the Language's <prefix>_execute tool would:
request checks, re-validation, input and context binding, then bounded
execution with the catalog behaviour the PDL scripts. With --format json
the output is the tool's structuredContent: the execute response
{run_id, outcome, output?, trace?, diagnostics?, catalog_version?}. Text
output shows the outcome, the output and the trace, a line per entry laid
out as plan's table, or the diagnostics of a validation_error. --format
html writes the Run's timeline as one page: every trace entry on a time
axis with its status, decisions and output, then the Run's output
(docs/pictures.md).
` + principalHelp + capHelp + `

Exit status: 0 outcome ok, 1 a failed or refused Run (ok false), 2 usage
errors, unreadable files, a PDL with errors or a request error.`,
		example: `  pilotage run --lang langs/homeflow/homeflow.pdl --principal owner --input input.json program.json
  pilotage run --lang langs/calc/calc.pdl --input '-' --format json program.json
  pilotage run --lang langs/homeflow/homeflow.pdl --principal owner --input input.json --format html -o run.html program.json`},
}

func newProgCmds() []*cobra.Command {
	var cmds []*cobra.Command
	for _, v := range progVerbs {
		p := &progParams{}
		c := &cobra.Command{
			Use: v.name + " --lang FILE.pdl PROGRAM", Short: v.short, Long: v.long, Example: v.example,
			Args: needArgs(1, 1, "one PROGRAM file (or - for standard input)"),
			RunE: func(c *cobra.Command, args []string) error { return runProg(streams(c), v, p, args[0]) },
		}
		f := c.Flags()
		p.flags = f
		f.StringVar(&p.lang, "lang", "", "the PDL `FILE` that defines the Language (default: pilotage.yaml's languages entry for PROGRAM); "+pdlErrorsCap)
		registerPDLFlags(c, &p.principal, &p.language)
		f.StringVar(&p.context, "context", "", "read the validation context (§6.4) from `FILE`")
		if v.run {
			f.StringVar(&p.input, "input", "", "read the Run's input (§6.5.5) from `FILE`")
			f.StringVar(&p.traceLevel, "trace-level", "", "request trace level none, summary or full (default: the Language's)")
		}
		formats := "text or json"
		if v.run {
			formats = "text, json, or html: the Run's timeline as one page (docs/pictures.md)"
		}
		if v.name == "plan" {
			formats = "text, json, or a picture: mermaid, dot or svg (docs/pictures.md)"
		}
		f.StringVarP(&p.format, "format", "f", "text", "output format: "+formats)
		f.StringVarP(&p.output, "output", "o", "", "write the output to `FILE` instead of standard output, which then names FILE")
		f.StringVar(&p.color, "color", "auto", "colour text output: auto, always or never (NO_COLOR disables auto)")
		maxPerRuleFlag(c, &p.maxPerRule)
		cmds = append(cmds, c)
	}
	return cmds
}

func runProg(s stdio, v progVerb, p *progParams, programFile string) error {
	rf := reportFlags{format: p.format, color: p.color, formats: []report.Format{report.Text, report.JSON}}
	switch {
	case v.name == "plan":
		rf.pictures = picture.PlanFormats
	case v.run:
		rf.pictures = []string{"html"}
	}
	draw := ""
	if v.name == "plan" && picture.IsPlanFormat(p.format) || v.run && p.format == "html" {
		draw, rf.format = p.format, string(report.Text)
	}
	format, err := rf.validate()
	if err != nil {
		return err
	}
	if err := langFromConfig(v, p, programFile); err != nil {
		return err
	}
	// The collector's room over a live heap of a program of many wrong
	// steps was itself more than ten times the program (limitMemory),
	// and over that of a large valid one, 5 to 6 bytes a byte, 6 more
	// (progMemPerByte).
	limit := limitMemoryPer(progMemPerByte, []string{programFile, p.input, p.context, p.lang})
	defer limit.restore()
	params := progverb.Params{
		Program:    programFile,
		Lang:       p.lang,
		Language:   p.language,
		Principal:  p.principal,
		Input:      p.input,
		Context:    p.context,
		Format:     format,
		Draw:       draw,
		Output:     p.output,
		Color:      rf.useColor,
		MaxPerRule: p.maxPerRule,
		Keep:       limit.keep,
	}
	// Only a given --trace-level is a supplied trace_level (§6.5.2);
	// left out, the Run is at the Language's level.
	if p.flags.Changed("trace-level") {
		params.TraceLevel = &p.traceLevel
	}
	ctx := context.Background()
	switch v.name {
	case "run":
		return progverb.Run(ctx, params, s.verb())
	case "plan":
		return progverb.Plan(ctx, params, s.verb())
	}
	return progverb.Validate(ctx, params, s.verb())
}

// langFromConfig sets --lang, when it is not given, from the
// pilotage.yaml languages entry that matches the program file. A file
// --config names is read even with --lang, so that one that cannot be
// read or is wrong is said rather than ignored.
func langFromConfig(v progVerb, p *progParams, programFile string) error {
	if p.lang != "" && !p.flags.Changed(configFlag) {
		return nil
	}
	cfg, _, err := loadConfig(p.flags)
	if err != nil {
		return err
	}
	if p.lang != "" {
		return nil // --config was read, so that a bad one is said
	}
	l, ok := cfg.LanguageFor(programFile)
	if !ok && strings.HasSuffix(programFile, ".pdl") {
		// The Language given where the program goes.
		return usageErr("%s takes a program, and %s is a PDL file, the Language: give it as --lang %s, then the program (pilotage %s --lang %s PROGRAM). See 'pilotage %s --help'",
			v.name, report.Clip(programFile), report.Clip(programFile), v.name, report.Clip(programFile), v.name)
	}
	if !ok {
		return usageErr("%s needs --lang FILE.pdl, the Language %s is written in; or a languages entry in pilotage.yaml whose files match it (docs/config.md). See 'pilotage %s --help'", v.name, programFile, v.name)
	}
	if err := cfg.CheckLang(l); err != nil {
		return &exitError{Code: ExitUsage, Err: err}
	}
	p.lang = l.Value
	return nil
}
