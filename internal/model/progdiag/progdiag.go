// Package progdiag places validation diagnostics (§5.5) in the files they
// are about, so `pilotage validate|run` can print them like every other
// checking command: a json-pointer path (and its optional range inside a
// string) or a text-range path becomes file:line:col with an underlined
// extent, in internal/base/report's Finding model.
package progdiag

import (
	"bytes"
	"errors"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Section is the spec section every diagnostic finding cites.
const Section = "5.5"

// Doc is one file a diagnostic can point into: the program, the input or
// the context.
type Doc struct {
	Name string
	Src  []byte
	// Text is true for a text-valued program (text-range dialect): Src is
	// the program itself, not JSON.
	Text bool
	// parsed says json and bad are set: the file is parsed when the
	// first diagnostic needs it, so a request refused whole (a program
	// or input over its limit) builds no tree of a file it never reads.
	parsed bool
	json   *jsonpos.Doc // nil when Src is not JSON (or Text)
	// bad is where a JSON file that does not parse goes wrong.
	bad *jsonpos.SyntaxError
	// checked says Src is known to be JSON (NewCheckedDoc).
	checked bool
}

// NewDoc prepares a file for locating pointers; src must not change
// while the Doc is used. A JSON file that does not parse is still usable:
// the syntax diagnostic about the whole document (path "") points at the
// syntax error, the others at line 1.
func NewDoc(name string, src []byte, text bool) *Doc {
	return &Doc{Name: name, Src: src, Text: text, parsed: text}
}

// NewCheckedDoc is NewDoc for a file the caller has found to be JSON
// (jsonpos.Check): a diagnostic about the whole of it is placed from its
// first and last bytes, so an input refused for its size is never parsed.
func NewCheckedDoc(name string, src []byte) *Doc {
	return &Doc{Name: name, Src: src, checked: true}
}

// parse reads the JSON file once, on first use.
func (d *Doc) parse() *Doc {
	if !d.parsed {
		d.parsed = true
		pd, err := jsonpos.ParseShared(d.Src)
		if err == nil {
			d.json = pd
		}
		errors.As(err, &d.bad)
	}
	return d
}

// Files says which document each diagnostic points into: input_binding
// into Input and context_binding into Context (§5.5), all others into
// Program. A nil Input or Context falls back to Program.
type Files struct {
	Program, Input, Context *Doc
}

func (f Files) of(code string) *Doc {
	switch {
	case code == pilotage.CodeInputBinding && f.Input != nil:
		return f.Input
	case code == pilotage.CodeContextBinding && f.Context != nil:
		return f.Context
	}
	return f.Program
}

// Findings converts diagnostics to findings, in their order. Severities
// outside the closed set are errors (§1.3's fallback).
func Findings(diags []pilotage.Diagnostic, files Files) []report.Finding {
	return CappedFindings(diags, files, nil)
}

// CappedFindings is Findings of the diagnostics c admits (report.Cap,
// a rule being a code), c nil admitting all: a diagnostic left out is
// never placed, so a program with a diagnostic per step costs a finding
// per listed one.
func CappedFindings(diags []pilotage.Diagnostic, files Files, c *report.Cap) []report.Finding {
	var out []report.Finding
	if c == nil {
		out = make([]report.Finding, 0, len(diags))
	}
	for _, d := range diags {
		doc := files.of(d.Code)
		if c != nil && !c.Admit(report.Finding{Rule: d.Code, Section: Section, Severity: severity(d.Severity), File: doc.Name}) {
			continue
		}
		whole := doc.checked && !doc.parsed && d.Path.Text == nil && d.Path.Pointer == "" && d.Range == nil
		if d.Path.Text == nil && !whole {
			doc.parse()
		}
		f := report.Finding{Rule: d.Code, Section: Section, Severity: severity(d.Severity), Message: d.Message,
			File: doc.Name, Pointer: d.Path.Pointer, Hint: d.Hint}
		switch {
		case whole:
			// The value is all of the file but its surrounding whitespace.
			const ws = " \t\r\n"
			start := len(doc.Src) - len(bytes.TrimLeft(doc.Src, ws))
			place(&f, &jsonpos.Doc{Src: doc.Src}, start, len(bytes.TrimRight(doc.Src, ws)))
		case d.Path.Text != nil:
			f.Pointer = ""
			f.Line, f.Column = d.Path.Text.Start.Line, d.Path.Text.Start.Column
			f.EndLine, f.EndColumn = d.Path.Text.End.Line, d.Path.Text.End.Column
		case doc.json != nil:
			locate(doc, d, &f)
		case doc.bad != nil && d.Code == pilotage.CodeSyntax && d.Path.Pointer == "":
			// The engine's "not valid JSON" diagnostic: at the bad
			// character, as lint places malformed JSON.
			f.Pointer = ""
			f.Line, f.Column = doc.bad.Pos.Line, doc.bad.Pos.Column
		default:
			f.Line, f.Column = 1, 1
		}
		out = append(out, f)
	}
	return out
}

func severity(s string) report.Severity {
	switch s {
	case pilotage.SeverityWarning:
		return report.Warning
	case pilotage.SeverityInfo:
		return report.Info
	}
	return report.Error
}

// locate places a json-pointer diagnostic: the value at path (or its
// deepest existing ancestor), narrowed to range when the value is a string
// and the range fits inside it.
func locate(doc *Doc, d pilotage.Diagnostic, f *report.Finding) {
	pos, resolved := doc.json.Locate(d.Path.Pointer, false)
	f.Line, f.Column = pos.Line, pos.Column
	if resolved != d.Path.Pointer {
		return // the value is missing: point at its parent, no extent
	}
	n := doc.json.Root.At(d.Path.Pointer)
	if !n.Exists() {
		return
	}
	start, end := n.Start(), n.End()
	if d.Range != nil && n.Kind() == jsonpos.String {
		s, e, ok := rawRange(doc.Src[n.Start():n.End()], d.Range.Start, d.Range.End)
		if ok {
			start, end = n.Start()+s, n.Start()+e
		}
	}
	place(f, doc.json, start, end)
}

// place sets f's position to the byte range [start, end) of pd's source,
// with an extent when the range is on one line.
func place(f *report.Finding, pd *jsonpos.Doc, start, end int) {
	sp, ep := pd.Position(start), pd.Position(end)
	f.Line, f.Column = sp.Line, sp.Column
	if ep.Line == sp.Line {
		f.EndLine, f.EndColumn = ep.Line, ep.Column
	}
}

// rawRange maps code-point offsets [from, to) of a string's value to byte
// offsets in its quoted JSON text, walking escapes: "\u00e9" is one code
// point spanning six bytes, a surrogate pair one code point spanning
// twelve.
func rawRange(raw []byte, from, to int) (start, end int, ok bool) {
	if from < 0 || to < from || len(raw) < 2 {
		return 0, 0, false
	}
	start, end = -1, -1
	cp := 0
	i := 1 // past the opening quote
	for i < len(raw)-1 {
		if cp == from {
			start = i
		}
		if cp == to {
			end = i
			break
		}
		i += width(raw, i)
		cp++
	}
	if cp == from && start < 0 {
		start = i
	}
	if cp == to && end < 0 {
		end = i
	}
	return start, end, start >= 0 && end >= 0
}

// width is the byte length of the one code point that starts at raw[i].
func width(raw []byte, i int) int {
	if raw[i] != '\\' {
		_, w := utf8.DecodeRune(raw[i:])
		return w
	}
	if i+1 < len(raw) && raw[i+1] == 'u' {
		// A high surrogate followed by an escaped low one is one code point.
		if i+12 <= len(raw) && isHighSurrogate(raw[i+2:i+6]) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			return 12
		}
		return min(6, len(raw)-i)
	}
	return min(2, len(raw)-i)
}

func isHighSurrogate(hex []byte) bool {
	return len(hex) == 4 && (hex[0] == 'd' || hex[0] == 'D') && (hex[1] >= '8' && hex[1] <= '9' || hex[1] >= 'a' && hex[1] <= 'b' || hex[1] >= 'A' && hex[1] <= 'B')
}
