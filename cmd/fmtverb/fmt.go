// Package fmtverb is pilotage fmt as a function: PDL files, or the
// programs of a Language with syntax text, printed in their canonical
// layout, listed, diffed or rewritten.
package fmtverb

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
	"github.com/rogpeppe/go-internal/diff"
)

// Params are pilotage fmt's arguments and flags.
type Params struct {
	// Files are the FILE arguments: files, directories, globs (PDL only),
	// or - for standard input.
	Files []string
	// Write rewrites the files in place; Diff prints a unified diff; List
	// names the files whose formatting differs. None of them prints the
	// formatted text.
	Write, Diff, List bool
	// Verbose names on standard error each file a walk skipped.
	Verbose bool
	// Color colours the errors.
	Color bool
	// Lang is the PDL file whose Language's programs the files are, and
	// Language its ID when it defines several; "" formats PDL.
	Lang, Language string
	// Ignored says which walked paths pilotage.yaml ignores; nil for none.
	Ignored func(path string) bool
}

// formatter returns how each file is formatted, as PDL or with --lang
// as a program of a Language with syntax text, and how much of a file is
// read.
func formatter(s verb.Streams, p Params) (func(name string, src []byte) ([]byte, []report.Finding, error), inputs.Bound, error) {
	if p.Lang == "" {
		return func(name string, src []byte) ([]byte, []report.Finding, error) {
			out, findings := pdl.FormatSource(name, src)
			return out, findings, nil
		}, compile.FileBound, nil
	}
	res, err := verb.LoadPDL(s.Err, p.Lang, "--lang", p.Color, report.DefaultMaxPerRule)
	if err != nil {
		return nil, inputs.Bound{}, err
	}
	lang, err := res.Server.Pick(p.Language)
	if err != nil {
		return nil, inputs.Bound{}, verb.Usage("%v", err)
	}
	fm, ok := syntax.For(lang).(syntax.Formatter)
	if !ok {
		return nil, inputs.Bound{}, verb.Usage("Language %s writes its programs as JSON; fmt --lang formats the programs of a Language with syntax text (docs/pdl.md)", lang.ID)
	}
	limits := lang.Limits.WithDefaults()
	return func(name string, src []byte) ([]byte, []report.Finding, error) {
		out, diags, err := fm.Format(src, limits.Depth)
		if le, ok := errors.AsType[*program.LimitError](err); ok && le.At.Line > 0 {
			// Placed as validate places it.
			return nil, nil, verb.Usage("%s:%d:%d: %v", name, le.At.Line, le.At.Column, err)
		}
		if err != nil {
			return nil, nil, verb.Usage("%s: %v", name, err)
		}
		return out, progdiag.Findings(diags, progdiag.Files{Program: progdiag.NewDoc(name, src, true)}), nil
	}, verb.ProgramBound(lang.Limits, "program"), nil
}

// Fmt formats the files p names, as PDL or with p.Lang as programs of
// a Language with syntax text, and prints, lists, diffs or rewrites them.
// Its error carries the exit code (verb.Code): 1 when -l or -d found a
// file to format, 2 for syntax errors and unreadable files.
func Fmt(_ context.Context, p Params, s verb.Streams) error {
	args := p.Files
	var err error
	// Program files (--lang) have no one ending to walk for; they are
	// named one by one.
	if p.Lang == "" {
		if args, err = verb.Expand(s, args, inputs.PDL, p.Ignored, p.Verbose); err != nil {
			return err
		}
	}
	if p.Write && slices.Contains(args, "-") {
		return verb.Usage("-w cannot rewrite standard input")
	}
	if err := verb.OneStdin(args...); err != nil {
		return err
	}
	format, bound, err := formatter(s, p)
	if err != nil {
		return err
	}
	rep := &report.Report{Tool: "pilotage fmt", Sources: map[string][]byte{}}
	differs := false
	// Files are rewritten only once every file has been read and
	// formatted, so that one syntax error or unreadable file leaves all of
	// them as they were, as the help promises.
	var rewrite []string
	var formatted [][]byte
	for _, name := range args {
		src, err := verb.ReadInput(s, name, bound)
		if err != nil {
			return err
		}
		out, findings, err := format(name, src)
		if err != nil {
			return err
		}
		if len(findings) > 0 {
			rep.Sources[name] = src
			rep.Add(findings...)
			continue
		}
		changed := !bytes.Equal(src, out)
		differs = differs || changed
		if p.List && changed {
			if err := verb.Printf(s, "%s\n", name); err != nil {
				return err
			}
		}
		if p.Diff && changed {
			// The diff is shown, not data: its source lines have their
			// controls escaped as lint's text report escapes them, so a
			// string or comment of the file cannot drive the terminal.
			// Without -d the formatted file is written as it is.
			shown := report.Visible(string(diff.Diff(name, src, name+" (formatted)", out)))
			if err := verb.Printf(s, "%s", shown); err != nil {
				return err
			}
		}
		if p.Write && changed {
			rewrite = append(rewrite, name)
			formatted = append(formatted, out)
		}
		if !p.List && !p.Diff && !p.Write {
			if err := verb.Printf(s, "%s", out); err != nil {
				return err
			}
		}
	}
	if len(rep.Findings) > 0 {
		// The summary names the files read, as build's and lint's do.
		rep.Summary.Files = len(args)
		rep.Sort()
		if err := report.Write(s.Err, report.Text, rep, report.Options{Color: p.Color}); err != nil {
			return verb.Usage("writing errors: %v", err)
		}
		return &verb.ExitError{Code: verb.ExitUsage}
	}
	for i, name := range rewrite {
		if err := os.WriteFile(name, formatted[i], 0o644); err != nil {
			return verb.Usage("%v", fserr.Plain(err))
		}
	}
	if differs && (p.Diff || p.List) {
		return verb.Findings
	}
	return nil
}
