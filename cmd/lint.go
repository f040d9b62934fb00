package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
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
	p.out.register(c, []report.Format{report.Text, report.JSON, report.SARIF, report.GitHub, report.JUnit})
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
	all := rules.All()
	if p.listRules {
		if err := listRulesAlone(args); err != nil {
			return err
		}
		return printRules(s, p.out.output, format, pdllint.Rules(all))
	}
	if len(args) == 0 {
		return usageErr("lint needs at least one FILE (or - for standard input); see 'pilotage lint --help'")
	}
	if err := checkMaxPerRule(p.maxPerRule); err != nil {
		return err
	}
	if err := outputNotInput(p.out.output, append(slices.Clip(args), p.baseline)...); err != nil {
		return err
	}
	if args, err = expandArgs(s, args, inputs.Lint, p.out.cfg, p.verbose, p.baseline); err != nil {
		return err
	}
	if err := oneStdin(append(slices.Clip(args), p.baseline)...); err != nil {
		return err
	}
	cfg := lint.Config{Disabled: map[string]bool{}, MaxPerRule: p.maxPerRule}
	for _, id := range p.disable {
		cfg.Disabled[id] = true
	}
	if p.baseline != "" {
		if cfg.Baseline, err = readBaseline(s, p.baseline); err != nil {
			return err
		}
	}
	// Files are read whole, quickly; the line mostly shows that the
	// checking, which cannot be counted, goes on.
	m := progress.Start(s.err, mode, inputsSize(s, args), "lint", "")
	defer m.Stop()
	var inputs []*lint.Input
	var read int64
	for _, name := range args {
		src, err := readInput(s, name)
		if err != nil {
			return err
		}
		m.AddBytes(int64(len(src)))
		read += int64(len(src))
		inputs = append(inputs, &lint.Input{File: name, Src: src})
	}
	m.SetPhase(fmt.Sprintf("checking %s (%s)", countFiles(len(inputs)), progress.MB(read)))
	rep, err := pdllint.Run(all, inputs, cfg)
	m.Stop()
	if err != nil {
		return usageErr("%v", err)
	}
	return p.out.emit(s, format, rep)
}

// maxPerRuleFlag registers --max-per-rule, for every verb that reports
// findings (lint, build, replay).
func maxPerRuleFlag(c *cobra.Command, n *int) {
	c.Flags().IntVar(n, "max-per-rule", report.DefaultMaxPerRule, "list at most `N` findings per rule and file; the rest are counted")
}

func checkMaxPerRule(n int) error {
	if n < 1 {
		return usageErr("--max-per-rule must be at least 1")
	}
	return nil
}

// readBaseline reads the --baseline capture. A file named *.pdl is built the way
// lint builds a PDL input, so the evolution rules see the snapshot it
// describes with positions in the PDL; one that does not compile leaves
// nothing to compare with, a usage error like an unreadable file.
func readBaseline(s stdio, name string) (*lint.Input, error) {
	src, err := readInput(s, name)
	if err != nil {
		// Say which input it was: the files to check are read too.
		var ee *exitError
		if errors.As(err, &ee) && ee.err != nil {
			return nil, usageErr("baseline %v", ee.err)
		}
		return nil, err
	}
	if !pdllint.IsPDL(name) {
		return &lint.Input{File: name, Src: src}, nil
	}
	// Only the first error is shown, so one of each rule is all the
	// compiler needs to keep.
	in, res, err := pdllint.Input(name, src, compile.Options{Dir: filepath.Dir(name), Cap: report.NewCap(1)}, nil)
	if err != nil {
		return nil, usageErr("baseline %s: %v", name, err)
	}
	if in == nil {
		why := "it defines no Language"
		if i := slices.IndexFunc(res.Findings, func(f report.Finding) bool { return f.Severity == report.Error }); i >= 0 {
			f := res.Findings[i]
			why = fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Column, f.Message)
		}
		return nil, usageErr("baseline %s does not build, so there is nothing to compare with: %s", name, why)
	}
	return in, nil
}

// listRulesAlone refuses --list-rules next to inputs to check: it checks
// nothing, so a CI line that gained --list-rules exited 0 whatever its
// files held.
func listRulesAlone(args []string) error {
	if len(args) > 0 {
		return usageErr("--list-rules lists the rules and checks nothing, so it takes no inputs (got %s); drop one or the other", strings.Join(args, " "))
	}
	return nil
}

// printRules prints rule descriptions for --list-rules of any checking
// verb, on standard output or in the -o file, as the verb's report.
func printRules(s stdio, output string, format report.Format, infos []report.RuleInfo) error {
	sort.Slice(infos, func(i, j int) bool { return infos[i].ID < infos[j].ID })
	switch format {
	case report.JSON:
		return writeOutput(s, output, "the rules", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"rules": infos})
		})
	case report.Text:
		return writeOutput(s, output, "the rules", func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCATEGORY\tSECTION\tSEVERITY\tSUMMARY")
			for _, r := range infos {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Category, report.Cite(r.Section), r.Severity, r.Summary)
			}
			return tw.Flush()
		})
	}
	return usageErr("--list-rules prints text or json, not %s", format)
}

func countFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
