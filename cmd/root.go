// Package cmd holds the pilotage command line: one file per verb, each a
// thin cobra wrapper that parses flags, reads files, calls a library
// package and maps the result to output and an exit code. No checking or
// building logic lives here.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes shared by every verb.
const (
	ExitOK       = 0 // clean
	ExitFindings = 1 // the input has error findings (or warnings with --strict)
	ExitUsage    = 2 // bad flags, unreadable input, internal failure
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error // nil when the verb already printed everything
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// usageErr reports a usage or input problem (exit 2).
func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// findingsExit is returned by checking verbs whose input has findings.
var findingsExit = &exitError{code: ExitFindings}

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
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "pilotage:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors (unknown flag, unknown command, bad arity).
	fmt.Fprintln(stderr, "pilotage:", err)
	fmt.Fprintln(stderr, "Run 'pilotage --help' for usage.")
	return ExitUsage
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

  pilotage lint manifest.json      check a manifest or snapshot against Part II
  pilotage lint lang.pdl           check a PDL definition and what it builds
  pilotage build lang.pdl          write manifest, snapshot and guides from PDL
  pilotage fmt -w lang.pdl         print PDL in its canonical layout
  pilotage replay t.json --plan p  check recorded traces against their plan (§5.8)
  pilotage serve lang.pdl          serve a PDL definition over MCP (stdio or --http)
  pilotage validate|plan|run --lang lang.pdl prog.json
                                   validate, plan or execute a program without MCP
  pilotage version                 print the tool and spec versions

Every checking command prints findings as file:line:col with the rule and the
spec section it enforces, takes --format text|json|sarif|github|junit, and
exits 0 when clean, 1 on findings and 2 on usage errors or unreadable input.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newVersionCmd(),
		newLintCmd(),
		newReplayCmd(),
		newBuildCmd(),
		newFmtCmd(),
		newServeCmd(),
	)
	root.AddCommand(newProgCmds()...)
	return root
}
