package lsp

import (
	"encoding/json"
	"path/filepath"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// FuzzPDLRequests sends arbitrary text, and a position anywhere in it,
// through every PDL request: none may panic, and whatever range comes
// back lies inside the text.
func FuzzPDLRequests(f *testing.F) {
	f.Add([]byte(read(f, homeflow)), uint(4000))
	f.Add([]byte("entry \"a\" kind=k risk=r {\n  name \"😀\"\n}\nentry \"a\""), uint(7))
	f.Add([]byte("language \"x\" {\n  limits {\n    \n"), uint(30))
	f.Add([]byte("risk safe readOnly \"\xff\" bogus=1\n"), uint(3))
	path := filepath.Join(f.TempDir(), "f.pdl")
	s := &server{opt: Options{DocsBase: DefaultDocsBase}}
	f.Fuzz(func(t *testing.T, text []byte, at uint) {
		if len(text) > 1<<14 {
			return
		}
		off := int(at % uint(len(text)+1))
		tx := textpos.New(text)
		inside := func(r protocol.Range) {
			if int(r.End.Line) >= tx.Lines() || tx.Offset(r.Start.Line, r.Start.Character) > tx.Offset(r.End.Line, r.End.Character) {
				t.Fatalf("range %+v outside or reversed in %d lines", r, tx.Lines())
			}
		}
		s.pdlHover(path, text, off)
		s.pdlCompletion(path, text, off)
		for _, l := range s.pdlDefinition(path, text, off) {
			inside(l.Range)
		}
		for _, l := range s.pdlReferences("file:///f.pdl", text, off, true, path) {
			inside(l.Range)
		}
		for _, sym := range s.pdlSymbols(path, text) {
			inside(sym.Range)
		}
		res := s.analysePDL(path, "file:///f.pdl", text, Project{})
		for _, d := range res.Diags["file:///f.pdl"] {
			inside(d.Range)
			// The client sends the diagnostic back as JSON.
			b, _ := json.Marshal(d)
			var back protocol.Diagnostic
			json.Unmarshal(b, &back)
			if _, edit := lspserve.FixOf(text, tx, back); edit != nil {
				inside(edit.Range)
			}
		}
		s.pdlFormat(path, text)
	})
}
