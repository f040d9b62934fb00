package cmd

import (
	"bytes"
	"os"
	"slices"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

type fmtParams struct {
	write, diff, list, verbose bool
	color                      string
	lang, language             string
	// flags are the verb's, for --config.
	flags *pflag.FlagSet
}

func newFmtCmd() *cobra.Command {
	p := &fmtParams{}
	c := &cobra.Command{
		Use:   "fmt [-w|-d|-l] [--lang FILE.pdl] FILE...",
		Short: "Print PDL files, or text programs, in the canonical layout",
		Long: `Format PDL files: one statement per line, two spaces per block, one space
between arguments, comments and single blank lines kept, text blocks
re-indented. Formatting changes layout only, never meaning, and formatting
formatted text changes nothing. Use - to read standard input. A directory
stands for the *.pdl files under it, at any depth in name order (hidden
directories and pilotage.yaml's ignore patterns left out), a quoted glob
('langs/**/*.pdl') for the files it matches.

Without flags the formatted text goes to standard output. -w rewrites the
files that change, -d prints a unified diff, -l lists the files whose
layout differs; they combine, as gofmt's do (-l -w lists and rewrites).

With --lang the files are programs of that PDL's Language, which must
declare syntax text: one statement per line, two spaces per block, the
label's and arguments' punctuation spaced one way, "} else {" on one line,
expressions as written, comments and single blank lines kept
(docs/pdl.md, "Text programs"). Program files are named one by one:
directories and globs stand for PDL files only.

Exit status: 0 done (or already formatted), 1 with -d or -l when some file
is not formatted (so CI can check layout), 2 syntax errors or unreadable
files (printed with their source line; nothing is rewritten).`,
		Example: `  pilotage fmt langs/homeflow/homeflow.pdl
  pilotage fmt -w langs/*/*.pdl
  pilotage fmt -l langs/
  pilotage fmt -d lang.pdl
  pilotage fmt --lang langs/ledger/ledger.pdl -w langs/ledger/programs/pay.txt`,
		Args: needArgs(1, -1, "one or more FILE.pdl (or - for standard input)"),
		RunE: func(c *cobra.Command, args []string) error { return runFmt(streams(c), p, args) },
	}
	c.Flags().BoolVarP(&p.write, "write", "w", false, "rewrite files in place")
	c.Flags().BoolVarP(&p.diff, "diff", "d", false, "print a unified diff instead of the formatted text")
	c.Flags().BoolVarP(&p.list, "list", "l", false, "list files whose formatting differs")
	c.Flags().StringVar(&p.lang, "lang", "", "format the files as programs of the Language this PDL `FILE` defines (syntax text)")
	c.Flags().StringVar(&p.language, "language", "", "the Language `ID` to use when the PDL defines several")
	registerErrorColor(c, &p.color)
	verboseFlag(c, &p.verbose)
	p.flags = c.Flags()
	return c
}

// formatter returns how each file is formatted: as PDL, or with --lang
// as a program of a Language with syntax text.
func (p *fmtParams) formatter(s stdio, color bool) (func(name string, src []byte) ([]byte, []report.Finding, error), error) {
	if p.lang == "" {
		return func(name string, src []byte) ([]byte, []report.Finding, error) {
			out, findings := pdl.FormatSource(name, src)
			return out, findings, nil
		}, nil
	}
	res, err := loadPDL(s.err, p.lang, color, report.DefaultMaxPerRule)
	if err != nil {
		return nil, err
	}
	lang, err := res.Server.Pick(p.language)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	fm, ok := syntax.For(lang).(syntax.Formatter)
	if !ok {
		return nil, usageErr("Language %s writes its programs as JSON; fmt --lang formats the programs of a Language with syntax text (docs/pdl.md)", lang.ID)
	}
	limits := lang.Limits.WithDefaults()
	return func(name string, src []byte) ([]byte, []report.Finding, error) {
		if len(src) > limits.ProgramBytes {
			return nil, nil, usageErr("%s is %d bytes; Language %s reads programs of at most %d bytes", name, len(src), lang.ID, limits.ProgramBytes)
		}
		out, diags, err := fm.Format(src, limits.Depth)
		if err != nil {
			return nil, nil, usageErr("%s: %v", name, err)
		}
		return out, progdiag.Findings(diags, progdiag.Files{Program: progdiag.NewDoc(name, src, true)}), nil
	}, nil
}

func runFmt(s stdio, p *fmtParams, args []string) error {
	color, err := errorColor(s, p.color)
	if err != nil {
		return err
	}
	cfg, _, err := loadConfig(p.flags)
	if err != nil {
		return err
	}
	// Program files (--lang) have no one ending to walk for; they are
	// named one by one.
	if p.lang == "" {
		if args, err = expandArgs(s, args, inputs.PDL, cfg, p.verbose); err != nil {
			return err
		}
	}
	if p.write && slices.Contains(args, "-") {
		return usageErr("-w cannot rewrite standard input")
	}
	if err := verb.OneStdin(args...); err != nil {
		return err
	}
	format, err := p.formatter(s, color)
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
		src, err := readInput(s, name)
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
		if p.list && changed {
			if err := printf(s, "%s\n", name); err != nil {
				return err
			}
		}
		if p.diff && changed {
			// The diff is shown, not data: its source lines have their
			// controls escaped as lint's text report escapes them, so a
			// string or comment of the file cannot drive the terminal.
			// Without -d the formatted file is written as it is.
			shown := report.Visible(string(diff.Diff(name, src, name+" (formatted)", out)))
			if err := printf(s, "%s", shown); err != nil {
				return err
			}
		}
		if p.write && changed {
			rewrite = append(rewrite, name)
			formatted = append(formatted, out)
		}
		if !p.list && !p.diff && !p.write {
			if err := printf(s, "%s", out); err != nil {
				return err
			}
		}
	}
	if len(rep.Findings) > 0 {
		// The summary names the files read, as build's and lint's do.
		rep.Summary.Files = len(args)
		rep.Sort()
		if err := report.Write(s.err, report.Text, rep, report.Options{Color: color}); err != nil {
			return usageErr("writing errors: %v", err)
		}
		return &exitError{Code: ExitUsage}
	}
	for i, name := range rewrite {
		if err := os.WriteFile(name, formatted[i], 0o644); err != nil {
			return usageErr("%v", fserr.Plain(err))
		}
	}
	if differs && (p.diff || p.list) {
		return findingsExit
	}
	return nil
}
