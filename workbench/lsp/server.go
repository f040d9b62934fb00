// Package lsp is `pilotage lsp`: a Language Server (LSP over stdio) that
// puts lint, fmt, hover, completion and navigation for PDL files, and
// validate for the programs of the Languages they define, into editors.
package lsp

import (
	"context"
	"io"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Options configure a server.
type Options struct {
	// DocsBase prefixes a rule's documentation path (docs/rules/x.md) to
	// make the codeDescription link of its diagnostics.
	DocsBase string
	// Log receives what the server cannot tell the client (stderr).
	Log io.Writer
	// Project gives the project settings (pilotage.yaml) that govern a
	// file; nil means none.
	Project func(path string) Project
}

// Project is what a project's settings say about one file.
type Project struct {
	// Lang is the PDL file of the Language a program file is written in
	// (pilotage.yaml languages), "" when none.
	Lang string
	// Apply brings a lint report under the settings (rule severities,
	// suppressions), as lint's output does; nil changes nothing.
	Apply func(rep *report.Report)
}

func (s *server) project(path string) Project {
	if s.opt.Project == nil {
		return Project{}
	}
	return s.opt.Project(path)
}

// DefaultDocsBase is where the rule pages are published.
const DefaultDocsBase = "https://github.com/pilotage-dev/pilotage/blob/main/"

type server struct {
	*lspserve.Server
	opt Options
}

// Serve answers LSP requests on rwc until the client exits or the
// stream ends.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opt Options) error {
	if opt.DocsBase == "" {
		opt.DocsBase = DefaultDocsBase
	}
	s := &server{opt: opt}
	s.Server = lspserve.New(lspserve.Options{Log: opt.Log, Analyse: s.analyse})
	return s.Serve(ctx, rwc, s.handler())
}

func (s *server) analyse(path, uri string, text []byte) *lspserve.Analysis {
	if analyseHook != nil {
		analyseHook(path)
	}
	if isPDL(path) {
		return s.analysePDL(path, uri, text)
	}
	return s.analyseProgram(path, uri, text)
}

// analyseHook lets tests make an analysis panic.
var analyseHook func(path string)

// handler binds the LSP methods the server answers.
func (s *server) handler() *protocol.Handler {
	h := &protocol.Handler{
		Shutdown:                   func(*glsp.Context) error { return nil },
		Exit:                       func(*glsp.Context) error { return nil },
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		SetTrace:                   func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen:        func(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error { return s.DidOpen(p) },
		TextDocumentDidChange:      func(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error { return s.DidChange(p) },
		TextDocumentDidClose:       func(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error { return s.DidClose(p) },
		TextDocumentDidSave:        func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		TextDocumentHover:          s.hover,
		TextDocumentCompletion:     s.completion,
		TextDocumentDefinition:     s.definition,
		TextDocumentReferences:     s.references,
		TextDocumentDocumentSymbol: s.symbols,
		TextDocumentFormatting:     s.formatting,
		TextDocumentCodeAction:     s.codeAction,
		TextDocumentCodeLens:       s.codeLens,
	}
	h.Initialize = func(*glsp.Context, *protocol.InitializeParams) (any, error) {
		caps := h.CreateServerCapabilities()
		full := protocol.TextDocumentSyncKindFull
		caps.TextDocumentSync = &protocol.TextDocumentSyncOptions{OpenClose: &protocol.True, Change: &full}
		caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{"=", "\""}}
		version := "1.1"
		return protocol.InitializeResult{Capabilities: caps, ServerInfo: &protocol.InitializeResultServerInfo{Name: "pilotage lsp", Version: &version}}, nil
	}
	return h
}
