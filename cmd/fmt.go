package cmd

import (
	"context"

	"github.com/pilotage-dev/pilotage/cmd/fmtverb"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

func runFmt(s stdio, p *fmtParams, args []string) error {
	color, err := errorColor(s, p.color)
	if err != nil {
		return err
	}
	cfg, _, err := loadConfig(p.flags)
	if err != nil {
		return err
	}
	return fmtverb.Fmt(context.Background(), fmtverb.Params{
		Files:    args,
		Write:    p.write,
		Diff:     p.diff,
		List:     p.list,
		Verbose:  p.verbose,
		Color:    color,
		Lang:     p.lang,
		Language: p.language,
		Ignored:  cfg.Ignored,
	}, s.verb())
}
