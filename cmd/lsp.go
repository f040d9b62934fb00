package cmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
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
upwards, as the CLI verbs find theirs from the working directory. An
open pilotage.yaml gets the problems 'pilotage config show' reports as
diagnostics, from the editor's text, and while it has any the files it
governs get a warning that they are not fully checked; the files under
it are analysed again when it changes.
Set-ups for Neovim and Helix: docs/editors.md. What the server cannot
tell the editor goes to standard error.

Exit status: 0 when the editor exits after shutdown or closes the
stream, 1 when it sends exit without shutdown (as the LSP specification
asks), 2 for a wrong flag or argument, or a stream that breaks LSP's
framing (a bad header, a stream that ends inside a message).`,
		Example: `  pilotage lsp --stdio`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s := streams(c)
			err := lsp.Serve(c.Context(), stdioRWC{s.in, s.out}, lspOptions(p.docsBase, s.err))
			var broken *lspserve.FramingError
			switch {
			case errors.Is(err, lspserve.ErrExitWithoutShutdown):
				return &exitError{Code: 1, Err: err}
			case errors.As(err, &broken):
				return &exitError{Code: ExitUsage, Err: err}
			}
			return err
		},
	}
	// Clients pass --stdio by convention; stdio is the only transport.
	c.Flags().BoolVar(&p.stdio, "stdio", true, "talk over standard input and output (the default and only transport)")
	c.Flags().StringVar(&p.docsBase, "docs-base", lsp.DefaultDocsBase, "`URL` that rule documentation paths (docs/rules/ID.md) are relative to, for diagnostics' links")
	return c
}

// lspOptions are the language server's: pilotage.yaml read by project,
// its keys documented from its schema, and watched for changes on disk,
// and a soft memory limit while it analyses a large document
// (lspMemory).
func lspOptions(docsBase string, log io.Writer) lsp.Options {
	return lsp.Options{DocsBase: docsBase, Log: log, Project: project, KeyDoc: config.KeyDoc, Memory: new(lspMemory).analysing, Watch: []string{"**/" + config.FileName}}
}

// project reads the pilotage.yaml governing a file for the language
// server, from the editor's buffer when it is open: a program's
// Language, lint's severities and suppressions, or the problems
// `pilotage config show` reports in it. A pilotage.yaml governs itself.
func project(path string, open lsp.Open) lsp.Project {
	name := path
	if filepath.Base(path) != config.FileName {
		var err error
		if name, err = config.Find(filepath.Dir(path)); err != nil || name == "" {
			return lsp.Project{}
		}
	}
	var cfg *config.Config
	var err error
	if text, ok := open(name); ok {
		cfg, err = config.Parse(name, text, ruleIDs()...)
	} else {
		cfg, err = config.Load(name, ruleIDs()...)
	}
	if err != nil {
		return lsp.Project{File: name, Problems: settingsProblems(name, err)}
	}
	p := lsp.Project{File: name, Apply: func(rep *report.Report) {
		cfg.Apply(rep, config.Apply{Inline: pdl.Suppressions, Known: ruleIDs()})
	}}
	if l, ok := cfg.LanguageFor(path); ok {
		if err := cfg.CheckLang(l); err != nil {
			p.Problems = settingsProblems(name, err)
		} else {
			p.Lang = l.Value
		}
	}
	return p
}

// settingsProblems are the errors of a pilotage.yaml as findings: each
// of its diagnostics, at most as many as config show prints and then
// one saying how many more there are, or the error that kept it from
// being read, at its start.
func settingsProblems(name string, err error) []report.Finding {
	var ds config.Diagnostics
	if !errors.As(err, &ds) {
		return []report.Finding{{Severity: report.Error, Message: fserr.Plain(err).Error(), File: name, Line: 1, Column: 1}}
	}
	var out []report.Finding
	for _, d := range ds[:min(len(ds), config.MaxDiagnostics)] {
		out = append(out, report.Finding{Severity: report.Error, Message: d.Message, Hint: d.Hint, File: name, Line: d.Line, Column: d.Column})
	}
	if n := len(ds) - config.MaxDiagnostics; n > 0 {
		out = append(out, report.Finding{Severity: report.Error, Message: fmt.Sprintf("%d more problems not shown", n), File: name, Line: 1, Column: 1})
	}
	return out
}

// stdioRWC is standard input and output as the one stream LSP runs on.
type stdioRWC struct {
	io.Reader
	io.Writer
}

func (stdioRWC) Close() error { return nil }
