// Package lsp is `pilotage lsp`: a Language Server (LSP over stdio) that
// puts lint, fmt, hover, completion and navigation for PDL files, and
// validate for the programs of the Languages they define, into editors.
package lsp

import (
	"context"
	"io"
	"sync"

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
	// file, reading a settings file the editor has open through open (its
	// buffer, not the disk); nil means none.
	Project func(path string, open Open) Project
	// KeyDoc documents the key at a byte offset of a settings file's
	// text, for hover: the top-level key it is under, its path and its
	// description; nil means none.
	KeyDoc func(text []byte, off int) (top, path, doc string, ok bool)
	// Memory is told the bytes of the documents under analysis whenever
	// they change, 0 once none is (lspserve.Options.Memory); nil: nothing.
	Memory func(analysing int64)
	// Watch are the glob patterns of the settings files, which the
	// server asks a client that can watch files to report changes of.
	Watch []string
}

// Open is the text of a file the editor has open; ok is false when it
// has not.
type Open func(path string) (text []byte, ok bool)

// Project is what a project's settings say about one file.
type Project struct {
	// Lang is the PDL file of the Language a program file is written in
	// (pilotage.yaml languages), "" when none.
	Lang string
	// Apply brings a lint report under the settings (rule severities,
	// suppressions), as lint's output does; nil changes nothing.
	Apply func(rep *report.Report)
	// File is the settings file that governs the file, "" when none; a
	// settings file governs itself.
	File string
	// Problems are the settings file's problems as `pilotage config show`
	// reports them; while there are any, Lang and Apply are unknown.
	Problems []report.Finding
}

func (s *server) project(path string) Project {
	if s.opt.Project == nil {
		return Project{}
	}
	return s.opt.Project(path, s.TextOf)
}

// DefaultDocsBase is where the rule pages are published.
const DefaultDocsBase = "https://github.com/pilotage-dev/pilotage/blob/main/"

type server struct {
	*lspserve.Server
	opt Options
	// watch says the client can watch files for the server.
	watch bool
	// mapped says, by path, whether a program file had a Language under
	// the last settings without problems.
	mapped sync.Map
	// settings holds the paths of the settings files analysed.
	settings sync.Map
}

// Serve answers LSP requests on rwc until the client exits or the
// stream ends.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opt Options) error {
	if opt.DocsBase == "" {
		opt.DocsBase = DefaultDocsBase
	}
	s := &server{opt: opt}
	s.Server = lspserve.New(lspserve.Options{Log: opt.Log, Analyse: s.analyse, Memory: opt.Memory})
	return s.Serve(ctx, rwc, s.handler())
}

func (s *server) analyse(path, uri string, text []byte) *lspserve.Analysis {
	if analyseHook != nil {
		analyseHook(path)
	}
	p := s.project(path)
	switch {
	case p.File == path:
		return s.analyseSettings(path, uri, text, p)
	case isPDL(path):
		return s.analysePDL(path, uri, text, p)
	}
	return s.analyseProgram(path, uri, text, p)
}

// analyseHook lets tests make an analysis panic.
var analyseHook func(path string)

// handler binds the LSP methods the server answers.
func (s *server) handler() *protocol.Handler {
	h := &protocol.Handler{
		Shutdown:                       func(*glsp.Context) error { return nil },
		Exit:                           func(*glsp.Context) error { return nil },
		Initialized:                    func(*glsp.Context, *protocol.InitializedParams) error { s.register(); return nil },
		SetTrace:                       func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidClose:           s.didClose,
		TextDocumentDidSave:            func(*glsp.Context, *protocol.DidSaveTextDocumentParams) error { return nil },
		WorkspaceDidChangeWatchedFiles: s.watched,
		TextDocumentHover:              s.hover,
		TextDocumentCompletion:         s.completion,
		TextDocumentDefinition:         s.definition,
		TextDocumentReferences:         s.references,
		TextDocumentDocumentSymbol:     s.symbols,
		TextDocumentFormatting:         s.formatting,
		TextDocumentCodeAction:         s.codeAction,
		TextDocumentCodeLens:           s.codeLens,
	}
	h.Initialize = func(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
		if w := p.Capabilities.Workspace; w != nil && w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration != nil {
			s.watch = *w.DidChangeWatchedFiles.DynamicRegistration
		}
		caps := h.CreateServerCapabilities()
		full := protocol.TextDocumentSyncKindFull
		caps.TextDocumentSync = &protocol.TextDocumentSyncOptions{OpenClose: &protocol.True, Change: &full}
		caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{"=", "\""}}
		version := "1.1"
		return protocol.InitializeResult{Capabilities: caps, ServerInfo: &protocol.InitializeResultServerInfo{Name: "pilotage lsp", Version: &version}}, nil
	}
	return h
}
