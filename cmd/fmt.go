package cmd

import (
	"cmp"
	"context"
	"os"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/config"

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
declare syntax text: one statement per line, two spaces per block (blocks
nested past 8 levels keep the eighth's margin), the label's and
arguments' punctuation spaced one way, "} else {" on one line,
expressions as written, comments and single blank lines kept
(docs/pdl.md, "Text programs"). Program files are named one by one:
directories and globs stand for PDL files only. Without --lang, a FILE
not named *.pdl takes its Language from pilotage.yaml's languages entry
that matches it (docs/config.md); with none, fmt stops and asks for --lang.

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
	if p.lang == "" {
		if p.lang, err = programLang(cfg, args); err != nil {
			return err
		}
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

// programLang returns the PDL file whose Language the files named are
// programs of, when they are not PDL files: pilotage.yaml's languages
// entry that maps them, as for validate, plan and run. Read as PDL, a
// program would only give a screen of syntax errors. It returns "" for
// PDL files, standard input, directories and globs (which stand for PDL
// files).
func programLang(cfg *config.Config, files []string) (string, error) {
	lang, pdlFile := "", ""
	for _, f := range files {
		if f == "-" || strings.HasSuffix(f, ".pdl") {
			pdlFile = cmp.Or(pdlFile, f)
			continue
		}
		if st, err := os.Stat(f); (err == nil && st.IsDir()) || (err != nil && strings.ContainsAny(f, "*?[")) {
			continue
		}
		l, ok := cfg.LanguageFor(f)
		if !ok || (lang != "" && l.Value != lang) {
			return "", usageErr("%s is not a PDL file; to format a program give --lang L.pdl (or map it in pilotage.yaml languages)", f)
		}
		if err := cfg.CheckLang(l); err != nil {
			return "", &exitError{Code: ExitUsage, Err: err}
		}
		lang = l.Value
	}
	if lang != "" && pdlFile != "" {
		return "", usageErr("%s is a PDL file; fmt formats PDL files or the programs of one Language, not both at once", pdlFile)
	}
	return lang, nil
}
