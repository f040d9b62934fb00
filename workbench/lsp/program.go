package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

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
// languages entry matches is left alone. While the settings have
// problems, a file mapped under the last settings without them, or
// never seen under any, gets one diagnostic saying it is not checked.
func (s *server) analyseProgram(path, uri string, text []byte, p Project) *lspserve.Analysis {
	res := &lspserve.Analysis{Diags: map[string][]protocol.Diagnostic{}}
	if len(p.Problems) > 0 {
		if was, seen := s.mapped.Load(path); !seen || was.(bool) {
			res.Diags[uri] = []protocol.Diagnostic{s.unavailable(path, p, "the Language mapping of this file is unavailable and it is not validated")}
		}
		return res
	}
	pdlPath := p.Lang
	s.mapped.Store(path, pdlPath != "")
	if pdlPath == "" {
		return res
	}
	// The Language is compiled from its file for each analysis: the
	// memory that takes is the file's, under the analyses' limit.
	if info, err := os.Stat(pdlPath); err == nil {
		defer s.Working(int(info.Size()))()
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
		title := fmt.Sprintf("plan: %s, max risk %s", report.Count(len(resp.Plan.Steps), "step"), resp.Plan.MaxRisk)
		res.Lens = []protocol.CodeLens{{Command: &protocol.Command{Title: title, Command: ""}}}
	}
	return res
}

// entryHover describes the catalog entry named at a program position:
// its kind and risk, and the name, description and schemas it has, as
// the PDL side's hover shows them (describe); a part it lacks is left
// out, not shown empty.
func (pf *programFacts) entryHover(name string) *protocol.Hover {
	e := pf.entry(name)
	if e == nil {
		return nil
	}
	parts := []string{fmt.Sprintf("**entry** `%s` · kind `%s` · risk `%s`", e.ID, e.Kind, e.Risk)}
	for _, f := range []struct{ key, value string }{{"name", e.Name}, {"description", e.Description}} {
		if f.value != "" {
			parts = append(parts, f.key+": "+f.value)
		}
	}
	for _, f := range []struct {
		key    string
		schema json.RawMessage
	}{{"input_schema", e.InputSchema}, {"output_schema", e.OutputSchema}} {
		if len(f.schema) > 0 {
			parts = append(parts, fmt.Sprintf("%s:\n```json\n%s\n```", f.key, f.schema))
		}
	}
	parts = append(parts, fmt.Sprintf("(%s, %s)", filepath.Base(pf.pdl), report.Cite("5.4")))
	return lspserve.Markdown(strings.Join(parts, "\n\n"))
}

// The shapes completion reads before the cursor: the last call of the
// step being written with its "with" opened after it, and a
// steps.<id>.output. path being typed.
var (
	callThenWith = regexp.MustCompile(`"call"\s*:\s*"([^"]+)"[^\]}]*"with"\s*:\s*\{[^{}]*$`)
	outputPath   = regexp.MustCompile(`steps\.([\w-]+)\.output\.$`)
)

// completion offers, at off in a program: the argument names of the
// entry a step calls inside its "with" (from input_schema), the fields
// of a step's output after steps.<id>.output. (from the callee's
// output_schema), and otherwise the entries a program may call.
func (pf *programFacts) completion(text []byte, off int) []protocol.CompletionItem {
	if syntax.Textual(pf.lang.Locator) {
		return pf.textCompletion(text, off)
	}
	before := text[:off]
	if m := callThenWith.FindSubmatch(before); m != nil {
		if e := pf.entry(string(m[1])); e != nil {
			return properties(e.InputSchema, "argument of "+e.ID)
		}
	}
	if m := outputPath.FindSubmatch(before); m != nil {
		step := regexp.MustCompile(`"id"\s*:\s*"` + regexp.QuoteMeta(string(m[1])) + `"\s*,\s*"call"\s*:\s*"([^"]+)"`).FindSubmatch(text)
		if step != nil {
			if e := pf.entry(string(step[1])); e != nil {
				return properties(e.OutputSchema, "output of "+e.ID)
			}
		}
	}
	return pf.entries()
}

// textCompletion is the same in a text program (syntax text): argument
// names inside a call's parentheses, less those it binds already, and
// the fields after LABEL.output.
func (pf *programFacts) textCompletion(text []byte, off int) []protocol.CompletionItem {
	spot := syntax.TextSpotAt(pf.lang.Text, text, off)
	if e := pf.entry(spot.Callee); e != nil {
		var out []protocol.CompletionItem
		for _, it := range properties(e.InputSchema, "argument of "+e.ID) {
			if !slices.Contains(spot.Given, it.Label) {
				out = append(out, it)
			}
		}
		return out
	}
	if e := pf.entry(spot.OutputOf); e != nil {
		return properties(e.OutputSchema, "output of "+e.ID)
	}
	if spot.Callee != "" || spot.OutputOf != "" {
		return []protocol.CompletionItem{}
	}
	return pf.entries()
}

// entries are the catalog entries a program may call.
func (pf *programFacts) entries() []protocol.CompletionItem {
	var out []protocol.CompletionItem
	kind := protocol.CompletionItemKindFunction
	for _, e := range pf.srv.Catalog {
		detail := fmt.Sprintf("%s, risk %s", report.Clip(e.Kind), report.Clip(e.Risk))
		out = append(out, protocol.CompletionItem{Label: e.ID, Kind: &kind, Detail: &detail})
	}
	return out
}

func (pf *programFacts) entry(id string) *language.Entry {
	for _, e := range pf.srv.Catalog {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// properties lists the top-level properties a JSON Schema names, with
// their schemas as detail, in name order.
func properties(schema json.RawMessage, what string) []protocol.CompletionItem {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []protocol.CompletionItem{}
	kind := protocol.CompletionItemKindField
	for _, n := range names {
		detail := what + ": " + string(s.Properties[n])
		out = append(out, protocol.CompletionItem{Label: n, Kind: &kind, Detail: &detail})
	}
	return out
}
