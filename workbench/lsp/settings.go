package lsp

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// settingsCode is the code of the diagnostics about the settings file:
// its problems have no rule (the CLI stops at them, exit 2), so the code
// names the file, which no rule ID can be, and links its page.
const settingsCode = "pilotage.yaml"

// settingsDoc is the page settingsCode links.
const settingsDoc = "docs/config.md"

// analyseSettings publishes the problems of a settings file the editor
// has open, exactly those `pilotage config show` prints for its text,
// and analyses again the open files it governs, under what it now says.
func (s *server) analyseSettings(path, uri string, text []byte, p Project) *lspserve.Analysis {
	s.settings.Store(path, true)
	defer s.reanalyseUnder(path)
	return &lspserve.Analysis{Diags: lspserve.Diagnostics(settingsFindings(p.Problems), path, uri, text, nil, s.docLink)}
}

// settingsFindings are a settings file's problems with the code their
// diagnostics carry.
func settingsFindings(fs []report.Finding) []report.Finding {
	out := make([]report.Finding, len(fs))
	for i, f := range fs {
		f.Rule = settingsCode
		out[i] = f
	}
	return out
}

// reanalyseUnder analyses again the open files, other than the settings
// file itself, in the settings file's directory and below it.
func (s *server) reanalyseUnder(settings string) {
	dir := filepath.Dir(settings) + string(filepath.Separator)
	s.Reanalyse(func(path string) bool { return path != settings && strings.HasPrefix(path, dir) })
}

// didClose closes a document; a settings file closed gives way to the
// one on disk, so the files it governs are analysed again.
func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	err := s.DidClose(p)
	path := lspserve.PathOf(p.TextDocument.URI)
	if _, ok := s.settings.Load(path); ok {
		s.reanalyseUnder(path)
	}
	return err
}

// register asks the client to report changes of the settings files on
// disk (a checkout, another editor), when it can watch files for us.
func (s *server) register() {
	if !s.watch || len(s.opt.Watch) == 0 {
		return
	}
	var ws []protocol.FileSystemWatcher
	for _, g := range s.opt.Watch {
		ws = append(ws, protocol.FileSystemWatcher{GlobPattern: g})
	}
	s.Request(string(protocol.ServerClientRegisterCapability), protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID: "pilotage-settings", Method: string(protocol.MethodWorkspaceDidChangeWatchedFiles),
		RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: ws},
	}}})
}

// watched analyses again the files a settings file that changed on disk
// governs. An open settings file is left to its buffer: the editor
// sends its text when it reloads it.
func (s *server) watched(_ *glsp.Context, p *protocol.DidChangeWatchedFilesParams) error {
	for _, c := range p.Changes {
		path := lspserve.PathOf(c.URI)
		if _, open := s.TextOf(path); !open {
			s.reanalyseUnder(path)
		}
	}
	return nil
}

// unavailable is the one diagnostic of a file whose settings file has
// problems, saying what is lost; related information points at each
// problem. A diagnostic rather than window/showMessage, as gopls does
// for a go.mod with errors (golang/go#42730): it stays on the file while
// the cause lasts and clears when it is fixed, where a message pops up
// on every keystroke or is lost once dismissed. A warning: the file
// itself may be fine.
func (s *server) unavailable(path string, p Project, what string) protocol.Diagnostic {
	name := p.File
	if r, err := filepath.Rel(filepath.Dir(path), p.File); err == nil {
		name = r
	}
	first := p.Problems[0]
	msg := fmt.Sprintf("%s has errors, so %s: %s:%d:%d: %s", name, what, name, first.Line, first.Column, first.Message)
	if n := len(p.Problems) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	d := lspserve.ErrorDiag(msg + "; fix " + name + " and this file is checked again")
	sev := protocol.DiagnosticSeverityWarning
	d.Severity, d.Code = &sev, &protocol.IntegerOrString{Value: settingsCode}
	d.CodeDescription = &protocol.CodeDescription{HRef: s.docLink(settingsCode)}
	text := s.readSettings(p.File)
	uri := lspserve.URIOf(p.File)
	for _, pd := range lspserve.Diagnostics(settingsFindings(p.Problems), p.File, uri, text, nil, s.docLink)[uri] {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri, Range: pd.Range}, Message: pd.Message})
	}
	return d
}

// settingsHover is what the settings schema says of the key at off,
// with its section of docs/config.md.
func (s *server) settingsHover(text []byte, off int) *protocol.Hover {
	if s.opt.KeyDoc == nil {
		return nil
	}
	top, path, doc, ok := s.opt.KeyDoc(text, off)
	if !ok {
		return nil
	}
	return lspserve.Markdown(fmt.Sprintf("**`%s`** — %s\n\n[%s#%s](%s%s#%s)", path, doc, settingsDoc, top, s.opt.DocsBase, settingsDoc, top))
}

// readSettings is the settings file's text, for placing its problems in
// UTF-16 units: the editor's buffer, else the disk, at most what
// analysis reads live.
func (s *server) readSettings(path string) []byte {
	if text, ok := s.TextOf(path); ok {
		return text
	}
	text, _ := inputs.ReadRegular(path, inputs.Bound{Bytes: lspserve.MaxLive})
	return text
}
