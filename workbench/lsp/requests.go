package lsp

import (
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, text, res, off, err := s.At(p.TextDocumentPositionParams)
	if err != nil || !lspserve.Live(text) {
		return nil, err
	}
	if isPDL(d.Path) {
		defer s.Working(len(text))()
		return s.pdlHover(d.Path, text, off), nil
	}
	if _, ok := s.settings.Load(d.Path); ok {
		return s.settingsHover(text, off), nil
	}
	if pf := programOf(res); pf != nil {
		word, _, _ := lspserve.WordAt(text, off)
		if h := pf.entryHover(word); h != nil {
			return h, nil
		}
		if len(res.Lens) > 0 {
			return lspserve.Markdown(res.Lens[0].Command.Title), nil
		}
	}
	return nil, nil
}

func programOf(res *lspserve.Analysis) *programFacts {
	if res == nil {
		return nil
	}
	pf, _ := res.Facts.(*programFacts)
	return pf
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, text, res, off, err := s.At(p.TextDocumentPositionParams)
	if err != nil || !lspserve.Live(text) {
		return nil, err
	}
	if isPDL(d.Path) {
		defer s.Working(len(text))()
		return s.pdlCompletion(d.Path, text, off), nil
	}
	if pf := programOf(res); pf != nil {
		return pf.completion(text, off), nil
	}
	return []protocol.CompletionItem{}, nil
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d, text, _, off, err := s.At(p.TextDocumentPositionParams)
	if err != nil || !lspserve.Live(text) || !isPDL(d.Path) {
		return nil, err
	}
	defer s.Working(len(text))()
	return s.pdlDefinition(d.Path, text, off), nil
}

func (s *server) references(_ *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
	d, text, _, off, err := s.At(p.TextDocumentPositionParams)
	if err != nil || !lspserve.Live(text) || !isPDL(d.Path) {
		return nil, err
	}
	defer s.Working(len(text))()
	return s.pdlReferences(d.URI, text, off, p.Context.IncludeDeclaration, d.Path), nil
}

func (s *server) symbols(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	d, text, _, err := s.Doc(p.TextDocument.URI)
	if err != nil || !lspserve.Live(text) || !isPDL(d.Path) {
		return nil, err
	}
	defer s.Working(len(text))()
	return s.pdlSymbols(d.Path, text), nil
}

func (s *server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	d, text, _, err := s.Doc(p.TextDocument.URI)
	if err != nil || !isPDL(d.Path) {
		return nil, err
	}
	return s.pdlFormat(d.Path, text)
}

// codeAction offers the did-you-mean of every diagnostic in the request
// that carries one, as a quick fix.
func (s *server) codeAction(ctx *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	_, text, _, err := s.Doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	// Each action names the diagnostic it fixes as published (code and
	// link), which glsp's decoding loses.
	lspserve.RestoreCodes(ctx.Params, p.Context.Diagnostics)
	t := textpos.New(text)
	out := []protocol.CodeAction{}
	kind := protocol.CodeActionKindQuickFix
	for _, d := range p.Context.Diagnostics {
		title, edit := lspserve.FixOf(text, t, d)
		if edit == nil {
			continue
		}
		out = append(out, protocol.CodeAction{Title: title, Kind: &kind, Diagnostics: []protocol.Diagnostic{d},
			Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{p.TextDocument.URI: {*edit}}}})
	}
	return out, nil
}

func (s *server) codeLens(_ *glsp.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	_, _, res, err := s.Doc(p.TextDocument.URI)
	if err != nil || res == nil {
		return []protocol.CodeLens{}, err
	}
	return res.Lens, nil
}
