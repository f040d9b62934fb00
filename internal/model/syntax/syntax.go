// Package syntax is the seam between a Language's program text and the
// step model: each Syntax decodes a program, parses it into
// internal/model/program with positions, and places findings in the
// Language's locator dialect (§5.5). JSON, the JSON step model sent as a
// string, and the text surface a PDL `syntax text` block declares are its
// implementations; nothing else branches on how a program is written.
package syntax

import (
	"bytes"
	"encoding/json"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// Syntax reads the programs of one Language.
type Syntax interface {
	// Locator is the §5.5 dialect its diagnostics' paths are in.
	Locator() string
	// Parse reads a program's characters (Source of the program
	// argument) into the step model. A program nested deeper than
	// maxDepth constructs, or of more steps than the Language's steps
	// limit, gives a *program.LimitError.
	Parse(src []byte, maxDepth int) (*Parsed, error)
	// Example reports whether a guide's fenced code block, with info
	// string info and content, is an example program of the Language
	// (checked when the Language is built and linted).
	Example(info string, content []byte) bool
	// Paths is the closed-sets guide's paragraph after the Diagnostic
	// codes table: how a diagnostic's path locates a finding (§5.5).
	Paths() string
	// StepIdentifiers is the closed-sets guide's Step identifiers
	// section: where a step's id comes from (§3.4).
	StepIdentifiers() string
	// Pointers reports whether authors write the JSON form, so that a
	// message may name a finding's JSON Pointer to them.
	Pointers() bool
}

// For is the Syntax of a compiled Language: the text surface when its
// PDL declares `syntax text`, else the JSON step model, sent as a value
// (json-pointer) or as a string (text-range).
func For(l *language.Language) Syntax {
	if l.Text != nil {
		return newText(l)
	}
	return &jsonSyntax{g: &l.Grammar, stringed: Textual(l.Locator), steps: l.Limits.WithDefaults().Steps}
}

// Parsed is a program read by a Syntax. Its syntax diagnostics, and the
// diagnostics program.Check gives it, are in the step model's own form
// (JSON Pointers into the program's JSON form, ranges inside expression
// strings) until Locate places them.
type Parsed struct {
	Program *program.Program
	// Diagnostics are the syntax diagnostics; Program is usable only when
	// they are valid (pilotage.Valid).
	Diagnostics []pilotage.Diagnostic
	locate      func([]pilotage.Diagnostic) []pilotage.Diagnostic
	span        func(pilotage.Diagnostic) (start, end pilotage.LineCol)
	place       func(string) string
}

// Place is program.Env's Place for this program: where a step model's
// JSON Pointer is in its text, as a message names it; nil for a program
// written as JSON, whose pointers are its author's.
func (p *Parsed) Place() func(ptr string) string { return p.place }

// Locate returns diags with their paths in the Language's dialect (§5.5),
// as validate answers them.
func (p *Parsed) Locate(diags []pilotage.Diagnostic) []pilotage.Diagnostic {
	return p.locate(diags)
}

// Span is where diagnostic d (in the step model's form) is in the program
// text, as 1-based lines and columns counting code points; end is the
// zero LineCol when the extent is unknown or spans lines.
func (p *Parsed) Span(d pilotage.Diagnostic) (start, end pilotage.LineCol) {
	return p.span(d)
}

// ParseHeld is s.Parse for a caller that holds src, unchanged, as long
// as it holds the program: a program in JSON keeps views of src's bytes,
// not copies (program.ParseHeld).
func ParseHeld(s Syntax, src []byte, maxDepth int) (*Parsed, error) {
	if js, ok := s.(*jsonSyntax); ok {
		return js.parse(src, maxDepth, program.ParseHeld)
	}
	return s.Parse(src, maxDepth)
}

// Source is the program's characters in the program argument raw as
// sent: a text-range program is a JSON string holding the text
// (binding.md); anything else, and a string argument that does not
// decode, is its own bytes, which the Syntax then reports on.
func Source(locator string, raw json.RawMessage) []byte {
	if Textual(locator) {
		var text string
		if json.Unmarshal(raw, &text) == nil {
			return []byte(text)
		}
	}
	return raw
}

// SentAsValue rewrites the hint of the syntax error the text surface
// gives raw, the program argument of l, when l's programs are text
// (`syntax text`) and raw is a JSON value other than a string: the
// program is then the value's JSON, which no statement starts as, and
// the mistake is how it was sent (binding.md), not how it was written. A
// text-range Language without a surface reads such a value as its JSON
// form, so has nothing to rewrite.
func SentAsValue(l *language.Language, raw json.RawMessage, diags []pilotage.Diagnostic) {
	v := bytes.TrimLeft(raw, " \t\r\n")
	if l.Text == nil || len(diags) == 0 || diags[0].Code != pilotage.CodeSyntax || len(v) == 0 || v[0] == '"' {
		return
	}
	kind := "a JSON value"
	switch v[0] {
	case '{':
		kind = "a JSON object"
	case '[':
		kind = "a JSON array"
	}
	diags[0].Hint = `a text-range Language takes "program" as a JSON string holding the program's text (binding.md); this one was sent as ` + kind
}

// Textual reports whether the programs of a Language of dialect locator
// are text: sent as a JSON string, located by line and column (§5.5).
func Textual(locator string) bool { return locator == pilotage.LocatorTextRange }

// Wire is the program argument for the bytes of a program file: a
// text-range program travels as a JSON string holding the text
// (binding.md), a json-pointer program as the JSON value itself. textual
// reports which.
func Wire(locator string, src []byte) (raw json.RawMessage, textual bool) {
	if Textual(locator) {
		raw, _ = json.Marshal(string(src))
		return raw, true
	}
	return json.RawMessage(src), false
}

// ProgramSchema is the JSON Schema of the validate and execute tools'
// `program` argument in a Language of dialect locator, nil when the
// generic one (any JSON value) stands.
func ProgramSchema(locator string) map[string]any {
	if Textual(locator) {
		return map[string]any{"type": "string", "description": "the program text"}
	}
	return nil
}

// MalformedJSON is the finding validate gives a JSON program src, the
// file name, that is not JSON: its syntax diagnostic, placed at the byte
// where it goes wrong; nil when src is JSON. It is for a caller that
// checks a program before it has the Language to parse it with (pilotage
// conform, before it starts the server), so it holds no tree of a
// program that is JSON (jsonpos.Check).
func MalformedJSON(name string, src []byte) *report.Finding {
	err := jsonpos.Check(src)
	if err == nil {
		return nil
	}
	f := progdiag.Findings([]pilotage.Diagnostic{program.NotJSON(src, err)}, progdiag.Files{Program: progdiag.NewDoc(name, src, false)})[0]
	return &f
}
