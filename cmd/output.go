package cmd

import (
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
	"github.com/pilotage-dev/pilotage/workbench/picture"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// reportFlags are the output flags every checking verb shares.
type reportFlags struct {
	format string
	output string
	strict bool
	color  string
	// formats limits --format for verbs that do not write every format.
	formats []report.Format
	// pictures are the formats the verb draws itself (plan's svg,
	// replay's html), named with formats when --format is wrong.
	pictures []string
	// noSuppressions and includeSuppressed are --no-suppressions and
	// --include-suppressed.
	noSuppressions, includeSuppressed bool
	// disabled are the verb's --disable, which reach the rules of
	// suppressions, checked as the report is emitted.
	disabled []string
	// cfg is the pilotage.yaml in effect, set by setup.
	cfg *config.Config
	// flags are the verb's flags, for telling a flag given from its
	// default.
	flags *pflag.FlagSet
}

// findingFormats are the formats of lint's report, which build writes
// too.
var findingFormats = []report.Format{report.Text, report.JSON, report.SARIF, report.GitHub, report.JUnit}

func (f *reportFlags) register(c *cobra.Command, formats []report.Format) {
	f.registerFormat(c, formats)
	c.Flags().StringVarP(&f.output, "output", "o", "", "write the report to `FILE` instead of standard output, which then names FILE")
	c.Flags().BoolVar(&f.strict, "strict", false, "exit 1 on warnings too, not only on errors")
	c.Flags().StringVar(&f.color, "color", "auto", "colour text output: auto, always or never (NO_COLOR disables auto)")
	c.Flags().BoolVar(&f.noSuppressions, "no-suppressions", false, "show every finding: ignore # pilotage:ignore comments and pilotage.yaml's suppress entries")
	c.Flags().BoolVar(&f.includeSuppressed, "include-suppressed", false, "keep suppressed findings in sarif output, marked (GitHub code scanning would show them as open alerts)")
}

// registerFormat adds -f, --format taking formats, for register and for
// build, whose -o is a directory and which has no --strict.
func (f *reportFlags) registerFormat(c *cobra.Command, formats []report.Format) {
	f.formats = formats
	f.flags = c.Flags()
	names := f.formatNames()
	c.Flags().StringVarP(&f.format, "format", "f", "text", "output format: "+strings.Join(names, ", "))
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

func (f *reportFlags) formatNames() []string {
	names := make([]string, len(f.formats))
	for i, x := range f.formats {
		names[i] = string(x)
	}
	return names
}

// unknownFormat is the usage error of a --format value that is none of
// names, the values the verb takes: one wording for every verb.
func unknownFormat(got string, names []string) error {
	return usageErr("unknown format %q%s; use one of: %s", report.Clip(got), didYouMean(got, names), strings.Join(names, ", "))
}

// validate checks the flag values before any work is done, so a typo
// fails fast with exit 2.
func (f *reportFlags) validate() (report.Format, error) {
	takes := append(f.formatNames(), f.pictures...)
	format, err := report.ParseFormat(f.format)
	if err != nil {
		return "", unknownFormat(f.format, takes)
	}
	if !slices.Contains(f.formats, format) {
		return "", usageErr("format %q is not available for this command; use one of: %s", report.Clip(f.format), strings.Join(takes, ", "))
	}
	switch f.color {
	case "auto", "always", "never":
	default:
		return "", usageErr("unknown --color %q; use auto, always or never", report.Clip(f.color))
	}
	return format, nil
}

// setup reads pilotage.yaml, takes from it the --format and --strict
// not given on the command line, and validates the flags.
func (f *reportFlags) setup() (report.Format, error) {
	cfg, _, err := loadConfig(f.flags)
	if err != nil {
		return "", err
	}
	f.cfg = cfg
	if d := cfg.Defaults.Format; d.Value != "" && !f.flags.Changed("format") {
		f.format = d.Value
	}
	if d := cfg.Defaults.Strict; d.From.File != "" && !f.flags.Changed("strict") {
		f.strict = d.Value
	}
	return f.validate()
}

// applier brings a report, or each input's, under pilotage.yaml
// (severities, suppressions).
func (f *reportFlags) applier() func(*report.Report) {
	if f.cfg == nil {
		return func(*report.Report) {}
	}
	off := map[string]bool{}
	for _, id := range f.disabled {
		off[id] = true
	}
	opt := config.Apply{Inline: pdl.Suppressions, NoSuppressions: f.noSuppressions, Known: ruleIDs(), Disabled: off}
	return func(rep *report.Report) { f.cfg.Apply(rep, opt) }
}

// emit brings the report under pilotage.yaml, writes it and returns the
// verb's result: nil when clean, findingsExit when it should fail.
func (f *reportFlags) emit(s verb.Streams, format report.Format, rep *report.Report) error {
	f.applier()(rep)
	return f.write(s, rep, func(w io.Writer) error {
		return report.Write(w, format, rep, f.options(w))
	})
}

// emitStream writes b's report as its inputs are checked, each input's
// report brought under pilotage.yaml on its own (its suppression
// comments and what they cover are in its files), and returns the verb's
// result as emit does.
func (f *reportFlags) emitStream(s verb.Streams, format report.Format, b verb.Batches) error {
	// produced is Produce's own error, which ends the verb as it is,
	// not as a failure to write the report.
	var produced error
	apply := f.applier()
	err := f.write(s, b.Head, func(w io.Writer) error {
		st := report.NewStream(w, format, b.Head, f.options(w))
		st.DropRepeats = b.DropRepeats
		var flushed error
		produced = b.Produce(func(r *report.Report, next string) error {
			apply(r)
			st.AddReport(r)
			if next != "" {
				flushed = st.Flush(next, 0)
			}
			return flushed
		})
		switch {
		case flushed != nil:
			produced = nil
			return flushed
		case produced != nil:
			return produced
		}
		return st.Close()
	})
	if produced != nil {
		return produced
	}
	return err
}

// write writes rep with write to -o or standard output, and returns the
// verb's result.
func (f *reportFlags) write(s verb.Streams, rep *report.Report, write func(io.Writer) error) error {
	if err := verb.WriteOutputNoted(s, f.output, "the report", func() string { return report.Counts(rep.Summary) }, write); err != nil {
		return err
	}
	if rep.Failed(f.strict) {
		return findingsExit
	}
	return nil
}

func (f *reportFlags) options(w io.Writer) report.Options {
	return report.Options{Color: f.useColor(w), Strict: f.strict, IncludeSuppressed: f.includeSuppressed}
}

// reporter is f as the verb functions take it, writing format.
func (f *reportFlags) reporter(format report.Format) verb.Reporter {
	return reporter{f, format}
}

type reporter struct {
	f      *reportFlags
	format report.Format
}

func (r reporter) Report(s verb.Streams, rep *report.Report) error { return r.f.emit(s, r.format, rep) }

func (r reporter) Stream(s verb.Streams, b verb.Batches) error {
	return r.f.emitStream(s, r.format, b)
}

// addPictureFormats lists picture.ReportFormats in --format's help, for
// verbs that draw their report.
func addPictureFormats(c *cobra.Command, f *reportFlags) {
	names := append(f.formatNames(), picture.ReportFormats...)
	c.Flags().Lookup("format").Usage = "output format: " + strings.Join(names, ", ") + " (html and markdown draw the report, docs/pictures.md)"
}

// writeOutput is verb.WriteOutput for cmd's stdio.
func writeOutput(s stdio, name, what string, write func(io.Writer) error) error {
	return verb.WriteOutput(s.verb(), name, what, write)
}

func (f *reportFlags) useColor(w io.Writer) bool {
	switch f.color {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && progress.IsTerminal(w)
}

// registerErrorColor adds --color to a verb whose only coloured output
// is its PDL errors on standard error (build, fmt).
func registerErrorColor(c *cobra.Command, color *string) {
	c.Flags().StringVar(color, "color", "auto", "colour error output: auto, always or never (NO_COLOR disables auto)")
}

// errorColor checks such a --color value and says whether the errors are
// coloured.
func errorColor(s stdio, color string) (bool, error) {
	f := reportFlags{color: color, formats: []report.Format{report.Text}, format: string(report.Text)}
	if _, err := f.validate(); err != nil {
		return false, err
	}
	return f.useColor(s.err), nil
}

// printf is verb.Printf for cmd's stdio.
func printf(s stdio, format string, args ...any) error {
	return verb.Printf(s.verb(), format, args...)
}

// didYouMean is " (did you mean X?)" for the value of names closest to
// got, as a misspelt flag gets, or "" when none is close.
func didYouMean(got string, names []string) string {
	if h := suggest.DidYouMean(got, names); h != "" {
		return " (" + h + ")"
	}
	return ""
}
