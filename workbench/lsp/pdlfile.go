package lsp

import (
	"bytes"
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
)

func isPDL(path string) bool { return pdllint.IsPDL(path) }

// ruleInfos describes every rule lint reports, for codeDescription links.
var ruleInfos = func() map[string]report.RuleInfo {
	m := map[string]report.RuleInfo{}
	for _, r := range pdllint.Rules(rules.All()) {
		m[r.ID] = r
	}
	return m
}()

// analysePDL is `pilotage lint FILE.pdl` on the editor's text, under the
// pilotage.yaml that governs the file, as diagnostics.
func (s *server) analysePDL(path, uri string, text []byte) *lspserve.Analysis {
	rep, err := pdllint.Run(rules.All(), []*lint.Input{{File: path, Src: text}}, lint.Config{Disabled: map[string]bool{}, MaxPerRule: report.DefaultMaxPerRule})
	if err != nil {
		return &lspserve.Analysis{Diags: map[string][]protocol.Diagnostic{uri: {lspserve.ErrorDiag(err.Error())}}}
	}
	if apply := s.project(path).Apply; apply != nil {
		apply(rep)
	}
	return &lspserve.Analysis{Diags: s.diagnostics(rep.Findings, path, uri, text, rep.Sources)}
}

// diagnostics converts findings to LSP diagnostics by file: columns from
// code points to UTF-16 units, the rule as code with its docs page.
func (s *server) diagnostics(fs []report.Finding, path, uri string, text []byte, sources map[string][]byte) map[string][]protocol.Diagnostic {
	out := map[string][]protocol.Diagnostic{}
	texts := map[string]*textpos.Text{path: textpos.New(text)}
	for _, f := range fs {
		if f.Suppressed() {
			continue
		}
		t := texts[f.File]
		if t == nil {
			t = textpos.New(sources[f.File])
			texts[f.File] = t
		}
		u := uri
		if f.File != path {
			u = lspserve.URIOf(f.File)
		}
		out[u] = append(out[u], s.diagnostic(f, t))
	}
	return out
}

func (s *server) diagnostic(f report.Finding, t *textpos.Text) protocol.Diagnostic {
	sl, sc := t.ToUTF16(f.Line, f.Column)
	r := protocol.Range{Start: protocol.Position{Line: sl, Character: sc}}
	if f.EndLine > 0 {
		el, ec := t.ToUTF16(f.EndLine, f.EndColumn)
		r.End = protocol.Position{Line: el, Character: ec}
	} else {
		// No end known: underline the name at the start.
		off := t.Offset(sl, sc)
		r.End = rangeOf(t, off, wordEnd(t.Source(), off)).End
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
		Message: fmt.Sprintf("%s (%s)", f.Message, report.Cite(f.Section)),
	}
	if f.Hint != "" {
		d.Message += "\nhint: " + f.Hint
		d.Data = map[string]string{"hint": f.Hint, "message": f.Message}
	}
	if info, ok := ruleInfos[f.Rule]; ok && info.Doc != "" {
		d.CodeDescription = &protocol.CodeDescription{HRef: s.opt.DocsBase + info.Doc}
	}
	return d
}

// wordEnd is the end of the name or character starting at off.
func wordEnd(src []byte, off int) int {
	end := off
	for end < len(src) && isWordByte(src[end]) {
		end++
	}
	if end == off && end < len(src) && src[end] != '\n' {
		end++
	}
	return end
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c == '/' || c >= 0x80 ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// wordAt is the name under a position and its byte range.
func wordAt(text []byte, off int) (string, int, int) {
	from, to := off, off
	for from > 0 && isWordByte(text[from-1]) {
		from--
	}
	for to < len(text) && isWordByte(text[to]) {
		to++
	}
	return string(text[from:to]), from, to
}

// pdlFacts are the names a PDL file defines, from its syntax tree: the
// tree survives errors the compiler stops at, so an editor mid-edit
// still navigates.
type pdlFacts struct {
	file  *pdl.File
	defs  map[string]*pdl.Stmt // entry, principal, closed-set value and Language names
	order []string
}

func factsOf(path string, text []byte) *pdlFacts {
	f, _ := pdl.Parse(path, text)
	pf := &pdlFacts{file: f, defs: map[string]*pdl.Stmt{}}
	if f == nil {
		return pf
	}
	var walk func([]*pdl.Stmt)
	walk = func(ss []*pdl.Stmt) {
		for _, st := range ss {
			if name := definedName(st); name != "" {
				if _, dup := pf.defs[name]; !dup {
					pf.order = append(pf.order, name)
				}
				pf.defs[name] = st
			}
			walk(st.Children())
		}
	}
	walk(pdl.Stmts(f.Body))
	return pf
}

// definedName is the name a statement defines, "" when none.
func definedName(st *pdl.Stmt) string {
	pos := st.Positional()
	switch st.Keyword {
	case "entry", "principal", "language", "risk", "kind", "diagnostic", "guide":
		if len(pos) > 0 {
			return pos[0].Value.Str()
		}
	case "status":
		if len(pos) > 1 {
			return pos[1].Value.Str()
		}
	}
	return ""
}

// describe is the Markdown hover of a defined name.
func describe(name string, st *pdl.Stmt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s`", st.Keyword, name)
	for _, a := range st.Args {
		if a.Key != "" {
			fmt.Fprintf(&b, " · %s=`%s`", a.Key, a.Value.Str())
		}
	}
	pos := st.Positional()
	if len(pos) > 1 && pos[len(pos)-1].Value.Kind() == pdl.KindString {
		b.WriteString("\n\n" + pos[len(pos)-1].Value.Str())
	}
	for _, c := range st.Children() {
		switch c.Keyword {
		case "name", "description", "input_schema", "output_schema":
			for _, a := range c.Args {
				v := a.Value.Str()
				if a.Key != "" {
					v = a.Key + "=" + v
				}
				if strings.HasSuffix(c.Keyword, "_schema") {
					fmt.Fprintf(&b, "\n\n%s:\n```json\n%s\n```", c.Keyword, v)
				} else {
					fmt.Fprintf(&b, "\n\n%s: %s", c.Keyword, v)
				}
			}
		}
	}
	return b.String()
}

func (s *server) pdlHover(path string, text []byte, off int) *protocol.Hover {
	word, _, _ := wordAt(text, off)
	if word == "" {
		return nil
	}
	pf := factsOf(path, text)
	if st := pf.defs[word]; st != nil {
		return markdown(describe(word, st))
	}
	if st := stmtAt(pf.file, off); st != nil && st.Keyword == word {
		if k, ok := keywordDoc[word]; ok {
			return markdown(fmt.Sprintf("**%s** — %s\n\n%s · [docs/pdl.md#%s](%sdocs/pdl.md#%s)", word, k.meaning, report.Cite(k.section), k.anchor, s.opt.DocsBase, k.anchor))
		}
	}
	return nil
}

func markdown(s string) *protocol.Hover {
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: s}}
}

// stmtAt is the innermost statement whose span holds off.
func stmtAt(f *pdl.File, off int) *pdl.Stmt {
	if f == nil {
		return nil
	}
	var found *pdl.Stmt
	var walk func([]*pdl.Stmt)
	walk = func(ss []*pdl.Stmt) {
		for _, st := range ss {
			if st.Pos.Offset <= off && off <= st.EndPos.Offset {
				found = st
				walk(st.Children())
			}
		}
	}
	walk(pdl.Stmts(f.Body))
	return found
}

// probe is a keyword no place defines, so the compiler's pdl-unknown
// hint lists the keywords that place takes.
const probe = "zzqqxxprobe"

var takes = regexp.MustCompile(` takes: (.*)$`)

// statementsAt asks the compiler which keywords the block around off
// takes: it compiles the text with a probe statement at off and reads
// the list from its finding, so completion never drifts from the
// compiler.
func statementsAt(path string, text []byte, off int) []string {
	line := bytes.LastIndexByte(text[:off], '\n') + 1
	probed := append(append(append([]byte{}, text[:line]...), []byte(probe+"\n")...), text[line:]...)
	res := compile.Source(path, probed, compile.Options{Dir: filepath.Dir(path)})
	for _, f := range res.Findings {
		if f.Rule == pdl.RuleUnknown && strings.Contains(f.Message, probe) {
			if m := takes.FindStringSubmatch(f.Hint); m != nil {
				return strings.Split(m[1], ", ")
			}
		}
	}
	return nil
}

var optionValue = regexp.MustCompile(`\b(kind|risk|level)=("?)[\w.-]*$`)

func (s *server) pdlCompletion(path string, text []byte, off int) []protocol.CompletionItem {
	lineStart := bytes.LastIndexByte(text[:off], '\n') + 1
	before := string(text[lineStart:off])
	pf := factsOf(path, text)
	var items []protocol.CompletionItem
	add := func(label string, kind protocol.CompletionItemKind, detail string) {
		items = append(items, protocol.CompletionItem{Label: label, Kind: &kind, Detail: &detail})
	}
	if strings.TrimSpace(before) == "" || !strings.ContainsAny(strings.TrimSpace(before), " \t\"=") {
		for _, k := range statementsAt(path, text, lineStart) {
			detail := "PDL statement"
			if d, ok := keywordDoc[k]; ok {
				detail = d.meaning
			}
			add(k, protocol.CompletionItemKindKeyword, detail)
		}
		return items
	}
	want := ""
	if m := optionValue.FindStringSubmatch(before); m != nil {
		want = m[1]
	}
	for _, name := range pf.order {
		st := pf.defs[name]
		switch {
		case want == "kind" && st.Keyword == "kind", want == "risk" && st.Keyword == "risk":
			add(name, protocol.CompletionItemKindEnumMember, describe(name, st))
		case want == "" && (st.Keyword == "entry" || st.Keyword == "principal" || st.Keyword == "language"):
			add(name, protocol.CompletionItemKindReference, st.Keyword)
		}
	}
	if want == "level" {
		for _, l := range []string{"core", "reference", "example"} {
			add(l, protocol.CompletionItemKindEnumMember, "guide level (§5.2)")
		}
	}
	return items
}

// occurrences are the places a name appears as a whole name: its
// definition, guide examples, promoted bodies, principals' patterns.
func occurrences(text []byte, name string) [][2]int {
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

func rangeOf(t *textpos.Text, from, to int) protocol.Range {
	return protocol.Range{Start: posOf(t, from), End: posOf(t, to)}
}

func posOf(t *textpos.Text, off int) protocol.Position {
	l, c := t.At(off)
	return protocol.Position{Line: l, Character: c}
}

func stmtRange(t *textpos.Text, from, to lexer.Position) protocol.Range {
	return rangeOf(t, from.Offset, to.Offset)
}

func (s *server) pdlSymbols(path string, text []byte) []protocol.DocumentSymbol {
	pf := factsOf(path, text)
	t := textpos.New(text)
	var conv func([]*pdl.Stmt) []protocol.DocumentSymbol
	conv = func(ss []*pdl.Stmt) []protocol.DocumentSymbol {
		var out []protocol.DocumentSymbol
		for _, st := range ss {
			name := definedName(st)
			if name == "" {
				continue
			}
			kind := map[string]protocol.SymbolKind{"language": protocol.SymbolKindModule, "entry": protocol.SymbolKindFunction,
				"guide": protocol.SymbolKindFile, "principal": protocol.SymbolKindObject}[st.Keyword]
			if kind == 0 {
				kind = protocol.SymbolKindEnumMember
			}
			detail := st.Keyword
			r := stmtRange(t, st.Pos, st.EndPos)
			out = append(out, protocol.DocumentSymbol{Name: name, Detail: &detail, Kind: kind, Range: r, SelectionRange: r, Children: conv(st.Children())})
		}
		return out
	}
	if pf.file == nil {
		return nil
	}
	return conv(pdl.Stmts(pf.file.Body))
}

// fixOf is the edit a finding's did-you-mean hint makes: the misspelled
// name the message quotes, inside the finding's range, becomes the
// suggestion.
var didYouMean = regexp.MustCompile(`did you mean (\S+?)\?`)

func fixOf(text []byte, t *textpos.Text, d protocol.Diagnostic) (string, *protocol.TextEdit) {
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
		if w != "" && w != m[1] && len(occurrences(text[from:to], w)) > 0 {
			words = append(words, w)
		}
	}
	if w := suggest.Closest(m[1], words); w != "" {
		occ := occurrences(text[from:to], w)[0]
		r := rangeOf(t, from+occ[0], from+occ[1])
		return fmt.Sprintf("Change %s to %s", w, m[1]), &protocol.TextEdit{Range: r, NewText: m[1]}
	}
	return "", nil
}

func (s *server) pdlDefinition(path string, text []byte, off int) []protocol.Location {
	word, _, _ := wordAt(text, off)
	st := factsOf(path, text).defs[word]
	if st == nil {
		return nil
	}
	t := textpos.New(text)
	a := st.Positional()
	if st.Keyword == "status" {
		a = a[1:]
	}
	return []protocol.Location{{URI: lspserve.URIOf(path), Range: rangeOf(t, a[0].Pos.Offset, a[0].EndPos.Offset)}}
}

func (s *server) pdlReferences(uri string, text []byte, off int, withDecl bool, path string) []protocol.Location {
	word, _, _ := wordAt(text, off)
	if factsOf(path, text).defs[word] == nil {
		return nil
	}
	t := textpos.New(text)
	def := s.pdlDefinition(path, text, off)
	var out []protocol.Location
	for _, o := range occurrences(text, word) {
		r := rangeOf(t, o[0], o[1])
		if !withDecl && len(def) > 0 && def[0].Range.Start == r.Start {
			continue
		}
		out = append(out, protocol.Location{URI: uri, Range: r})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Range.Start.Line < out[j].Range.Start.Line })
	return out
}

func (s *server) pdlFormat(path string, text []byte) ([]protocol.TextEdit, error) {
	out, findings := pdl.FormatSource(path, text)
	if len(findings) > 0 {
		f := findings[0]
		return nil, fmt.Errorf("%s:%d:%d: %s; fix the syntax first (pilotage fmt formats only well-formed files)", filepath.Base(path), f.Line, f.Column, f.Message)
	}
	if bytes.Equal(out, text) {
		return []protocol.TextEdit{}, nil
	}
	t := textpos.New(text)
	return []protocol.TextEdit{{Range: rangeOf(t, 0, len(text)), NewText: string(out)}}, nil
}
