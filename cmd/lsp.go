package cmd

import (
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/pilotage-dev/pilotage/workbench/lsp"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

type lspParams struct {
	stdio    bool
	docsBase string
}

func newLspCmd() *cobra.Command {
	p := &lspParams{}
	c := &cobra.Command{
		Use:   "lsp [--stdio]",
		Short: "Serve the Language Server Protocol on standard input and output, for editors",
		Long: `Run a language server (LSP over stdio) that editors start: PDL files
get every 'pilotage lint' finding as a diagnostic (its rule as the code,
linking the rule's page), hover on keywords and names, completion of
statements and names, go to definition, references, an outline,
formatting that is exactly 'pilotage fmt', and quick fixes for
did-you-mean hints. Program files that pilotage.yaml's languages maps to
a PDL get 'pilotage validate' diagnostics, hover and completion of entry
names, and a code lens with the plan's max risk.

Each file is governed by the pilotage.yaml found from its directory
upwards, as the CLI verbs find theirs from the working directory.
Set-ups for Neovim and Helix: docs/editors.md. What the server cannot
tell the editor goes to standard error.

Exit status: 0 when the editor exits or closes the stream, 2 for a
wrong flag or argument.`,
		Example: `  pilotage lsp --stdio`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s := streams(c)
			return lsp.Serve(c.Context(), stdioRWC{s.in, s.out}, lsp.Options{DocsBase: p.docsBase, Log: s.err, Project: project})
		},
	}
	// Clients pass --stdio by convention; stdio is the only transport.
	c.Flags().BoolVar(&p.stdio, "stdio", true, "talk over standard input and output (the default and only transport)")
	c.Flags().StringVar(&p.docsBase, "docs-base", lsp.DefaultDocsBase, "`URL` that rule documentation paths (docs/rules/ID.md) are relative to, for diagnostics' links")
	return c
}

// project reads the pilotage.yaml governing a file for the language
// server: a program's Language, and lint's severities and suppressions.
func project(path string) lsp.Project {
	cfg, err := config.Resolve("", filepath.Dir(path))
	if err != nil {
		return lsp.Project{}
	}
	p := lsp.Project{Apply: func(rep *report.Report) {
		cfg.Apply(rep, config.Apply{Inline: pdl.Suppressions, Known: ruleIDs()})
	}}
	if l, ok := cfg.LanguageFor(path); ok {
		p.Lang = cfg.Path(l.Value)
	}
	return p
}

// stdioRWC is standard input and output as the one stream LSP runs on.
type stdioRWC struct {
	io.Reader
	io.Writer
}

func (stdioRWC) Close() error { return nil }
