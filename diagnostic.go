package pilotage

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Diagnostic is one validation finding (§5.5).
type Diagnostic struct {
	Code     string     `json:"code"`
	Severity string     `json:"severity"`
	Message  string     `json:"message"`
	Path     Path       `json:"path"`
	Range    *CharRange `json:"range,omitempty"`
	Hint     string     `json:"hint,omitempty"`
}

// Diagnostic severities (§5.5), a closed set.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Reserved diagnostic codes (§5.5, data-model.md).
const (
	CodeSyntax         = "syntax"
	CodeUnknownName    = "unknown_name"
	CodeConstraint     = "constraint"
	CodeInputBinding   = "input_binding"
	CodeContextBinding = "context_binding"
)

// ReservedCodes lists the codes every Language's diagnostic set contains.
var ReservedCodes = []string{CodeSyntax, CodeUnknownName, CodeConstraint, CodeInputBinding, CodeContextBinding}

// Path is a diagnostic `path`: a JSON Pointer (json-pointer dialect) or a
// text range (text-range dialect).
type Path struct {
	Pointer string
	Text    *TextRange
}

// TextRange is the text-range dialect's `path` (§5.5), 1-based.
type TextRange struct {
	Start LineCol `json:"start"`
	End   LineCol `json:"end"`
}

// LineCol is a 1-based line and column.
type LineCol struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// CharRange is the optional `range` inside the string at `path`:
// 0-based, end-exclusive code-point offsets (data-model.md §5.5).
type CharRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// PointerPath returns a json-pointer Path.
func PointerPath(p string) Path { return Path{Pointer: p} }

// MarshalJSON writes the pointer string or the range object.
func (p Path) MarshalJSON() ([]byte, error) {
	if p.Text != nil {
		return json.Marshal(p.Text)
	}
	return json.Marshal(p.Pointer)
}

// UnmarshalJSON reads either dialect.
func (p *Path) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var t TextRange
		if err := json.Unmarshal(data, &t); err != nil {
			return err
		}
		*p = Path{Text: &t}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("path must be a JSON Pointer string or a text range object")
	}
	*p = Path{Pointer: s}
	return nil
}

// Valid reports whether diags make a program valid: no error severity (§5.5).
func Valid(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return false
		}
	}
	return true
}
