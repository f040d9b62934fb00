// Package progverb is pilotage validate, plan and run as functions: a
// program file checked, planned or executed by the engine on the
// Language of a PDL file, without MCP.
package progverb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/picture"
	"github.com/pilotage-dev/pilotage/workbench/progtext"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// Params are the arguments and flags of validate, plan and run.
type Params struct {
	// Program is the PROGRAM file, or - for standard input.
	Program string
	// Lang is the PDL file of the Language, Language its ID among several.
	Lang, Language string
	// Principal is the PDL principal acted as (§10.3), or "".
	Principal string
	// Input (run) and Context are the files of the Run's input (§6.5.5)
	// and the validation context (§6.4), or "".
	Input, Context string
	// TraceLevel is the trace level requested (run), nil for the
	// Language's (§6.5.2).
	TraceLevel *string
	// Format is text or JSON; Draw, when not "", the picture drawn
	// instead (plan: mermaid, dot, svg; run: html).
	Format report.Format
	Draw   string
	// Output is the -o file, which must not be an input.
	Output string
	// Color says whether what is written to w is coloured.
	Color func(w io.Writer) bool
	// MaxPerRule bounds the diagnostics listed of one code, in text and
	// JSON alike; the rest are counted (report.Cap).
	MaxPerRule int
	// Keep, when not nil, runs start, which takes memory the verb keeps
	// to its end (Graphviz's start, before an SVG picture is drawn):
	// cmd counts it as held under its soft memory limit (limitMemory).
	Keep func(start func())
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

// Validate validates the program p names (§6.4) and prints its
// diagnostics, or the response as JSON. Its error carries the exit code
// (verb.Code): 1 for an invalid program, 2 for usage errors, unreadable
// files and request errors (§8).
func Validate(ctx context.Context, p Params, s verb.Streams) error {
	return prog(ctx, "validate", p, s)
}

// Plan validates the program p names and prints its plan (§5.6), as
// text, JSON or a picture (p.Draw); its exit codes are Validate's.
func Plan(ctx context.Context, p Params, s verb.Streams) error {
	return prog(ctx, "plan", p, s)
}

// Run executes the program p names (§6.5) and prints its outcome,
// output and trace, as text, JSON or a timeline page (p.Draw). Its error
// carries the exit code (verb.Code): 1 for a failed Run, 2 for usage
// errors, unreadable files and request errors (§8).
func Run(ctx context.Context, p Params, s verb.Streams) error {
	return prog(ctx, "run", p, s)
}

// prog is the verb named: validate, plan or run.
func prog(ctx context.Context, name string, p Params, s verb.Streams) error {
	programFile, format, draw := p.Program, p.Format, p.Draw
	if err := verb.CheckMaxPerRule(p.MaxPerRule); err != nil {
		return err
	}
	res, err := verb.LoadPDL(s.Err, p.Lang, "--lang", p.Color(s.Err), report.DefaultMaxPerRule)
	if err != nil {
		return err
	}
	if err := res.Server.CheckPrincipal(p.Principal); err != nil {
		return verb.Usage("%v", err)
	}
	lang, err := res.Server.Pick(p.Language)
	if err != nil {
		return verb.Usage("%v", err)
	}
	pf, err := readProgFiles(s, lang, programFile, p)
	if err != nil {
		return err
	}
	// This process checks one program once: the CEL caches need keep
	// only what repeats in it (expr.LimitCaches), within a quarter of
	// its size, at least 256 KiB. The check parses the expressions of
	// 64 steps at a time twice (to declare the outputs they address,
	// then to check them), which the second finds in the cache; a
	// budget of the program's size kept 0.6 MB more of a program of
	// 20,000 steps (docs/performance.md, "A large valid program").
	defer expr.LimitCaches(max(256<<10, len(pf.program)/4))()
	// One Run at most: the default memory limit is never reached. One
	// request: no check is remembered for another.
	eng, err := verb.NewEngine(res.Server, engine.Options{CheckOnce: true})
	if err != nil {
		return err
	}
	defer eng.Close()
	defer eng.EndSession(cliSession)
	caller := service.Caller{Principal: p.Principal, Session: cliSession}
	if name == "run" {
		req := pilotage.ExecuteRequest{Program: pf.program, Input: pf.inputRaw, Context: pf.contextRaw}
		req.TraceLevel = p.TraceLevel
		// Text shows a row of each trace entry, which it keeps as the
		// Run hands the entries over, not the entries: a Run of
		// 20,000 steps held 4.8 MB of them to its end (progtext.Trace).
		var resp *pilotage.ExecuteResponse
		var steps *progtext.Trace
		if format == report.Text && draw == "" {
			steps = &progtext.Trace{}
			resp, err = eng.ExecuteEach(ctx, caller, lang.ID, req, steps.Add)
		} else {
			resp, err = eng.Execute(ctx, caller, lang.ID, req)
		}
		if err != nil {
			return requestError(s, p, pf, err)
		}
		// Only a Run that never started is looked at: one that ran took
		// its files as they are, and its report is the answer (a
		// Language's input may well hold steps).
		if resp.Outcome.Status == pilotage.StatusValidationError {
			if err := misfiled(p, pf); err != nil {
				return err
			}
		}
		ran := func() string { return "run " + resp.Outcome.Status }
		err = verb.WriteOutputNoted(s, p.Output, "the output", ran, func(w io.Writer) error {
			switch {
			case format == report.JSON:
				resp.Diagnostics = capDiagnostics(resp.Diagnostics, p.MaxPerRule, &pf.files)
				return report.WriteJSON(w, resp)
			case draw != "":
				return picture.NewTimeline(&picture.RunRecord{RunID: resp.RunID, Outcome: resp.Outcome, Output: resp.Output, Trace: resp.Trace, Diagnostics: resp.Diagnostics}).WriteHTML(w)
			}
			return progtext.Run(w, resp, steps, &pf.files, p.MaxPerRule, p.Color(w))
		})
		if err != nil {
			return err
		}
		if !resp.Outcome.OK {
			if p.Input != "" && inputs.RecognizeSrc(pf.files.Sources[p.Input]) == inputs.Program {
				// It ran, so it is the answer; the look of its input
				// may be why it failed.
				fmt.Fprintf(s.Err, "pilotage: note: --input %s looks like a program, not the Run's input\n", p.Input)
			}
			return verb.Findings
		}
		return nil
	}
	resp, err := eng.Validate(ctx, caller, lang.ID, pilotage.ValidateRequest{Program: pf.program, Context: pf.contextRaw})
	if err != nil {
		return requestError(s, p, pf, err)
	}
	if !resp.Valid {
		if err := misfiled(p, pf); err != nil {
			return err
		}
	}
	if draw != "" && resp.Valid && resp.Plan == nil {
		return verb.Usage("Language %s declares no plan (§5.6), so there is no plan to draw; --format %s needs a Language that declares plan", lang.ID, draw)
	}
	if draw != "" && !resp.Valid {
		// No picture: the diagnostics go where a person reads them, not
		// into plan.svg or a pipe that expects a picture.
		if err := progtext.Diagnostics(s.Err, resp.Diagnostics, &pf.files, p.MaxPerRule, p.Color(s.Err)); err != nil {
			return err
		}
		return verb.Findings
	}
	var graph *picture.Graph
	if draw != "" {
		graph = picture.FromPlan(resp.Plan, picture.ProgramInfo(pf.files.Sources[programFile], lang))
		if err := picture.Drawable(draw, graph); err != nil {
			return verb.Usage("%v; draw it with --format dot or mermaid, or plan a smaller program", err)
		}
		if draw == "svg" {
			// Only now that a picture will be drawn, but before the
			// drawing grows the heap (picture.Prepare).
			if p.Keep != nil {
				p.Keep(picture.Prepare)
			} else {
				picture.Prepare()
			}
		}
	}
	// A file written says on the terminal what it holds, as lint's -o
	// does; a picture is drawn only of a valid program, so it says no
	// more than its name.
	var counted func() string
	if draw == "" {
		counted = diagnosticCounts(resp.Diagnostics)
	}
	err = verb.WriteOutputNoted(s, p.Output, "the output", counted, func(w io.Writer) error {
		switch {
		case format == report.JSON:
			resp.Diagnostics = capDiagnostics(resp.Diagnostics, p.MaxPerRule, &pf.files)
			return report.WriteJSON(w, resp)
		case graph != nil:
			return picture.WritePlan(w, draw, graph)
		case name == "plan" && resp.Valid:
			if err := progtext.Plan(w, resp); err != nil || !syntax.Textual(lang.Locator) {
				return err
			}
			return progtext.Program(w, pf.files.Sources[programFile], lang)
		case resp.Valid:
			// The count line alone read the same for a clean lint as for
			// a valid program; say which this is.
			if _, err := fmt.Fprintf(w, "%s: valid\n", programFile); err != nil {
				return err
			}
		}
		return progtext.Diagnostics(w, resp.Diagnostics, &pf.files, p.MaxPerRule, p.Color(w))
	})
	if err != nil {
		return err
	}
	if !resp.Valid {
		return verb.Findings
	}
	return nil
}

// readProgFiles reads the program, input and context. A json-pointer
// Language's program goes as the file's bytes, JSON or not: the engine
// answers a malformed one with a syntax diagnostic, which is printed at
// the bad character like any finding (exit 1); a text-range Language
// receives the file's text as a string (binding.md). A malformed input or
// context is a usage error (exit 2): it is no program to check.
func readProgFiles(s verb.Streams, lang *language.Language, programFile string, p Params) (*progFiles, error) {
	if err := verb.OneStdin(programFile, p.Input, p.Context); err != nil {
		return nil, err
	}
	if err := verb.OutputNotInput(p.Output, programFile, p.Input, p.Context, p.Lang); err != nil {
		return nil, err
	}
	pf := &progFiles{files: progtext.Files{Program: programFile, Sources: map[string][]byte{}}}
	src, err := verb.ReadInput(s, programFile, verb.ProgramBound(lang.Limits, "program"))
	if err != nil {
		return nil, err
	}
	pf.files.Sources[programFile] = src
	var text bool
	pf.program, text = syntax.Wire(lang.Locator, src)
	if err := verb.TextIsUTF8(programFile, src, text); err != nil {
		return nil, err
	}
	if !text && len(bytes.TrimSpace(src)) == 0 {
		// The engine would take the empty program for none sent.
		return nil, verb.Usage(`%s:1:1: malformed JSON: the file is empty; a program is a JSON object such as {"steps": []}`, programFile)
	}
	if !text && string(bytes.TrimSpace(src)) == "null" {
		// And null for none sent too, as a null member is an absent
		// one; a file holding only null is no request without a program.
		at := (&jsonpos.Doc{Src: src}).Position(bytes.Index(src, []byte("null")))
		return nil, verb.Usage(`%s:%d:%d: the program is null, which sends no program; a program is a JSON object such as {"steps": []}`, programFile, at.Line, at.Column)
	}
	pf.files.Docs.Program = progdiag.NewDoc(programFile, src, text)
	for _, x := range []struct {
		flag, name string
		raw        *json.RawMessage
		doc        **progdiag.Doc
		bound      inputs.Bound
	}{{"--input", p.Input, &pf.inputRaw, &pf.files.Docs.Input, verb.InputBound(lang.Limits)},
		{"--context", p.Context, &pf.contextRaw, &pf.files.Docs.Context, verb.ProgramBound(lang.Limits, "context")}} {
		if x.name == "" {
			continue
		}
		b, err := verb.ReadInput(s, x.name, x.bound)
		if err != nil {
			return nil, jsonTextAsFile(x.flag, x.name, err)
		}
		if *x.raw, err = verb.JSONFile(x.name, b); err != nil {
			return nil, err
		}
		pf.files.Sources[x.name] = b
		*x.doc = progdiag.NewCheckedDoc(x.name, b)
	}
	return pf, nil
}

// misfiled is the usage error of a command given another kind of file
// than it reads, asked once the program did not validate or the Run
// could not start, so that a file the command takes is never refused by
// its look: a plan, a validate response, a trace, a manifest or a
// snapshot as the program, or a program as --input, likeliest with the
// two files swapped. nil when neither file is unmistakably misplaced
// (inputs.Recognize): the diagnostics are then the answer.
func misfiled(p Params, pf *progFiles) error {
	if src := pf.files.Sources[p.Program]; strings.EqualFold(filepath.Ext(p.Program), ".pdl") && jsonpos.Check(src) != nil {
		return verb.Usage("%s: this is a PDL file, not a program; give it with --lang, and the program as a file of its own", p.Program)
	}
	prog := inputs.RecognizeSrc(pf.files.Sources[p.Program])
	if prog != inputs.Unknown && prog != inputs.Program {
		return verb.Usage("%s: this looks like %s, not a program; %s", p.Program, prog, prog.Use())
	}
	if p.Input == "" || inputs.RecognizeSrc(pf.files.Sources[p.Input]) != inputs.Program {
		return nil
	}
	swapped := ""
	if prog == inputs.Unknown {
		swapped = fmt.Sprintf(" (are %s and %s swapped?)", p.Input, p.Program)
	}
	return verb.Usage("--input %s: this looks like a program, not the Run's input; the program is run's argument, and --input the JSON object its input schema describes%s", p.Input, swapped)
}

// jsonTextAsFile explains the error of a --input or --context that names
// no file but reads as JSON text (--input '{"x":1}'), the first guess of
// many: the flag takes a file, or - for standard input.
func jsonTextAsFile(flag, name string, err error) error {
	t := strings.TrimSpace(name)
	if t == "" || !strings.ContainsRune("{[\"", rune(t[0])) {
		return err
	}
	if _, serr := os.Stat(name); !errors.Is(serr, fs.ErrNotExist) {
		return err
	}
	return verb.Usage("%s takes a FILE of JSON (or - for standard input), not JSON text: %s names no file (hint: echo %s | pilotage … %s -)",
		flag, report.Quote(name), report.Clip(shellQuote(name)), flag)
}

// shellQuote quotes s for a POSIX shell, in single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// requestError prints a request error (§8) and exits 2: the request, not
// the program, was wrong. JSON output is the tool's error envelope,
// written where -o says, as a response would be. Text names the program
// file of an error about the program (engine.ProgramError), at the line
// and column where it is known, as findings are.
func requestError(s verb.Streams, p Params, pf *progFiles, err error) error {
	var re *pilotage.RequestError
	if !errors.As(err, &re) {
		return verb.Usage("%v", err)
	}
	if p.Format == report.JSON {
		if err := verb.WriteOutput(s, p.Output, "the output", func(w io.Writer) error {
			return report.WriteJSON(w, pilotage.RequestErrorEnvelope{Error: *re})
		}); err != nil {
			return err
		}
		return &verb.ExitError{Code: verb.ExitUsage}
	}
	var pe *engine.ProgramError
	if !errors.As(err, &pe) {
		return verb.Usage("request error %s: %s", re.Kind, re.Message)
	}
	at := pf.files.Program
	if pe.Path != nil {
		f := progdiag.Findings([]pilotage.Diagnostic{{Path: *pe.Path}}, pf.files.Docs)[0]
		at = fmt.Sprintf("%s:%d:%d", at, f.Line, f.Column)
	}
	return verb.Usage("%s: request error %s: %s", at, re.Kind, re.Message)
}

// diagnosticCounts says how many errors and warnings ds holds, as a
// report's summary line does.
func diagnosticCounts(ds []pilotage.Diagnostic) func() string {
	return func() string {
		var n report.Summary
		for _, d := range ds {
			switch d.Severity {
			case pilotage.SeverityError:
				n.Errors++
			case pilotage.SeverityWarning:
				n.Warnings++
			default:
				n.Infos++
			}
		}
		return report.Counts(n)
	}
}

// capDiagnostics lists at most max diagnostics of each code, the first
// in the engine's order, in the order of the text (progtext.InTextOrder)
// as the text report does (report.Cap), then one per code that had
// some left out, saying how many, at the first of those left out (so in
// the Language's path dialect). A program with a diagnostic per step
// would otherwise print a response far larger than itself.
func capDiagnostics(diags []pilotage.Diagnostic, max int, files *progtext.Files) []pilotage.Diagnostic {
	c := report.NewCap(max)
	var listed []pilotage.Diagnostic
	first := map[string]pilotage.Path{}
	for _, d := range diags {
		if c.Admit(report.Finding{Rule: d.Code, Severity: report.Severity(d.Severity)}) {
			listed = append(listed, d)
		} else if _, ok := first[d.Code]; !ok {
			first[d.Code] = d.Path
		}
	}
	if len(first) == 0 {
		// None left out: diags itself, which keeps its [] when empty.
		progtext.InTextOrder(diags, files)
		return diags
	}
	progtext.InTextOrder(listed, files)
	for _, f := range c.Left() {
		listed = append(listed, pilotage.Diagnostic{Code: f.Rule, Severity: string(f.Severity), Message: f.Message, Path: first[f.Rule], Hint: f.Hint})
	}
	return listed
}
