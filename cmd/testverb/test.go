// Package testverb is pilotage test as a function: the case files under
// the paths given, run against their Languages, reported as findings at
// the lines of what failed, optionally rewritten and measured for coverage.
package testverb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/workbench/langtest"
)

// Params are pilotage test's arguments and flags.
type Params struct {
	// Paths are case files, or directories searched for tests/*.yaml.
	Paths []string
	// Run selects the cases whose name matches; nil runs them all.
	Run *regexp.Regexp
	// Update rewrites failed expectations; Coverage adds the coverage.
	Update, Coverage bool
	Format           report.Format
	Output           string // -o; "" is standard output
	Color            bool
	Verbose          bool
	// Ignored says which walked paths pilotage.yaml ignores; nil for none.
	Ignored func(path string) bool
}

// Test runs the cases and writes the report; the error carries the exit
// code (verb.Findings when a case failed).
func Test(_ context.Context, p Params, s verb.Streams) error {
	if err := verb.NoStdin("test", p.Paths, "case files (*.yaml) or directories holding tests/*.yaml"); err != nil {
		return err
	}
	names, err := verb.Expand(s, p.Paths, inputs.Test, p.Ignored, p.Verbose)
	if err != nil {
		return err
	}
	rep := &report.Report{Tool: "pilotage test", Files: names, Sources: map[string][]byte{}}
	var files []*testcase.File
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return verb.Usage("%v", verb.ReadErr(err))
		}
		rep.Sources[name] = src
		// --update rewrites the files, which takes their YAML trees; a
		// run reads them a case at a time where it can, holding none.
		read := testcase.Read
		if p.Update {
			read = testcase.Parse
		}
		f, err := read(name, src)
		var pe *testcase.Error
		switch {
		case errors.As(err, &pe):
			rep.Add(report.Finding{Rule: "test-parse", Section: "docs/test.md", Severity: report.Error, Message: pe.Msg, Hint: pe.Hint, File: pe.File, Line: pe.Line, Column: pe.Col})
		case err != nil:
			return verb.Usage("%v", err)
		default:
			files = append(files, f)
		}
	}
	outcomes := langtest.Run(langtest.Params{Files: files, Run: p.Run, KeepAnswers: p.Update || p.Coverage})
	failed := 0
	for _, o := range outcomes {
		if !p.Update {
			rep.Add(o.Unmet...)
		}
		if len(o.Findings) > 0 || !p.Update && len(o.Unmet) > 0 {
			failed++
		}
		rep.Add(o.Findings...)
	}
	if p.Update {
		if err := updateFiles(s, outcomes); err != nil {
			return err
		}
	}
	rep.Sort()
	var cov []*testcase.Coverage
	if p.Coverage {
		cov = coverage(outcomes)
	}
	err = verb.WriteOutput(s, p.Output, "the report", func(w io.Writer) error {
		if p.Format == report.JSON && p.Coverage {
			return writeCoverageJSON(w, rep, cov)
		}
		if p.Format != report.Text {
			return report.Write(w, p.Format, rep, report.Options{Color: p.Color})
		}
		// In text, findings come with their count; a corpus that passes
		// says so in one line, the cases', not with an empty count first.
		if len(rep.Findings) > 0 {
			if err := report.Write(w, p.Format, rep, report.Options{Color: p.Color}); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "%s, %d passed, %d failed\n", report.Count(len(outcomes), "case"), len(outcomes)-failed, failed); err != nil {
			return err
		}
		return testcase.WriteText(w, cov)
	})
	if err != nil {
		return err
	}
	for _, f := range rep.Findings {
		if f.Rule == langtest.RulePDL {
			return &verb.ExitError{Code: verb.ExitUsage}
		}
	}
	if rep.Failed(false) {
		return verb.Findings
	}
	return nil
}

// updateFiles rewrites the expectations of every case that ran and
// writes back the files that hold one.
func updateFiles(s verb.Streams, outcomes []langtest.Outcome) error {
	changed := map[*testcase.File]bool{}
	var order []*testcase.File
	for _, o := range outcomes {
		if o.Got == nil || len(o.Failures) == 0 && len(o.Case.Expect.Lines) > 0 {
			continue
		}
		if err := testcase.Update(o.Case, o.Got, o.Failures); err != nil {
			return verb.Usage("--update %s: %v", o.File.Name, err)
		}
		if !changed[o.File] {
			changed[o.File] = true
			order = append(order, o.File)
		}
	}
	for _, f := range order {
		b, err := f.Marshal()
		if err != nil {
			return verb.Usage("--update %s: %v", f.Name, err)
		}
		if err := os.WriteFile(f.Name, b, 0o644); err != nil {
			return verb.Usage("--update: %v", err)
		}
		fmt.Fprintf(s.Err, "updated %s\n", f.Name)
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
