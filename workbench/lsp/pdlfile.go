package lsp

import (
	"bytes"
	"fmt"
	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/report"
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

// docLink is the page documenting a rule, "" for a code no rule has (a
// validate diagnostic).
func (s *server) docLink(rule string) string {
	if rule == settingsCode {
		return s.opt.DocsBase + settingsDoc
	}
	if info, ok := ruleInfos[rule]; ok && info.Doc != "" {
		return s.opt.DocsBase + info.Doc
	}
	return ""
}

// analysePDL is `pilotage lint FILE.pdl` on the editor's text, under the
// pilotage.yaml that governs the file, as diagnostics.
func (s *server) analysePDL(path, uri string, text []byte, p Project) *lspserve.Analysis {
	rep, err := pdllint.Run(rules.All(), []*lint.Input{{File: path, Src: text}}, lint.Config{Disabled: map[string]bool{}, MaxPerRule: report.DefaultMaxPerRule})
	if err != nil {
		return &lspserve.Analysis{Diags: map[string][]protocol.Diagnostic{uri: {lspserve.ErrorDiag(err.Error())}}}
	}
	if p.Apply != nil {
		p.Apply(rep)
	}
	res := &lspserve.Analysis{Diags: lspserve.Diagnostics(rep.Findings, path, uri, text, rep.Sources, s.docLink)}
	if len(p.Problems) > 0 {
		res.Diags[uri] = append(res.Diags[uri], s.unavailable(path, p, "its rule settings and suppressions are not applied to this file"))
	}
	return res
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
	// A document's text is replaced, never changed: the tree's strings
	// are views of it.
	f, _ := pdl.ParseShared(path, text)
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
	word, from, _ := lspserve.WordAt(text, off)
	if word == "" {
		return nil
	}
	pf := factsOf(path, text)
	st := stmtAt(pf.file, off)
	atKeyword := st != nil && st.Keyword == word && int(st.Pos.Offset) == from
	def := pf.defs[word]
	if def != nil && (def.Keyword == "entry" || def.Keyword == "principal" || def.Keyword == "language" || def.Keyword == "guide") {
		return lspserve.Markdown(describe(word, def))
	}
	// A closed-set value, a bare word where it is declared or used, reads
	// as the closed-sets guide states it; a keyword reads as a keyword,
	// and words inside strings and schemas are not values.
	if !atKeyword && bareWordAt(st, from) {
		if doc := subFeatureHover(pf.file, off, from, word); doc != "" {
			return lspserve.Markdown(doc)
		}
		if doc := closedValueHover(path, text, off, word); doc != "" {
			return lspserve.Markdown(doc)
		}
	}
	if def != nil {
		return lspserve.Markdown(describe(word, def))
	}
	if atKeyword {
		if k, ok := keywordDoc[word]; ok {
			return lspserve.Markdown(fmt.Sprintf("**%s** — %s\n\n%s · [docs/pdl.md#%s](%sdocs/pdl.md#%s)", word, k.meaning, report.Cite(k.section), k.anchor, s.opt.DocsBase, k.anchor))
		}
	}
	return nil
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
			if int(st.Pos.Offset) <= off && off <= int(st.EndPos.Offset) {
				found = st
				walk(st.Children())
			}
		}
	}
	walk(pdl.Stmts(f.Body))
	return found
}

// parentIs reports whether st sits directly in a block of keyword kw.
func parentIs(f *pdl.File, st *pdl.Stmt, kw string) bool {
	var in func(parent *pdl.Stmt, ss []*pdl.Stmt) bool
	in = func(parent *pdl.Stmt, ss []*pdl.Stmt) bool {
		for _, c := range ss {
			if c == st {
				return parent != nil && parent.Keyword == kw
			}
			if in(c, c.Children()) {
				return true
			}
		}
		return false
	}
	return in(nil, pdl.Stmts(f.Body))
}

// probe is a keyword no place defines, so the compiler's pdl-unknown
// hint lists the keywords that place takes.
const probe = "zzqqxxprobe"

var takes = regexp.MustCompile(` takes: (.*)$`)

// statementsAt asks the compiler which keywords the block around off
// takes: it compiles the text with a probe statement at off and reads
// the list from its finding, so completion never drifts from the
// compiler. Only the top-level statement around off is compiled, or the
// probe alone between them (f, the file's tree, says which; nil: the
// whole text): the keywords a block takes do not depend on the
// statements beside it, and a compile of a 3 MB file held as much
// memory as its analysis.
func statementsAt(path string, f *pdl.File, text []byte, off int) []string {
	line := bytes.LastIndexByte(text[:off], '\n') + 1
	from, to := 0, len(text)
	if f != nil {
		from, to = line, line
		for _, st := range pdl.Stmts(f.Body) {
			// A statement ends after its line end; a tree of a text
			// mid-edit may end past the text.
			start, end := min(int(st.Pos.Offset), len(text)), min(int(st.EndPos.Offset), len(text))
			if start < line && line < end {
				from, to = bytes.LastIndexByte(text[:start], '\n')+1, len(text)
				if i := bytes.IndexByte(text[end-1:], '\n'); i >= 0 {
					to = end + i
				}
				break
			}
		}
	}
	probed := append(append(append([]byte{}, text[from:line]...), []byte(probe+"\n")...), text[line:to]...)
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
	// A capability's sub-features (§4.1), after its name in a
	// capabilities block.
	if st := stmtAt(pf.file, off); st != nil && int(st.Pos.Offset) >= lineStart && strings.ContainsAny(strings.TrimLeft(before, " \t"), " \t") {
		for _, spec := range pilotage.CapabilityTable {
			if spec.Name == st.Keyword && parentIs(pf.file, st, "capabilities") {
				for _, sub := range spec.SubFeatures {
					add(sub, protocol.CompletionItemKindEnumMember, "sub-feature of "+spec.Name+" (§4.1)")
				}
				return items
			}
		}
	}
	if strings.TrimSpace(before) == "" || !strings.ContainsAny(strings.TrimSpace(before), " \t\"=") {
		for _, k := range statementsAt(path, pf.file, text, lineStart) {
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

func stmtRange(t *textpos.Text, from, to pdl.Pos) protocol.Range {
	return lspserve.RangeOf(t, int(from.Offset), int(to.Offset))
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

func (s *server) pdlDefinition(path string, text []byte, off int) []protocol.Location {
	word, _, _ := lspserve.WordAt(text, off)
	st := factsOf(path, text).defs[word]
	if st == nil {
		return nil
	}
	t := textpos.New(text)
	a := st.Positional()
	if st.Keyword == "status" {
		a = a[1:]
	}
	return []protocol.Location{{URI: lspserve.URIOf(path), Range: lspserve.RangeOf(t, int(a[0].Pos.Offset), int(a[0].End().Offset))}}
}

func (s *server) pdlReferences(uri string, text []byte, off int, withDecl bool, path string) []protocol.Location {
	word, _, _ := lspserve.WordAt(text, off)
	pf := factsOf(path, text)
	st := pf.defs[word]
	if st == nil {
		return nil
	}
	t := textpos.New(text)
	def := s.pdlDefinition(path, text, off)
	var out []protocol.Location
	for _, o := range lspserve.Occurrences(text, word) {
		r := lspserve.RangeOf(t, o[0], o[1])
		if !withDecl && len(def) > 0 && def[0].Range.Start == r.Start {
			continue
		}
		out = append(out, protocol.Location{URI: uri, Range: r})
	}
	// An entry is also used by the principals' sees patterns that match
	// it (§10.3), which name it only by a glob.
	if st.Keyword == "entry" {
		var walk func([]*pdl.Stmt)
		walk = func(ss []*pdl.Stmt) {
			for _, c := range ss {
				for _, a := range c.Positional() {
					if ok, _ := pathpkg.Match(a.Value.Str(), word); c.Keyword == "sees" && ok && a.Value.Str() != word {
						out = append(out, protocol.Location{URI: uri, Range: lspserve.RangeOf(t, int(a.Pos.Offset), int(a.End().Offset))})
					}
				}
				walk(c.Children())
			}
		}
		walk(pdl.Stmts(pf.file.Body))
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
	return []protocol.TextEdit{{Range: lspserve.RangeOf(t, 0, len(text)), NewText: string(out)}}, nil
}
