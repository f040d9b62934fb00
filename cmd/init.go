package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/workbench/scaffold"
)

type initParams struct {
	template string
}

func newInitCmd() *cobra.Command {
	p := &initParams{}
	c := &cobra.Command{
		Use:   "init [DIR] [--template json|text]",
		Short: "Start a new Language: a small, complete, commented PDL with programs and tests",
		Long: `Write a new Language into DIR (default: the current directory): a PDL
file with a read entry, a write entry that fails on one input, a promoted
program, two principals and a core guide with an example; two programs
under programs/ each with its NAME.input.json; and a test corpus under
tests/ that 'pilotage test' runs. It builds, lints with no finding, serves
and passes its own tests as written; change it from there.

--template json writes a JSON-valued Language (programs are JSON step
lists, docs/pdl.md "Your first Language"); --template text one whose
programs are statements of its own syntax (syntax text, docs/pdl.md
"Text programs").

init never overwrites: when any file it would write exists it writes
nothing and names that file. It prints the next three commands to try.

Exit status: 0 written, 2 a file exists, an unknown template or a
directory that cannot be written.`,
		Example: `  pilotage init todo
  pilotage init --template text ledger`,
		Args: needArgs(0, 1, "at most one DIR"),
		RunE: func(c *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return runInit(streams(c), p, dir)
		},
	}
	c.Flags().StringVar(&p.template, "template", "json", "the template `NAME`: "+strings.Join(scaffold.Templates(), " or "))
	return c
}

func runInit(s stdio, p *initParams, dir string) error {
	written, err := scaffold.Init(scaffold.Params{Dir: dir, Template: p.template})
	var ee *scaffold.ExistsError
	switch {
	case errors.As(err, &ee):
		return usageErr("%v", err)
	case err != nil:
		return usageErr("init %s: %v", dir, err)
	}
	pdlFile, program := "", ""
	for _, w := range written {
		fmt.Fprintln(s.out, "wrote", w)
		switch {
		case filepath.Ext(w) == ".pdl":
			pdlFile = w
		case program == "" && filepath.Base(filepath.Dir(w)) == "programs" && !strings.HasSuffix(w, ".input.json"):
			program = w
		}
	}
	input := strings.TrimSuffix(program, filepath.Ext(program)) + ".input.json"
	fmt.Fprintf(s.out, "\nNext:\n  pilotage lint %s\n  pilotage run --lang %s --principal owner --input %s %s\n  pilotage test %s\n",
		pdlFile, pdlFile, input, program, dir)
	return nil
}
