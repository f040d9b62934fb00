package cmd

import (
	"context"
	"slices"

	"github.com/pilotage-dev/pilotage/cmd/buildverb"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type buildParams struct {
	dir        string
	color      string
	maxPerRule int
	verbose    bool
	// report holds --format (build's -o is its DIR).
	report reportFlags
	// flags are the verb's, for --config.
	flags *pflag.FlagSet
}

func newBuildCmd() *cobra.Command {
	p := &buildParams{}
	c := &cobra.Command{
		Use:   "build FILE.pdl...",
		Short: "Compile a PDL definition into a manifest, a snapshot and guide files",
		Long: `Compile a PDL file (docs/pdl.md) and write what its Server publishes:

  DIR/manifest.json               the manifest (§5.1)
  DIR/snapshot.json               manifest, guides with bodies, catalogs (docs/snapshot.md)
  DIR/guides/<prefix>/<guide>.md  every guide, the generated closed-sets guide included;
                                  <prefix> is the Language's tool prefix (homeflow/v1: homeflow_v1)

Output is byte-identical for the same input. Building over an earlier
build replaces its files, and a *.md file left in a DIR/guides/<prefix>/
directory this build writes (a guide since removed or renamed in the PDL)
is removed, each named on standard error ("removed stale …"), so a server
or lint never reads a guide the definition no longer has. Nothing else is
deleted: a DIR/guides/ directory of no Language of this build (one renamed
or removed) is named on standard error and left for you to delete. The
definition's own files (the PDL and every file it names) are never
replaced or removed: a build that would write over one is refused before
anything is written. Every file is written beside its name first and
moved in place once all are written, so a build that cannot write one (a
full disk, a read-only guides directory) leaves the earlier build whole;
Ctrl-C before then removes what was written beside them.

Several PDL files (or a directory, walked for its *.pdl files at any depth,
or a quoted glob such as 'langs/**/*.pdl') build each into DIR/<name>/, name
being the file's without .pdl; two files of one name are refused. Every
file is checked before any is written.

File names inside the PDL are
relative to its directory. When a PDL has errors, build writes nothing,
prints every error of every file named, with its source line (at most
--max-per-rule of one rule, 50 by default; the rest are counted in one
more finding, as lint counts them), then lint's errors in the files that
compile, and exits 2.

A definition that compiles is then linted as pilotage lint FILE.pdl
lints it, under the same pilotage.yaml (rule severities, overrides,
suppress entries, the defaults: baseline it is compared with) and
# pilotage:ignore comments (docs/config.md). When
an error finding remains, the build does not conform to Part II: build
writes nothing, prints the errors with their source lines, and exits 1;
pilotage lint FILE.pdl shows every finding, warnings too, and a finding
meant to stay is suppressed with a reason. Warnings alone do not stop
the build: one line on standard error counts them.

--format json (or sarif, github, junit) writes to standard output one
report in that format, as pilotage lint FILE.pdl --format writes it: the
PDL errors, and every finding of lint, warnings too, in what each
definition that compiles would write, counted in its summary. What build
says besides ("wrote …", "removed stale …") goes to standard error;
the exit status is the same. The default, text, lists errors on
standard error and the files written on standard output.

Exit status: 0 written, 1 lint finds errors in what would be written
(nothing is), 2 errors in the PDL, usage errors or unwritable output.`,
		Example: `  pilotage build langs/homeflow/homeflow.pdl
  pilotage build -o dist langs/calc/calc.pdl
  pilotage build --format sarif -o dist langs/ > build.sarif
  pilotage build -o dist langs/`,
		Args: needArgs(1, -1, "one or more FILE.pdl, directories or globs"),
		RunE: func(c *cobra.Command, args []string) error { return runBuild(streams(c), p, args) },
	}
	c.Flags().StringVarP(&p.dir, "output", "o", "out", "write into `DIR`")
	p.report.registerFormat(c, findingFormats)
	registerErrorColor(c, &p.color)
	maxPerRuleFlag(c, &p.maxPerRule)
	verboseFlag(c, &p.verbose)
	p.flags = c.Flags()
	return c
}

func runBuild(s stdio, p *buildParams, args []string) error {
	p.report.color = p.color
	format, err := p.report.validate()
	if err != nil {
		return err
	}
	color := p.report.useColor(s.err)
	cfg, _, err := loadConfig(p.flags)
	if err != nil {
		return err
	}
	// Build judges what it writes as lint would, under the same
	// pilotage.yaml.
	conf := reportFlags{cfg: cfg}
	baseline := ""
	if d := cfg.Defaults.Baseline; d.Value != "" {
		baseline = cfg.Path(d.Value)
	}
	defer limitMemory(slices.Concat(args, []string{baseline})).restore()
	return buildverb.Build(context.Background(), buildverb.Params{
		Files:      args,
		Baseline:   baseline,
		Dir:        p.dir,
		Color:      color,
		MaxPerRule: p.maxPerRule,
		Verbose:    p.verbose,
		Ignored:    cfg.Ignored,
		Apply:      conf.applier(),
		Format:     format,
	}, s.verb())
}
