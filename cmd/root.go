// Package cmd holds the pilotage command line: one file per verb, each a
// cobra command that turns its flags into the params struct of a verb
// function (cmd/lintverb, ...) and calls it. No checking or building
// logic lives here.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes shared by every verb.
const (
	ExitOK       = verb.ExitOK
	ExitFindings = verb.ExitFindings
	ExitUsage    = verb.ExitUsage
)

// exitError carries an exit code through cobra's error return.
type exitError = verb.ExitError

// stdio is a verb's standard streams, taken from cobra once when the verb
// runs, so that its code needs no *cobra.Command beyond reading flags.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func streams(c *cobra.Command) stdio {
	return stdio{in: c.InOrStdin(), out: c.OutOrStdout(), err: c.ErrOrStderr()}
}

// verb is s as the verb functions take it.
func (s stdio) verb() verb.Streams { return verb.Streams{In: s.in, Out: s.out, Err: s.err} }

// usageErr reports a usage or input problem (exit 2).
func usageErr(format string, args ...any) error { return verb.Usage(format, args...) }

// findingsExit is returned by checking verbs whose input has findings.
var findingsExit = verb.Findings

// Main runs the command line and returns the process exit code.
func Main() int {
	return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// run is Main with its environment passed in, for tests.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	c, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		var ds config.Diagnostics
		switch {
		case errors.As(ee.Err, &ds):
			// Each problem of a pilotage.yaml is a message of its own.
			for _, d := range ds.Messages() {
				fmt.Fprintln(stderr, "pilotage:", d)
			}
		case ee.Err != nil:
			fmt.Fprintln(stderr, "pilotage:", ee.Err)
		}
		return ee.Code
	}
	// Cobra's own errors (unknown flag, unknown command, a required flag
	// missing): point at the help of the verb that was meant, not the
	// root's list of verbs.
	fmt.Fprintln(stderr, "pilotage:", err)
	fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", c.CommandPath())
	return ExitUsage
}

// needArgs checks a verb's number of arguments and, when it is wrong,
// says what the verb takes ("build takes one FILE.pdl") instead of
// cobra's "accepts 1 arg(s), received 0". max < 0 means no upper bound.
func needArgs(min, max int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) >= min && (max < 0 || len(args) <= max) {
			return nil
		}
		got := "none"
		if len(args) > 0 {
			got = fmt.Sprintf("%d: %s", len(args), strings.Join(args, " "))
		}
		return usageErr("%s takes %s; got %s%s%s. See '%s --help'", c.Name(), what, got, langMeant(c, args), subcommandMeant(c, args), c.CommandPath())
	}
}

// subcommandMeant is " (did you mean 'pilotage config show'?)" when a
// command of subcommands got a near miss of one (config shw): cobra
// runs the parent with the word as an argument.
func subcommandMeant(c *cobra.Command, args []string) string {
	if !c.HasSubCommands() || len(args) == 0 {
		return ""
	}
	var names []string
	for _, sub := range c.Commands() {
		names = append(names, sub.Name())
	}
	if near := suggest.Closest(args[0], names); near != "" && near != args[0] {
		return fmt.Sprintf(" (did you mean '%s %s'?)", c.CommandPath(), near)
	}
	return ""
}

// langMeant is " (did you mean --lang X.pdl?)" when a verb that takes
// --lang got a PDL file among its arguments without it, as in
// `pilotage validate todo.pdl prog.json`.
func langMeant(c *cobra.Command, args []string) string {
	if c.Flags().Lookup("lang") == nil || c.Flags().Changed("lang") {
		return ""
	}
	for _, a := range args {
		if strings.HasSuffix(a, ".pdl") {
			return fmt.Sprintf(" (did you mean --lang %s?)", report.Clip(a))
		}
	}
	return ""
}

// settingsUnread are the verbs that read no pilotage.yaml: lsp finds
// each file's own (docs/editors.md), init writes a project and version
// reads nothing. Each other verb reads --config's file (serve for the
// rules and suppressions its conformance warning goes by), so the flag
// is refused here rather than ignored.
var settingsUnread = []string{"lsp", "init", "version"}

// checkCommonFlags refuses empty arguments and flag values, and --config
// given to a verb that reads no settings.
func checkCommonFlags(c *cobra.Command, args []string) error {
	if err := refuseEmpty(c, args); err != nil {
		return err
	}
	if c.Flags().Changed(configFlag) && slices.Contains(settingsUnread, c.Name()) {
		return usageErr("%s reads no pilotage.yaml, so --%s has nothing to set; leave it out (docs/config.md)", c.Name(), configFlag)
	}
	return nil
}

// refuseEmpty rejects an empty file argument or flag value before a verb
// runs. It is what `pilotage lint "$FILE"` or `--baseline "$OLD"` become
// when the shell variable is not set: an empty file name failed as
// ": no such file or directory", and an empty --baseline, --lang or
// --http silently meant "none", so a check or a server ran without the
// input the user meant to give. Words after conform's -- are the server's
// command line, not pilotage's, and are left alone; after any other
// verb's -- they are still files (lint -- -odd-name.json).
func refuseEmpty(c *cobra.Command, args []string) error {
	if n := c.ArgsLenAtDash(); n >= 0 && c.Name() == "conform" {
		args = args[:n]
	}
	if slices.Contains(args, "") {
		return usageErr("an argument is empty (an unset shell variable?); name a file, or - for standard input")
	}
	var empty []string
	c.Flags().Visit(func(f *pflag.Flag) {
		if f.Value.Type() == "string" && f.Value.String() == "" {
			empty = append(empty, "--"+f.Name)
		}
	})
	if len(empty) > 0 {
		return usageErr("%s is given an empty value (an unset shell variable?); give a value, or leave the flag out", strings.Join(empty, ", "))
	}
	return nil
}

// newRoot builds the command tree. Every verb is registered here, in one
// place, so the tree can be read at a glance.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "pilotage",
		Short: "Build, check and serve Pilotage Languages",
		Long: `pilotage is a toolkit for people who design Pilotage Languages (Pilotage 1.1,
an extension of the Model Context Protocol) and build the servers and clients
that speak them.

  pilotage init DIR                start a Language: a PDL, programs and test cases
  pilotage lint manifest.json      check a manifest or snapshot against Part II
  pilotage lint lang.pdl           check a PDL definition and what it builds
  pilotage test DIR                run a Language's test cases (tests/*.yaml)
  pilotage build lang.pdl          write manifest, snapshot and guides from PDL
  pilotage fmt -w lang.pdl         print PDL in its canonical layout
  pilotage lsp                     a language server for editors (stdio)
  pilotage replay t.json --plan p  check recorded traces against their plan (§5.8)
  pilotage serve lang.pdl          serve a PDL definition over MCP (stdio or --http)
  pilotage conform -- COMMAND      check a running server over MCP (or --http URL)
  pilotage validate|plan|run --lang lang.pdl prog.json
                                   validate, plan or execute a program without MCP
  pilotage config show             the effective pilotage.yaml settings
  pilotage version                 print the tool and spec versions

lint, replay and conform print findings as file:line:col with the rule and
the spec section it enforces, in --format text, json, sarif, github or junit
(replay also html and markdown); test takes text, json, junit or github;
validate, version and config show take text or json; plan also draws
mermaid, dot or svg, and run html (docs/pictures.md). Every command
exits 0 when clean, 1 on findings (an invalid program, a failed Run, fmt -l
finding unformatted files) and 2 on usage errors or unreadable input. A PDL
file with errors is unreadable input for every command but lint, which
reports its errors as findings.

  pilotage COMMAND --help          what a command does, its exit codes, examples`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		PersistentPreRunE: checkCommonFlags,
	}
	root.AddCommand(
		newVersionCmd(),
		newLintCmd(),
		newReplayCmd(),
		newBuildCmd(),
		newFmtCmd(),
		newServeCmd(),
		newLspCmd(),
		newConformCmd(),
		newConfigCmd(),
		newInitCmd(),
		newTestCmd(),
	)
	root.PersistentFlags().String(configFlag, "", "read settings from `FILE` instead of the pilotage.yaml found from the working directory upwards (docs/config.md)")
	root.AddCommand(newProgCmds()...)
	root.SetFlagErrorFunc(flagErr)
	root.SetHelpCommand(newHelpCmd(root))
	return root
}

// newHelpCmd is cobra's help command, but a topic that is no command is
// a usage error (exit 2) with cobra's did-you-mean, as the command
// itself would be: cobra's printed "Unknown help topic" and exited 0.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints what a command does, its flags, exit codes and examples: pilotage help COMMAND is pilotage COMMAND --help.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, _, err := root.Find(args)
			if err != nil || target == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil {
				return usageErr("%s\nRun 'pilotage --help' for the commands.", strings.TrimRight(err.Error(), "\n"))
			}
			// A word past the last command found ("config shw") is no
			// topic either.
			if len(rest) > 0 && target != root {
				msg := fmt.Sprintf("unknown command %q for %q", report.Clip(rest[0]), target.CommandPath())
				var names []string
				for _, sub := range target.Commands() {
					if sub.IsAvailableCommand() {
						names = append(names, sub.Name())
					}
				}
				if near := suggest.Closest(rest[0], names); near != "" {
					msg += "\n\nDid you mean this?\n\t" + near
				}
				return usageErr("%s\nRun '%s --help' for its commands.", msg, target.CommandPath())
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
	}
}

// flagErr rewords what pflag says of a flag that does not parse. An
// unknown long flag near one of the verb's ("--fromat") gets a "did you
// mean" (issue 13 item 15). A number flag's value that does not parse
// ends, in pflag's words, in Go's `strconv.ParseInt: parsing "abc":
// invalid syntax`, which names a Go function instead of what the flag
// takes. pflag's own start ("unknown flag: --fromat", "invalid argument
// "abc" for "--max-per-rule" flag") stays, so scripts that match it
// still do.
func flagErr(c *cobra.Command, err error) error {
	var nee *pflag.NotExistError
	if errors.As(err, &nee) && nee.GetSpecifiedShortnames() == "" {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if near := suggest.Closest(nee.GetSpecifiedName(), names); near != "" {
			return fmt.Errorf("%w (did you mean --%s?)", err, near)
		}
		if c.Name() == "conform" && c.ArgsLenAtDash() < 0 {
			return fmt.Errorf("%w (a flag of the server's command? put -- before the command: pilotage conform [flags] -- COMMAND [ARG...])", err)
		}
		// Many tools take --version; pilotage's version is a verb.
		for _, v := range c.Root().Commands() {
			if v.Name() == nee.GetSpecifiedName() {
				return fmt.Errorf("%w (did you mean 'pilotage %s'?)", err, v.Name())
			}
		}
		return err
	}
	var ive *pflag.InvalidValueError
	var ne *strconv.NumError
	if !errors.As(err, &ive) || !errors.As(err, &ne) {
		return err
	}
	want := "not a whole number"
	switch {
	case errors.Is(ne, strconv.ErrRange):
		want = "out of range"
	case ive.GetFlag().Value.Type() == "bool":
		want = "neither true nor false"
	}
	name := "--" + ive.GetFlag().Name
	return fmt.Errorf("invalid argument %q for %q flag: %s", ive.GetValue(), name, want)
}
