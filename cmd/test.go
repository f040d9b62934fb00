package cmd

import (
	"context"
	"errors"
	"regexp"
	"regexp/syntax"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/cmd/testverb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

type testParams struct {
	rf       reportFlags
	run      string
	update   bool
	coverage bool
	verbose  bool
}

func newTestCmd() *cobra.Command {
	p := &testParams{}
	c := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run a Language's test corpus: programs, stubs, and what validate, plan and run must answer",
		Long: `Run the test cases of tests/*.yaml files (docs/test.md). PATH is a case
file or a directory searched for tests/ directories, at any depth; the
default is the current directory. Each case names a program, a principal,
input, context and stubs for catalog entries, optionally a catalog change
between plan and execute, and states what it expects: validate's
diagnostics, the plan's steps and risks, the Run's status, output, trace
and narration. Every trace is also replayed against its plan (pilotage
replay's checks), so a passing case is a trace replay accepts.

A case file that does not parse, a stub of an unknown entry or of one the
program never calls, a stub's fail: status that is no failing step status
or CEL that the PDL would refuse, and an expected code, risk or status
outside the Language's closed sets are findings at their line, never a
pass.

--update rewrites the expectations each case states to what the engine
answers now, keeping comments and order (a case stating none gets its
status and output, or its diagnostics). --run REGEX runs the cases whose
name matches. --coverage adds what the corpus exercises and never reaches:
catalog entries, constructs, diagnostic codes, risk levels, step statuses
and principals.

Exit status: 0 every case passed, 1 a failed case or a bad case file,
2 usage errors, an unreadable file or a PDL with errors.`,
		Example: `  pilotage test todo
  pilotage test langs/ --run 'drift'
  pilotage test --update todo/tests/todo.yaml
  pilotage test --format github langs/`,
		RunE: func(c *cobra.Command, args []string) error { return runTest(streams(c), p, args) },
	}
	f := c.Flags()
	p.rf.formats = []report.Format{report.Text, report.JSON, report.JUnit, report.GitHub}
	p.rf.flags = f
	f.StringVarP(&p.rf.format, "format", "f", "text", "output format: text, json, junit or github")
	f.StringVarP(&p.rf.output, "output", "o", "", "write the report to `FILE` instead of standard output, which then names FILE")
	f.StringVar(&p.rf.color, "color", "auto", "colour text output: auto, always or never (NO_COLOR disables auto)")
	f.StringVar(&p.run, "run", "", "run only the cases whose name matches `REGEX`")
	f.BoolVar(&p.update, "update", false, "rewrite each case's expectations to what the engine answers now")
	f.BoolVar(&p.coverage, "coverage", false, "report what the corpus exercises and never reaches")
	f.BoolVarP(&p.verbose, "verbose", "v", false, "say which files a directory walk leaves out, and why")
	return c
}

func runTest(s stdio, p *testParams, args []string) error {
	format, err := p.rf.validate()
	if err != nil {
		return err
	}
	var sel *regexp.Regexp
	if p.run != "" {
		if sel, err = regexp.Compile(p.run); err != nil {
			// regexp's error quotes the whole expression, as long as
			// the flag's value; the message clips it.
			if se, ok := errors.AsType[*syntax.Error](err); ok {
				return usageErr("--run: error parsing regexp: %s: `%s`", se.Code, report.Clip(se.Expr))
			}
			return usageErr("--run: %v", err)
		}
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	cfg, _, err := loadConfig(p.rf.flags)
	if err != nil {
		return err
	}
	limit := newMemLimit()
	defer limit.restore()
	return testverb.Test(context.Background(), testverb.Params{
		Paths: args, Run: sel, Update: p.update, Coverage: p.coverage,
		Format: format, Output: p.rf.output, Color: (p.rf.output == "" || p.rf.output == "-") && p.rf.useColor(s.out),
		Verbose: p.verbose, Ignored: cfg.Ignored, Read: limit.read,
	}, s.verb())
}
