package cmd

import (
	"context"
	"slices"

	"github.com/pilotage-dev/pilotage/cmd/lintverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
	"github.com/spf13/cobra"
)

type lintParams struct {
	out       reportFlags
	disable   []string
	listRules bool
	progress  string
	baseline  string
	verbose   bool
	// maxPerRule bounds the findings listed per rule and file.
	maxPerRule int
}

func newLintCmd() *cobra.Command {
	p := &lintParams{}
	c := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check manifests, snapshots and PDL files against every rule of Pilotage 1.1 Part II",
		Long: `Check Pilotage manifests (§5.1) and snapshot files (a manifest plus its guides
and catalogs, see docs/snapshot.md) against every requirement of Part II that
a published artifact can show: capability rules (§4.2, §4.3), guides and the
closed-sets guide (§5.2), risk (§5.3), catalogs (§5.4), retention (§6.6) and
versioning (§11.1).

A directory stands for the manifests, snapshots and PDL files under it, at
any depth in name order; traces, plans and programs there are skipped
(replay and validate read them), as are hidden directories and what
pilotage.yaml's ignore patterns match. A quoted glob ('langs/**/*.pdl',
** for any number of directories) is expanded the same way. --verbose names
each file skipped and why; a directory or glob with nothing to lint is exit 2.
A file named twice, or also found by a directory or glob, is read once, and
a finding in a file several inputs read (a guide) is listed once.

A FILE.pdl is compiled as build would compile it: its PDL errors are
reported, then what it builds is linted, with every finding placed in the
PDL source (docs/pdl.md).

Each finding names its rule and spec section and points at file:line:col and
the JSON Pointer of the value. A schema finding names first the section
whose field table defines the member, then the others that apply (json:
"sections"; docs/rules/README.md). Use - to read standard input, JSON or PDL
(told apart by content). The kind of JSON document is detected from its
content too.

With --baseline OLD, each input is also compared with OLD, an earlier
capture of the same Server (the snapshot or manifest of the last release, or
the PDL file it was built from), by the rules of category evolution: a guide
whose body changed keeps its version (§11.2), catalog_version does not
follow the catalog's entries (§5.4), a Language id's closed sets changed
(§1.5). Their findings point at the input and name the place in OLD as a
related location.

At most --max-per-rule findings of one rule are listed per file (50 by
default, as build and replay list); the rest are counted in one more
finding of that rule at the gravest severity among them ("N more RULE
findings in this file are not listed"), in every format, so a file wrong
in every line gives a report of bounded size that still fails.

When the inputs come to 16 MB or more (or to an unknown size), a line on
standard error shows what is read and checked, when standard error is a
terminal (--progress auto); it is erased at the end.

Exit status: 0 no errors, 1 error findings (or warnings with --strict),
2 usage errors or unreadable files.`,
		Example: `  pilotage lint manifest.json
  pilotage lint langs/homeflow/homeflow.pdl
  pilotage lint out/ 'langs/**/*.pdl'
  pilotage lint --format sarif -o lint.sarif snapshot.json
  cat manifest.json | pilotage lint -
  pilotage lint --disable core-guide-size snapshot.json
  pilotage lint --baseline old/snapshot.json out/snapshot.json
  pilotage lint --list-rules --format json`,
		RunE: func(c *cobra.Command, args []string) error { return runLint(streams(c), p, args) },
	}
	p.out.register(c, findingFormats)
	c.Flags().StringSliceVar(&p.disable, "disable", nil, "turn off a rule by `ID` (repeatable, or comma-separated)")
	c.Flags().BoolVar(&p.listRules, "list-rules", false, "list the rules and exit")
	c.Flags().StringVar(&p.baseline, "baseline", "", "compare every input with the earlier capture `OLD` (a snapshot, manifest or .pdl file)")
	maxPerRuleFlag(c, &p.maxPerRule)
	progressFlag(c, &p.progress)
	verboseFlag(c, &p.verbose)
	return c
}

func runLint(s stdio, p *lintParams, args []string) error {
	format, mode, err := p.out.validateWithProgress(p.progress)
	if err != nil {
		return err
	}
	if d := p.out.cfg.Defaults.Baseline; d.Value != "" && !p.out.flags.Changed("baseline") {
		p.baseline = p.out.cfg.Path(d.Value)
	}
	if p.listRules {
		return verb.ListRules(s.verb(), args, p.out.output, format, pdllint.Rules(rules.All()))
	}
	p.out.disabled = p.disable
	defer limitMemory(slices.Concat(args, []string{p.baseline})).restore()
	return lintverb.Lint(context.Background(), lintverb.Params{
		Files:      args,
		Disable:    p.disable,
		Baseline:   p.baseline,
		MaxPerRule: p.maxPerRule,
		Verbose:    p.verbose,
		Progress:   mode,
		Output:     p.out.output,
		Ignored:    p.out.cfg.Ignored,
		Report:     p.out.reporter(format),
	}, s.verb())
}

// maxPerRuleFlag registers --max-per-rule, for every verb that reports
// findings (lint, build, replay).
func maxPerRuleFlag(c *cobra.Command, n *int) {
	c.Flags().IntVar(n, "max-per-rule", report.DefaultMaxPerRule, "list at most `N` findings per rule and file; the rest are counted")
}
