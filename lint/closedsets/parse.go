package closedsets

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Parsed is a closed-sets guide read back from Markdown.
type Parsed struct {
	// Sets holds what the recognised sections enumerate.
	Sets Sets
	// Sections maps each recognised section title (canonical spelling) to
	// where it starts.
	Sections map[string]Section
	// Values maps a section title to the line of each value in its table,
	// so findings about one value can point at its row.
	Values map[string]map[string]int
	// Problems are places where the guide does not follow the format; a
	// section with a problem may be incomplete in Sets.
	Problems []Problem
}

// Section locates one recognised section.
type Section struct {
	Title string
	// Line is the 1-based line of the heading in the body.
	Line int
	// HasTable is true when a GFM table follows the heading in the section.
	HasTable bool
}

// Problem is a departure from closed-sets-format.md.
type Problem struct {
	Section string
	Line    int
	Message string
}

// Has reports whether the guide has the named section.
func (p *Parsed) Has(title string) bool {
	_, ok := p.Sections[title]
	return ok
}

var md = goldmark.New(goldmark.WithExtensions(extension.Table))

// known lists the recognised section titles.
var known = []string{SecDiagnosticCodes, SecCatalogKinds, SecRiskLevels, SecScopeRules, SecParameterBinding,
	SecStepIdentifiers, SecRunStatuses, SecStepStatuses, SecSummaryTruncation, SecOutput, SecLoopDecisions}

// tableColumns gives the required columns of tabled sections; optional
// columns are listed in optionalColumns.
var tableColumns = map[string][]string{
	SecDiagnosticCodes: ColsDiagnosticCodes,
	SecCatalogKinds:    ColsCatalogKinds,
	SecRiskLevels:      ColsRiskLevels,
	SecRunStatuses:     ColsStatuses,
	SecStepStatuses:    ColsStatuses,
}

var optionalColumns = map[string]bool{"promoted": true, "meaning": true}

// Parse reads a closed-sets guide body. It never fails: whatever does not
// follow the format is listed in Problems.
func Parse(body []byte) *Parsed {
	src := body
	doc := md.Parser().Parse(text.NewReader(src))
	p := &Parsed{Sections: map[string]Section{}, Values: map[string]map[string]int{}}
	lineOf := lineIndex(src)

	current := "" // canonical title of the section being read, "" when unrecognised
	var prose strings.Builder
	flushProse := func() {
		if current != "" {
			p.setProse(current, strings.TrimSpace(prose.String()))
		}
		prose.Reset()
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch node := n.(type) {
		case *ast.Heading:
			if node.Level > 2 {
				if current != "" {
					prose.WriteString(plain(node, src) + "\n")
				}
				continue
			}
			flushProse()
			current = ""
			if node.Level != 2 {
				continue
			}
			title := strings.TrimSpace(plain(node, src))
			for _, k := range known {
				if strings.EqualFold(title, k) {
					current = k
				}
			}
			if current == "" {
				continue
			}
			line := lineOf(blockStart(node))
			if prev, dup := p.Sections[current]; dup {
				p.Problems = append(p.Problems, Problem{Section: current, Line: line,
					Message: fmt.Sprintf("section %q appears twice (first at line %d); merge them", current, prev.Line)})
			}
			p.Sections[current] = Section{Title: current, Line: line}
		case *east.Table:
			if current == "" {
				continue
			}
			if _, tabled := tableColumns[current]; !tabled {
				continue
			}
			sec := p.Sections[current]
			if sec.HasTable {
				p.Problems = append(p.Problems, Problem{Section: current, Line: lineOf(firstOffset(node)),
					Message: fmt.Sprintf("section %q has more than one table; only the first is read", current)})
				continue
			}
			sec.HasTable = true
			p.Sections[current] = sec
			p.readTable(current, node, src, lineOf)
		default:
			if current != "" {
				prose.WriteString(plain(n, src) + "\n")
			}
		}
	}
	flushProse()
	for title, cols := range tableColumns {
		if sec, ok := p.Sections[title]; ok && !sec.HasTable {
			p.Problems = append(p.Problems, Problem{Section: title, Line: sec.Line,
				Message: fmt.Sprintf("section %q has no table; add a GFM table with columns %s", title, strings.Join(cols, ", "))})
		}
	}
	return p
}

func (p *Parsed) setProse(title, s string) {
	switch title {
	case SecScopeRules:
		p.Sets.ScopeRules = s
	case SecParameterBinding:
		p.Sets.ParameterBinding = s
	case SecStepIdentifiers:
		p.Sets.StepIdentifiers = s
	case SecSummaryTruncation:
		p.Sets.Truncation = s
	case SecOutput:
		p.Sets.Output = s
	case SecLoopDecisions:
		p.Sets.LoopDecisions = s
	}
}

// readTable maps header names to columns, checks the required ones, and
// reads each row into Sets.
func (p *Parsed) readTable(title string, t *east.Table, src []byte, lineOf func(int) int) {
	var header []string
	var rows [][]string
	var rowLines []int
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.ReplaceAll(strings.TrimSpace(plain(c, src)), `\|`, "|"))
		}
		if _, isHeader := r.(*east.TableHeader); isHeader {
			header = cells
			continue
		}
		rows = append(rows, cells)
		rowLines = append(rowLines, lineOf(firstOffset(r)))
	}
	tableLine := lineOf(firstOffset(t))
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(h)] = i
	}
	want := tableColumns[title]
	if len(header) == 0 || !strings.EqualFold(header[0], want[0]) {
		p.Problems = append(p.Problems, Problem{Section: title, Line: tableLine,
			Message: fmt.Sprintf("the first column of the %q table must be %q", title, want[0])})
		return
	}
	for _, c := range want {
		if _, ok := col[c]; !ok && !optionalColumns[c] {
			p.Problems = append(p.Problems, Problem{Section: title, Line: tableLine,
				Message: fmt.Sprintf("the %q table has no %q column; its columns are %s", title, c, strings.Join(want, ", "))})
			return
		}
	}
	values := map[string]int{}
	p.Values[title] = values
	for i, cells := range rows {
		line := rowLines[i]
		get := func(name string) string {
			j, ok := col[name]
			if !ok || j >= len(cells) {
				return ""
			}
			return cells[j]
		}
		value := strings.Trim(get(want[0]), "`")
		if value == "" {
			p.Problems = append(p.Problems, Problem{Section: title, Line: line, Message: fmt.Sprintf("a row of the %q table has an empty %q cell", title, want[0])})
			continue
		}
		if prev, dup := values[value]; dup {
			p.Problems = append(p.Problems, Problem{Section: title, Line: line,
				Message: fmt.Sprintf("%q is listed twice in %q (first at line %d)", value, title, prev)})
			continue
		}
		values[value] = line
		boolean := func(name, yes, no string, optional bool) bool {
			v := strings.ToLower(strings.Trim(get(name), "`"))
			switch {
			case v == yes:
				return true
			case v == no || (optional && v == ""):
				return false
			}
			p.Problems = append(p.Problems, Problem{Section: title, Line: line,
				Message: fmt.Sprintf("%q in %q: column %q must be %q or %q, not %q", value, title, name, yes, no, v)})
			return false
		}
		switch title {
		case SecDiagnosticCodes:
			p.Sets.DiagnosticCodes = append(p.Sets.DiagnosticCodes, Code{Code: value, Meaning: get("meaning")})
		case SecCatalogKinds:
			p.Sets.Kinds = append(p.Sets.Kinds, Kind{Kind: value, Callable: boolean("callable", "yes", "no", false),
				Promoted: boolean("promoted", "yes", "no", true), Meaning: get("meaning")})
		case SecRiskLevels:
			p.Sets.RiskLevels = append(p.Sets.RiskLevels, Risk{Risk: value, Meaning: get("meaning"), Hints: riskHints(
				boolean("readonly", "true", "false", false), boolean("destructive", "true", "false", false),
				boolean("openworld", "true", "false", false))})
		case SecRunStatuses, SecStepStatuses:
			s := Status{Status: value, OK: boolean("ok", "true", "false", false),
				SideEffects: boolean("side effects", "possible", "none", false), Meaning: get("meaning")}
			if title == SecRunStatuses {
				p.Sets.RunStatuses = append(p.Sets.RunStatuses, s)
			} else {
				p.Sets.StepStatuses = append(p.Sets.StepStatuses, s)
			}
		}
	}
}

func riskHints(readOnly, destructive, openWorld bool) (h pilotage.RiskHints) {
	h.ReadOnly, h.Destructive, h.OpenWorld = readOnly, destructive, openWorld
	return h
}

// plain returns the text content of a node and its descendants.
func plain(n ast.Node, src []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		default:
			if c.Type() == ast.TypeBlock && c != n && !c.HasChildren() {
				lines := c.Lines()
				for i := 0; i < lines.Len(); i++ {
					s := lines.At(i)
					b.Write(s.Value(src))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// blockStart is the byte offset where a block's first line starts.
func blockStart(n ast.Node) int {
	if l := n.Lines(); l != nil && l.Len() > 0 {
		return l.At(0).Start
	}
	return firstOffset(n)
}

// firstOffset finds the first source offset inside n.
func firstOffset(n ast.Node) int {
	if n.Type() == ast.TypeBlock {
		if l := n.Lines(); l != nil && l.Len() > 0 {
			return l.At(0).Start
		}
	}
	if t, ok := n.(*ast.Text); ok {
		return t.Segment.Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if off := firstOffset(c); off >= 0 {
			return off
		}
	}
	return -1
}

// lineIndex returns a function from byte offset to 1-based line.
func lineIndex(src []byte) func(int) int {
	var starts []int
	starts = append(starts, 0)
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return func(off int) int {
		if off < 0 {
			return 1
		}
		lo, hi := 0, len(starts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if starts[mid] <= off {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo + 1
	}
}
