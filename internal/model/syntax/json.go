package syntax

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// jsonSyntax is the step model as JSON (language.Grammar names its
// members). stringed is true for a text-range Language, which receives
// the same JSON as the characters of a string.
type jsonSyntax struct {
	g        *language.Grammar
	stringed bool
	// steps is the most steps a program may hold: the most a Run of
	// the Language executes (limits steps), as for the text surface.
	steps int
}

func (s *jsonSyntax) Locator() string {
	if s.stringed {
		return pilotage.LocatorTextRange
	}
	return pilotage.LocatorJSONPointer
}

func (s *jsonSyntax) Parse(src []byte, maxDepth int) (*Parsed, error) {
	return s.parse(src, maxDepth, program.Parse)
}

func (s *jsonSyntax) parse(src []byte, maxDepth int, parse func([]byte, *language.Grammar, int, int) (*program.Program, []pilotage.Diagnostic, error)) (*Parsed, error) {
	prog, diags, err := parse(src, s.g, maxDepth, s.steps)
	if err != nil {
		return nil, err
	}
	p := &Parsed{Program: prog, Diagnostics: diags, locate: keep, span: jsonSpans(src)}
	if s.stringed {
		p.locate = func(diags []pilotage.Diagnostic) []pilotage.Diagnostic { return textRanges(src, diags) }
	}
	return p, nil
}

func (s *jsonSyntax) Paths() string { return language.DiagnosticPaths(s.Locator(), s.g) }

func (s *jsonSyntax) StepIdentifiers() string { return language.StepIdentifiers(s.g) }

func (s *jsonSyntax) Pointers() bool { return true }

func keep(diags []pilotage.Diagnostic) []pilotage.Diagnostic { return diags }

// Example: a ```json block whose content is an object with "steps". In a
// text-range Language text that is not well-formed is still a program
// (the engine answers it with a syntax diagnostic rather than refusing
// the request), so a block that is not JSON but names "steps" is an
// example too, and a typo in a taught program is reported instead of
// silently skipped.
func (s *jsonSyntax) Example(info string, content []byte) bool {
	if info != "json" {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(content, &probe) == nil && probe["steps"] != nil {
		return true
	}
	return s.stringed && !json.Valid(content) && bytes.Contains(content, []byte(`"steps"`))
}

// jsonSpans places diagnostics in src as `pilotage validate` places the
// engine's (progdiag): the value at its path, narrowed to its range inside
// an expression. Text that is not JSON is placed where its parse stops.
// The text is checked and its tree built once, on the first call, not
// per diagnostic: plan's program listing places every step.
func jsonSpans(src []byte) func(pilotage.Diagnostic) (start, end pilotage.LineCol) {
	read := sync.OnceValues(func() (*progdiag.Doc, error) {
		if err := jsonpos.Check(src); err != nil { // progdiag builds the tree it needs
			return nil, err
		}
		return progdiag.NewDoc("", src, false), nil
	})
	return func(d pilotage.Diagnostic) (start, end pilotage.LineCol) {
		doc, err := read()
		if err != nil {
			var se *jsonpos.SyntaxError
			if !errors.As(err, &se) {
				return pilotage.LineCol{Line: 1, Column: 1}, pilotage.LineCol{}
			}
			return pilotage.LineCol{Line: se.Pos.Line, Column: se.Pos.Column}, pilotage.LineCol{}
		}
		f := progdiag.Findings([]pilotage.Diagnostic{d}, progdiag.Files{Program: doc})[0]
		start = pilotage.LineCol{Line: f.Line, Column: f.Column}
		if f.EndLine == f.Line {
			end = pilotage.LineCol{Line: f.EndLine, Column: f.EndColumn}
		}
		return start, end
	}
}

// textRanges turns program diagnostics' JSON Pointers into the text-range
// dialect (§5.5): the extent of the value in the program text, narrowed to
// the expression's range when the string has no escapes to map through.
// Text that is not JSON has no values: its syntax diagnostic is the
// character where the parse stopped (empty at the end of the text), which
// a JSON Pointer cannot say and a line:column range can.
func textRanges(src []byte, diags []pilotage.Diagnostic) []pilotage.Diagnostic {
	doc, perr := jsonpos.Parse(src)
	var se *jsonpos.SyntaxError
	errors.As(perr, &se)
	out := make([]pilotage.Diagnostic, len(diags))
	for i, d := range diags {
		start, end := 0, len(src)
		if se != nil && d.Code == pilotage.CodeSyntax && se.Pos.Offset <= len(src) {
			start = se.Pos.Offset
			end = start
			if start < len(src) {
				_, n := utf8.DecodeRune(src[start:])
				end += n
			}
		}
		if doc.Root.Exists() {
			if n := doc.Root.At(d.Path.Pointer); n.Exists() {
				start, end = n.Start(), n.End()
				raw := src[n.Start():n.End()]
				if d.Range != nil && n.Kind() == jsonpos.String && !bytes.ContainsRune(raw, '\\') {
					body := raw[1 : len(raw)-1]
					start = n.Start() + 1 + runeOffset(body, d.Range.Start)
					end = n.Start() + 1 + runeOffset(body, d.Range.End)
				}
			}
		}
		d.Path = textPath(doc, start, end)
		d.Range = nil
		out[i] = d
	}
	return out
}

// textPath is the text-range path of the bytes [start, end) of doc.
func textPath(doc *jsonpos.Doc, start, end int) pilotage.Path {
	s, e := doc.Position(start), doc.Position(end)
	return pilotage.Path{Text: &pilotage.TextRange{Start: pilotage.LineCol{Line: s.Line, Column: s.Column}, End: pilotage.LineCol{Line: e.Line, Column: e.Column}}}
}

// runeOffset is the byte offset in b of its code point number runes.
func runeOffset(b []byte, runes int) int {
	off := 0
	for i := 0; i < runes && off < len(b); i++ {
		_, n := utf8.DecodeRune(b[off:])
		off += n
	}
	return off
}
