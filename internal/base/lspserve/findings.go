package lspserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// Diagnostics converts findings to LSP diagnostics by file: columns from
// code points to UTF-16 units, the rule as code with the page link gives.
func Diagnostics(fs []report.Finding, path, uri string, text []byte, sources map[string][]byte, link func(rule string) string) map[string][]protocol.Diagnostic {
	out := map[string][]protocol.Diagnostic{}
	// A file's line table is made for its first finding: a large file
	// without findings needs none.
	texts := map[string]*textpos.Text{}
	for _, f := range fs {
		if f.Suppressed() {
			continue
		}
		t := texts[f.File]
		if t == nil {
			src := sources[f.File]
			if f.File == path {
				src = text
			}
			t = textpos.New(src)
			texts[f.File] = t
		}
		u := uri
		if f.File != path {
			u = URIOf(f.File)
		}
		out[u] = append(out[u], diagnostic(f, t, link(f.Rule)))
	}
	return out
}

func diagnostic(f report.Finding, t *textpos.Text, link string) protocol.Diagnostic {
	sl, sc := t.ToUTF16(f.Line, f.Column)
	r := protocol.Range{Start: protocol.Position{Line: sl, Character: sc}}
	if f.EndLine > 0 {
		el, ec := t.ToUTF16(f.EndLine, f.EndColumn)
		r.End = protocol.Position{Line: el, Character: ec}
	} else {
		// No end known: underline the name at the start.
		off := t.Offset(sl, sc)
		r.End = RangeOf(t, off, wordEnd(t.Source(), off)).End
	}
	sev := map[report.Severity]protocol.DiagnosticSeverity{report.Error: protocol.DiagnosticSeverityError,
		report.Warning: protocol.DiagnosticSeverityWarning, report.Info: protocol.DiagnosticSeverityInformation}[f.Severity]
	if sev == 0 {
		sev = protocol.DiagnosticSeverityError
	}
	src := "pilotage"
	d := protocol.Diagnostic{
		Range:    r,
		Severity: &sev, Source: &src, Code: &protocol.IntegerOrString{Value: f.Rule},
		Message: f.Message,
	}
	if f.Section != "" {
		d.Message += " (" + report.Cite(f.Section) + ")"
	}
	if f.Hint != "" {
		d.Message += "\nhint: " + f.Hint
		d.Data = map[string]string{"hint": f.Hint, "message": f.Message}
	}
	if link != "" {
		d.CodeDescription = &protocol.CodeDescription{HRef: link}
	}
	return d
}

// wordEnd is the end of the name, quoted string (to its closing quote
// on the line) or character starting at off: what the CLI's snippet
// underlines.
func wordEnd(src []byte, off int) int {
	if off < len(src) && src[off] == '"' {
		for i := off + 1; i < len(src) && src[i] != '\n'; i++ {
			switch src[i] {
			case '\\':
				if i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
			case '"':
				return i + 1
			}
		}
	}
	end := off
	for end < len(src) && isWordByte(src[end]) {
		end++
	}
	if end == off && end < len(src) && src[end] != '\n' {
		end++
	}
	return end
}

// isWordByte reports whether c can be part of a name (entry ids have dots and dashes).
func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c == '/' || c >= 0x80 ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// WordAt is the name under a position and its byte range.
func WordAt(text []byte, off int) (string, int, int) {
	from, to := off, off
	for from > 0 && isWordByte(text[from-1]) {
		from--
	}
	for to < len(text) && isWordByte(text[to]) {
		to++
	}
	return string(text[from:to]), from, to
}

func Markdown(s string) *protocol.Hover {
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: s}}
}

// Occurrences are the places a name appears as a whole name: its
// definition, guide examples, promoted bodies, principals' patterns.
func Occurrences(text []byte, name string) [][2]int {
	var out [][2]int
	for i := 0; name != ""; {
		j := bytes.Index(text[i:], []byte(name))
		if j < 0 {
			break
		}
		from, to := i+j, i+j+len(name)
		if (from == 0 || !isWordByte(text[from-1])) && (to == len(text) || !isWordByte(text[to])) {
			out = append(out, [2]int{from, to})
		}
		i = to
	}
	return out
}

func RangeOf(t *textpos.Text, from, to int) protocol.Range {
	return protocol.Range{Start: posOf(t, from), End: posOf(t, to)}
}

func posOf(t *textpos.Text, off int) protocol.Position {
	l, c := t.At(off)
	return protocol.Position{Line: l, Character: c}
}

// FixOf is the edit a finding's did-you-mean hint makes: the misspelled
// name the message quotes, inside the finding's range, becomes the
// suggestion.
var didYouMean = regexp.MustCompile(`did you mean (\S+?)\?`)

func FixOf(text []byte, t *textpos.Text, d protocol.Diagnostic) (string, *protocol.TextEdit) {
	data, _ := d.Data.(map[string]any)
	hint, _ := data["hint"].(string)
	msg, _ := data["message"].(string)
	m := didYouMean.FindStringSubmatch(hint)
	if m == nil {
		return "", nil
	}
	from, to := t.Offset(d.Range.Start.Line, d.Range.Start.Character), t.Offset(d.Range.End.Line, d.Range.End.Character)
	if to < from || to > len(text) {
		return "", nil
	}
	// The misspelling is the word of the message, inside the range,
	// nearest to the suggestion ("risk wirte" → wirte, not risk).
	var words []string
	for _, w := range strings.Fields(msg) {
		w = strings.Trim(w, `"'.,:;()`)
		if w != "" && w != m[1] && len(Occurrences(text[from:to], w)) > 0 {
			words = append(words, w)
		}
	}
	if w := suggest.Closest(m[1], words); w != "" {
		occ := Occurrences(text[from:to], w)[0]
		r := RangeOf(t, from+occ[0], from+occ[1])
		return fmt.Sprintf("Change %s to %s", w, m[1]), &protocol.TextEdit{Range: r, NewText: m[1]}
	}
	return "", nil
}

// RestoreCodes gives the diagnostics of a codeAction request the codes
// the client sent in params, the request's raw params. glsp decodes
// every code as a code with no value, which a response echoing them
// would send as "code": null: its IntegerOrString.UnmarshalJSON has a
// value receiver. A null or absent code is left out.
func RestoreCodes(params json.RawMessage, ds []protocol.Diagnostic) {
	var p struct {
		Context struct {
			Diagnostics []struct {
				Code json.RawMessage `json:"code"`
			} `json:"diagnostics"`
		} `json:"context"`
	}
	json.Unmarshal(params, &p)
	sent := p.Context.Diagnostics
	for i := range ds {
		ds[i].Code = nil
		if i >= len(sent) || string(sent[i].Code) == "null" {
			continue
		}
		var str string
		var n protocol.Integer
		if json.Unmarshal(sent[i].Code, &str) == nil {
			ds[i].Code = &protocol.IntegerOrString{Value: str}
		} else if json.Unmarshal(sent[i].Code, &n) == nil {
			ds[i].Code = &protocol.IntegerOrString{Value: n}
		}
	}
}
