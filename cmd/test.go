package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/workbench/langtest"
)

type testParams struct {
	rf       reportFlags
	run      string
	update   bool
	coverage bool
	verbose  bool
}

func newTestCmd() *cobra.Command {
	p := &testParams{}
	c := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run a Language's test corpus: programs, stubs, and what validate, plan and run must answer",
		Long: `Run the test cases of tests/*.yaml files (docs/test.md). PATH is a case
file or a directory searched for tests/ directories, at any depth; the
default is the current directory. Each case names a program, a principal,
input, context and stubs for catalog entries, optionally a catalog change
between plan and execute, and states what it expects: validate's
diagnostics, the plan's steps and risks, the Run's status, output, trace
and narration. Every trace is also replayed against its plan (pilotage
replay's checks), so a passing case is a trace replay accepts.

A case file that does not parse, a stub of an unknown entry or of one the
program never calls, and an expected code, risk or status outside the
Language's closed sets are findings at their line, never a pass.

--update rewrites the expectations each case states to what the engine
answers now, keeping comments and order (a case stating none gets its
status and output, or its diagnostics). --run REGEX runs the cases whose
name matches. --coverage adds what the corpus exercises and never reaches:
catalog entries, constructs, diagnostic codes, risk levels, step statuses
and principals.

Exit status: 0 every case passed, 1 a failed case or a bad case file,
2 usage errors, an unreadable file or a PDL with errors.`,
		Example: `  pilotage test todo
  pilotage test langs/ --run 'drift'
  pilotage test --update todo/tests/shopping.yaml
  pilotage test --format github langs/`,
		RunE: func(c *cobra.Command, args []string) error { return runTest(streams(c), p, args) },
	}
	f := c.Flags()
	p.rf.formats = []report.Format{report.Text, report.JSON, report.JUnit, report.GitHub}
	p.rf.flags = f
	f.StringVarP(&p.rf.format, "format", "f", "text", "output format: text, json, junit or github")
	f.StringVarP(&p.rf.output, "output", "o", "", "write the report to `FILE` instead of standard output")
	f.StringVar(&p.rf.color, "color", "auto", "colour text output: auto, always or never (NO_COLOR disables auto)")
	f.StringVar(&p.run, "run", "", "run only the cases whose name matches `REGEX`")
	f.BoolVar(&p.update, "update", false, "rewrite each case's expectations to what the engine answers now")
	f.BoolVar(&p.coverage, "coverage", false, "report what the corpus exercises and never reaches")
	f.BoolVarP(&p.verbose, "verbose", "v", false, "say which files a directory walk leaves out, and why")
	return c
}

func runTest(s stdio, p *testParams, args []string) error {
	format, err := p.rf.validate()
	if err != nil {
		return err
	}
	var sel *regexp.Regexp
	if p.run != "" {
		if sel, err = regexp.Compile(p.run); err != nil {
			return usageErr("--run: %v", err)
		}
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	cfg, _, err := loadConfig(p.rf.flags)
	if err != nil {
		return err
	}
	names, err := expandArgs(s, args, inputs.Test, cfg, p.verbose)
	if err != nil {
		return err
	}
	rep := &report.Report{Tool: "pilotage test", Files: names, Sources: map[string][]byte{}}
	var files []*testcase.File
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return usageErr("%v", readErr(err))
		}
		rep.Sources[name] = src
		f, err := testcase.Parse(name, src)
		var pe *testcase.Error
		switch {
		case errors.As(err, &pe):
			rep.Add(report.Finding{Rule: "test-parse", Section: "docs/test.md", Severity: report.Error, Message: pe.Msg, Hint: pe.Hint, File: pe.File, Line: pe.Line, Column: pe.Col})
		case err != nil:
			return usageErr("%v", err)
		default:
			files = append(files, f)
		}
	}
	outcomes := langtest.Run(langtest.Params{Files: files, Run: sel})
	failed := 0
	for _, o := range outcomes {
		if !p.update {
			rep.Add(o.Unmet...)
		}
		if len(o.Findings) > 0 || !p.update && len(o.Unmet) > 0 {
			failed++
		}
		rep.Add(o.Findings...)
	}
	if p.update {
		if err := updateFiles(s, outcomes); err != nil {
			return err
		}
	}
	rep.Sort()
	var cov []*testcase.Coverage
	if p.coverage {
		cov = coverage(outcomes)
	}
	err = writeOutput(s, p.rf.output, "the report", func(w io.Writer) error {
		if format == report.JSON && p.coverage {
			return writeCoverageJSON(w, rep, cov)
		}
		if err := report.Write(w, format, rep, report.Options{Color: p.rf.useColor(w)}); err != nil || format != report.Text {
			return err
		}
		if _, err := fmt.Fprintf(w, "%d cases, %d passed, %d failed\n", len(outcomes), len(outcomes)-failed, failed); err != nil {
			return err
		}
		return testcase.WriteText(w, cov)
	})
	if err != nil {
		return err
	}
	if rep.Failed(false) {
		return findingsExit
	}
	return nil
}

// updateFiles rewrites the expectations of every case that ran and
// writes back the files that hold one.
func updateFiles(s stdio, outcomes []langtest.Outcome) error {
	changed := map[*testcase.File]bool{}
	var order []*testcase.File
	for _, o := range outcomes {
		if o.Got == nil || len(o.Failures) == 0 && len(o.Case.Expect.Lines) > 0 {
			continue
		}
		if err := testcase.Update(o.Case, o.Got, o.Failures); err != nil {
			return usageErr("--update %s: %v", o.File.Name, err)
		}
		if !changed[o.File] {
			changed[o.File] = true
			order = append(order, o.File)
		}
	}
	for _, f := range order {
		b, err := f.Marshal()
		if err != nil {
			return usageErr("--update %s: %v", f.Name, err)
		}
		if err := os.WriteFile(f.Name, b, 0o644); err != nil {
			return usageErr("--update: %v", err)
		}
		fmt.Fprintf(s.err, "updated %s\n", f.Name)
	}
	return nil
}

// coverage counts, per Language the cases ran against, what they
// exercised.
func coverage(outcomes []langtest.Outcome) []*testcase.Coverage {
	byLang := map[*language.Language]*testcase.Coverage{}
	var out []*testcase.Coverage
	for _, o := range outcomes {
		if o.Lang == nil {
			continue
		}
		cv := byLang[o.Lang]
		if cv == nil {
			cv = testcase.NewCoverage(o.Server, o.Lang, o.File.PDL)
			byLang[o.Lang] = cv
			out = append(out, cv)
		}
		cv.Add(o.Case, o.Got)
	}
	return out
}

// writeCoverageJSON writes the json report and the coverage as one
// object: {"report": …, "coverage": [{language, pdl, dimensions}]}.
func writeCoverageJSON(w io.Writer, rep *report.Report, cov []*testcase.Coverage) error {
	var b bytes.Buffer
	if err := report.Write(&b, report.JSON, rep, report.Options{}); err != nil {
		return err
	}
	type langCov struct {
		Language   string               `json:"language"`
		PDL        string               `json:"pdl"`
		Dimensions []testcase.Dimension `json:"dimensions"`
	}
	out := struct {
		Report   json.RawMessage `json:"report"`
		Coverage []langCov       `json:"coverage"`
	}{Report: b.Bytes(), Coverage: []langCov{}}
	for _, cv := range cov {
		out.Coverage = append(out.Coverage, langCov{cv.Language, cv.PDL, cv.Dimensions()})
	}
	return writeJSON(w, out)
}
