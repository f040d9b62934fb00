package lsp

import (
	"context"
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"path/filepath"

	protocol "github.com/tliron/glsp/protocol_3_16"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// programFacts are what a program file's requests use: its Language and
// the catalog, as its PDL compiled.
type programFacts struct {
	pdl  string
	lang *language.Language
	srv  *language.Server
}

// analyseProgram is `pilotage validate` of a program file whose
// Language pilotage.yaml's languages names (docs/config.md): its
// diagnostics, and a code lens with the plan's max risk. A file no
// languages entry matches is left alone.
func (s *server) analyseProgram(path, uri string, text []byte) *lspserve.Analysis {
	res := &lspserve.Analysis{Diags: map[string][]protocol.Diagnostic{}}
	pdlPath := s.project(path).Lang
	if pdlPath == "" {
		return res
	}
	comp, _, err := compile.Load(pdlPath, 1)
	if err != nil || !comp.OK() {
		res.Diags[uri] = []protocol.Diagnostic{lspserve.ErrorDiag(fmt.Sprintf("the Language of this program, %s (pilotage.yaml languages), does not compile; open it for its diagnostics", pdlPath))}
		return res
	}
	lang, err := comp.Server.Pick("")
	if err != nil {
		res.Diags[uri] = []protocol.Diagnostic{lspserve.ErrorDiag(err.Error())}
		return res
	}
	res.Facts = &programFacts{pdl: pdlPath, lang: lang, srv: comp.Server}
	eng, err := engine.New(comp.Server, engine.Options{})
	if err != nil {
		res.Diags[uri] = []protocol.Diagnostic{lspserve.ErrorDiag(err.Error())}
		return res
	}
	defer eng.Close()
	wire, textual := syntax.Wire(lang.Locator, text)
	// A PDL with principals shows each its own catalog; the editor
	// validates as the first declared (docs/editors.md).
	caller := service.Caller{Session: "lsp"}
	if len(comp.Server.Principals) > 0 {
		caller.Principal = comp.Server.Principals[0].Name
	}
	resp, err := eng.Validate(context.Background(), caller, lang.ID, pilotage.ValidateRequest{Program: wire})
	if err != nil {
		res.Diags[uri] = []protocol.Diagnostic{lspserve.ErrorDiag(err.Error())}
		return res
	}
	doc := progdiag.NewDoc(path, text, textual)
	fs := progdiag.Findings(resp.Diagnostics, progdiag.Files{Program: doc})
	res.Diags = lspserve.Diagnostics(fs, path, uri, text, map[string][]byte{path: text}, s.docLink)
	if resp.Plan != nil {
		title := fmt.Sprintf("plan: %d steps, max risk %s", len(resp.Plan.Steps), resp.Plan.MaxRisk)
		res.Lens = []protocol.CodeLens{{Command: &protocol.Command{Title: title, Command: ""}}}
	}
	return res
}

// entryHover describes the catalog entry named at a program position.
func (pf *programFacts) entryHover(name string) *protocol.Hover {
	for _, e := range pf.srv.Catalog {
		if e.ID == name {
			return lspserve.Markdown(fmt.Sprintf("**%s** `%s` · kind `%s` · risk `%s`\n\n%s\n\ninput_schema:\n```json\n%s\n```\n\noutput_schema:\n```json\n%s\n```\n\n(%s, %s)",
				"entry", e.ID, e.Kind, e.Risk, e.Description, e.InputSchema, e.OutputSchema, filepath.Base(pf.pdl), report.Cite("5.4")))
		}
	}
	return nil
}

// entryItems completes the entries a program of the Language may call.
func (pf *programFacts) entryItems() []protocol.CompletionItem {
	var out []protocol.CompletionItem
	kind := protocol.CompletionItemKindFunction
	for _, e := range pf.srv.Catalog {
		detail := fmt.Sprintf("%s, risk %s", e.Kind, e.Risk)
		out = append(out, protocol.CompletionItem{Label: e.ID, Kind: &kind, Detail: &detail})
	}
	return out
}
