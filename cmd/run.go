package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
	"github.com/pilotage-dev/pilotage/workbench/picture"
	"github.com/pilotage-dev/pilotage/workbench/progtext"
	"github.com/pilotage-dev/pilotage/workbench/service"
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

var progVerbs = []progVerb{
	{name: "validate", short: "Validate a program against a PDL Language without MCP (§6.4)",
		long: `Validate a program exactly as the Language's <prefix>_validate tool would
(same engine, same principal rules), without starting a server. With
--format json the output is the tool's structuredContent: the validate
response {valid, diagnostics, catalog_version?, plan?, references?}. Text
output shows each diagnostic at its line and column in the program (or in
the --context file) with the source line underlined.
` + principalHelp + `

Exit status: 0 valid, 1 invalid (an error diagnostic), 2 usage errors,
unreadable files, a PDL with errors or a request error.`,
		example: `  pilotage validate --lang langs/homeflow/homeflow.pdl --principal owner program.json
  pilotage validate --lang langs/calc/calc.pdl --format json - < program.json`},
	{name: "plan", short: "Show the plan of a program: its steps and their risk (§5.6)",
		long: `Validate a program and show its plan (§5.6): every step the program may
run, the catalog entries it calls, its risk and the aggregated maximum risk
a Host gates on (§7.3). With --format json the output is the validate
response, plan included (replay --plan accepts it). With --format svg,
dot or mermaid the plan is drawn as a graph: a box per step coloured by
its risk level, branches with their conditions, loops as clusters,
max_risk in the title (docs/pictures.md). An invalid program prints its
diagnostics as validate does.
` + principalHelp + `

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
output shows the outcome, the output and the trace, or the diagnostics of
a validation_error. --format html writes the Run's timeline as one page:
every trace entry on a time axis with its status, decisions and output,
then the Run's output (docs/pictures.md).
` + principalHelp + `

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
		f.StringVarP(&p.output, "output", "o", "", "write the output to `FILE` instead of standard output")
		f.StringVar(&p.color, "color", "auto", "colour text output: auto, always or never (NO_COLOR disables auto)")
		cmds = append(cmds, c)
	}
	return cmds
}

// cliSession is the one Session a validate/plan/run invocation is.
const cliSession = "cli"

// progFiles are the files a command read: what the request sends, and
// the files themselves for placing diagnostics.
type progFiles struct {
	program    json.RawMessage
	inputRaw   json.RawMessage
	contextRaw json.RawMessage
	files      progtext.Files
}

func runProg(s stdio, v progVerb, p *progParams, programFile string) error {
	rf := reportFlags{format: p.format, color: p.color, formats: []report.Format{report.Text, report.JSON}}
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
	res, err := loadPDL(s.err, p.lang, rf.useColor(s.err), report.DefaultMaxPerRule)
	if err != nil {
		return err
	}
	if err := res.Server.CheckPrincipal(p.principal); err != nil {
		return usageErr("%v", err)
	}
	lang, err := res.Server.Pick(p.language)
	if err != nil {
		return usageErr("%v", err)
	}
	pf, err := readProgFiles(s, lang, programFile, p)
	if err != nil {
		return err
	}
	// One Run at most: the default memory limit is never reached.
	eng, err := newEngine(res.Server, "", runstore.Limits{})
	if err != nil {
		return err
	}
	defer eng.Close()
	defer eng.EndSession(cliSession)
	caller := service.Caller{Principal: p.principal, Session: cliSession}
	ctx := context.Background()
	if v.run {
		req := pilotage.ExecuteRequest{Program: pf.program, Input: pf.inputRaw, Context: pf.contextRaw}
		// Only a given --trace-level is a supplied trace_level (§6.5.2);
		// left out, the Run is at the Language's level.
		if p.flags.Changed("trace-level") {
			req.TraceLevel = &p.traceLevel
		}
		resp, err := eng.Execute(ctx, caller, lang.ID, req)
		if err != nil {
			return requestError(s, format, p.output, err)
		}
		err = writeOutput(s, p.output, "the output", func(w io.Writer) error {
			switch {
			case format == report.JSON:
				return writeJSON(w, resp)
			case draw != "":
				return picture.NewTimeline(&picture.RunRecord{RunID: resp.RunID, Outcome: resp.Outcome, Output: resp.Output, Trace: resp.Trace, Diagnostics: resp.Diagnostics}).WriteHTML(w)
			}
			return progtext.Run(w, resp, &pf.files, rf.useColor(w))
		})
		if err != nil {
			return err
		}
		if !resp.Outcome.OK {
			return findingsExit
		}
		return nil
	}
	resp, err := eng.Validate(ctx, caller, lang.ID, pilotage.ValidateRequest{Program: pf.program, Context: pf.contextRaw})
	if err != nil {
		return requestError(s, format, p.output, err)
	}
	if draw != "" && resp.Valid && resp.Plan == nil {
		return usageErr("Language %s declares no plan (§5.6), so there is no plan to draw; --format %s needs a Language that declares plan", lang.ID, draw)
	}
	err = writeOutput(s, p.output, "the output", func(w io.Writer) error {
		switch {
		case format == report.JSON:
			return writeJSON(w, resp)
		case draw != "" && resp.Valid && resp.Plan != nil:
			return picture.WritePlan(w, draw, picture.FromPlan(resp.Plan, picture.ProgramInfo(pf.files.Sources[programFile], lang)))
		case v.name == "plan" && resp.Valid:
			if err := progtext.Plan(w, resp); err != nil || !syntax.Textual(lang.Locator) {
				return err
			}
			return progtext.Program(w, pf.files.Sources[programFile], lang)
		}
		return progtext.Diagnostics(w, resp.Diagnostics, &pf.files, rf.useColor(w))
	})
	if err != nil {
		return err
	}
	if !resp.Valid {
		return findingsExit
	}
	return nil
}

// langFromConfig sets --lang, when it is not given, from the
// pilotage.yaml languages entry that matches the program file.
func langFromConfig(v progVerb, p *progParams, programFile string) error {
	if p.lang != "" {
		return nil
	}
	cfg, _, err := loadConfig(p.flags)
	if err != nil {
		return err
	}
	l, ok := cfg.LanguageFor(programFile)
	if !ok {
		return usageErr("%s needs --lang FILE.pdl, the Language %s is written in; or a languages entry in pilotage.yaml whose files match it (docs/config.md). See 'pilotage %s --help'", v.name, programFile, v.name)
	}
	p.lang = l.Value
	return nil
}

// readProgFiles reads the program, input and context. A json-pointer
// Language's program goes as the file's bytes, JSON or not: the engine
// answers a malformed one with a syntax diagnostic, which is printed at
// the bad character like any finding (exit 1); a text-range Language
// receives the file's text as a string (binding.md). A malformed input or
// context is a usage error (exit 2): it is no program to check.
func readProgFiles(s stdio, lang *language.Language, programFile string, p *progParams) (*progFiles, error) {
	if err := verb.OneStdin(programFile, p.input, p.context); err != nil {
		return nil, err
	}
	if err := verb.OutputNotInput(p.output, programFile, p.input, p.context, p.lang); err != nil {
		return nil, err
	}
	pf := &progFiles{files: progtext.Files{Program: programFile, Sources: map[string][]byte{}}}
	src, err := readInput(s, programFile)
	if err != nil {
		return nil, err
	}
	pf.files.Sources[programFile] = src
	var text bool
	pf.program, text = syntax.Wire(lang.Locator, src)
	if err := textIsUTF8(programFile, src, text); err != nil {
		return nil, err
	}
	pf.files.Docs.Program = progdiag.NewDoc(programFile, src, text)
	for _, x := range []struct {
		name string
		raw  *json.RawMessage
		doc  **progdiag.Doc
	}{{p.input, &pf.inputRaw, &pf.files.Docs.Input}, {p.context, &pf.contextRaw, &pf.files.Docs.Context}} {
		if x.name == "" {
			continue
		}
		b, err := readInput(s, x.name)
		if err != nil {
			return nil, err
		}
		if *x.raw, err = jsonFile(x.name, b); err != nil {
			return nil, err
		}
		pf.files.Sources[x.name] = b
		*x.doc = progdiag.NewDoc(x.name, b, false)
	}
	return pf, nil
}

// textIsUTF8 refuses a text program (exit 2) at its first byte that is
// not UTF-8: the JSON string it travels as cannot hold that byte, and
// encoding/json would send U+FFFD in its place, so the engine would
// check, and could pass, a character the file does not hold.
func textIsUTF8(name string, src []byte, text bool) error {
	if !text || utf8.Valid(src) {
		return nil
	}
	at := 0
	for {
		r, w := utf8.DecodeRune(src[at:])
		if r == utf8.RuneError && w == 1 {
			break
		}
		at += w
	}
	pos := (&jsonpos.Doc{Src: src}).Position(at)
	return usageErr("%s:%d:%d: the program is not UTF-8 text: byte 0x%02x is not a character; save the program as UTF-8", name, pos.Line, pos.Column, src[at])
}

// jsonFile checks that src is one JSON value and reports where it is not,
// as "malformed JSON", the words lint, replay and conform use for the
// same bytes.
func jsonFile(name string, src []byte) (json.RawMessage, error) {
	if _, err := jsonpos.ParseShared(src); err != nil {
		var se *jsonpos.SyntaxError
		if errors.As(err, &se) {
			return nil, usageErr("%s:%d:%d: malformed JSON: %s", name, se.Pos.Line, se.Pos.Column, se.Msg)
		}
		return nil, usageErr("%s: malformed JSON: %v", name, err)
	}
	return json.RawMessage(src), nil
}

// requestError prints a request error (§8) and exits 2: the request, not
// the program, was wrong. JSON output is the tool's error envelope,
// written where -o says, as a response would be.
func requestError(s stdio, format report.Format, output string, err error) error {
	var re *pilotage.RequestError
	if !errors.As(err, &re) {
		return usageErr("%v", err)
	}
	if format == report.JSON {
		if err := writeOutput(s, output, "the output", func(w io.Writer) error {
			return writeJSON(w, pilotage.RequestErrorEnvelope{Error: *re})
		}); err != nil {
			return err
		}
		return &exitError{Code: ExitUsage}
	}
	return usageErr("request error %s: %s", re.Kind, re.Message)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
