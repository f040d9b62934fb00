package closedsets

import (
	"fmt"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
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
	// Section is the canonical title of the section concerned, or "" for
	// the body as a whole.
	Section string
	Line    int
	Message string
}

// Has reports whether the guide has the named section.
func (p *Parsed) Has(title string) bool {
	_, ok := p.Sections[title]
	return ok
}

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
	SecLoopDecisions:   ColsLoopDecisions,
}

// optionalTables are the tabled sections whose table may be left out:
// Loop decisions without one is prose that lint warns a checker cannot
// read (loop-decisions-table), not a malformed guide.
var optionalTables = map[string]bool{SecLoopDecisions: true}

// keptIntro are the tabled sections whose prose before the table is the
// author's and kept; the others' is the fixed sentence Render writes.
var keptIntro = map[string]bool{SecLoopDecisions: true}

var optionalColumns = map[string]bool{"promoted": true, "meaning": true}

// Parse reads a closed-sets guide body. It never fails: whatever does not
// follow the format is listed in Problems. Prose sections keep their
// Markdown source, so Render and Parse round-trip.
func Parse(body []byte) *Parsed {
	src := body
	p := &Parsed{Sections: map[string]Section{}, Values: map[string]map[string]int{}}
	lines := newLineIndex(src)
	doc, err := guidemd.Parse(src)
	if tc, ok := err.(*guidemd.TooComplexError); ok {
		p.Problems = append(p.Problems, Problem{Line: tc.Line, Message: tc.Message})
		return p
	}

	current := ""      // canonical title of the section being read, "" when unrecognised
	proseStart := 0    // offset where the current section's content begins
	tableRead := false // the current heading's section already had its table
	flushProse := func(end int) {
		// The prose of Diagnostic codes that is kept is what follows its
		// table (DiagnosticPaths); the sentence before it is fixed.
		if current == SecDiagnosticCodes && !tableRead {
			return
		}
		if current != "" && end > proseStart {
			p.addProse(current, strings.TrimSpace(string(src[proseStart:end])))
		}
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch node := n.(type) {
		case *ast.Heading:
			if node.Level > 2 {
				continue // a sub-heading belongs to the section's prose
			}
			flushProse(lines.start(lines.line(node.Pos())))
			current = ""
			if node.Level != 2 {
				continue
			}
			title := guidemd.HeadingText(node, src)
			for _, k := range known {
				if strings.EqualFold(title, k) {
					current = k
				}
			}
			if current == "" {
				continue
			}
			line := lines.line(node.Pos())
			proseStart = lines.start(headingEndLine(node, src, lines) + 1)
			tableRead = false
			if prev, dup := p.Sections[current]; dup {
				p.Problems = append(p.Problems, Problem{Section: current, Line: line,
					Message: fmt.Sprintf("section %q appears twice (first at line %d); merge them", current, prev.Line)})
				continue
			}
			p.Sections[current] = Section{Title: current, Line: line}
		case *east.Table:
			if current == "" {
				continue
			}
			if _, tabled := tableColumns[current]; !tabled {
				continue
			}
			if tableRead {
				p.Problems = append(p.Problems, Problem{Section: current, Line: lines.line(n.Pos()),
					Message: fmt.Sprintf("section %q has more than one table; only the first is read", current)})
				continue
			}
			// A repeated section's table is read into the first one's
			// values, so a value listed in both is still caught.
			if keptIntro[current] {
				flushProse(lines.start(lines.line(n.Pos())))
			}
			tableRead = true
			sec := p.Sections[current]
			sec.HasTable = true
			p.Sections[current] = sec
			p.readTable(current, node, src, lines)
			if last := node.LastChild(); last != nil {
				proseStart = lines.start(lines.line(last.Pos()) + 1)
			}
		}
	}
	flushProse(len(src))
	for _, title := range known {
		cols, tabled := tableColumns[title]
		if sec, ok := p.Sections[title]; ok && tabled && !sec.HasTable && !optionalTables[title] {
			p.Problems = append(p.Problems, Problem{Section: title, Line: sec.Line,
				Message: fmt.Sprintf("section %q has no table; add a GFM table with columns %s", title, strings.Join(cols, ", "))})
		}
	}
	sort.SliceStable(p.Problems, func(i, j int) bool { return p.Problems[i].Line < p.Problems[j].Line })
	return p
}

// headingEndLine is the last line of a heading: the heading line of an ATX
// heading, the underline of a setext one.
func headingEndLine(h *ast.Heading, src []byte, lines lineIndex) int {
	pos := h.Pos()
	if pos >= 0 && pos < len(src) && src[pos] == '#' {
		return lines.line(pos)
	}
	last := h.Lines().Len() - 1
	if last < 0 {
		return lines.line(pos)
	}
	return lines.line(h.Lines().At(last).Start) + 1
}

// addProse records a prose section's text; a duplicated section's prose
// is appended, so nothing the author wrote is lost.
func (p *Parsed) addProse(title, s string) {
	var field *string
	switch title {
	case SecDiagnosticCodes:
		field = &p.Sets.DiagnosticPaths
	case SecScopeRules:
		field = &p.Sets.ScopeRules
	case SecParameterBinding:
		field = &p.Sets.ParameterBinding
	case SecStepIdentifiers:
		field = &p.Sets.StepIdentifiers
	case SecSummaryTruncation:
		field = &p.Sets.Truncation
	case SecOutput:
		field = &p.Sets.Output
	case SecLoopDecisions:
		field = &p.Sets.LoopDecisions
	default:
		return
	}
	if *field != "" && s != "" {
		*field += "\n\n"
	}
	*field += s
}

// readTable maps header names to columns, checks the required ones, and
// reads each row into Sets.
func (p *Parsed) readTable(title string, t *east.Table, src []byte, lines lineIndex) {
	var header []string
	var rows [][]string
	var rowLines []int
	tableLine := lines.line(t.Pos())
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, cellText(c, src))
		}
		if _, isHeader := r.(*east.TableHeader); isHeader {
			header = cells
			tableLine = lines.line(r.Pos())
			continue
		}
		rows = append(rows, cells)
		rowLines = append(rowLines, lines.line(r.Pos()))
	}
	col := map[string]int{}
	for i, h := range header {
		if _, dup := col[strings.ToLower(h)]; !dup {
			col[strings.ToLower(h)] = i
		}
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
	values := p.Values[title]
	if values == nil {
		values = map[string]int{}
		p.Values[title] = values
	}
	for i, cells := range rows {
		line := rowLines[i]
		get := func(name string) string {
			j, ok := col[name]
			if !ok || j >= len(cells) {
				return ""
			}
			return cells[j]
		}
		value := strings.TrimSpace(strings.Trim(get(want[0]), "`"))
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
			v := strings.ToLower(strings.TrimSpace(strings.Trim(get(name), "`")))
			switch {
			case v == yes:
				return true
			case v == no || (optional && v == ""):
				return false
			case v == "":
				p.Problems = append(p.Problems, Problem{Section: title, Line: line,
					Message: fmt.Sprintf("%q in %q: column %q is empty; write %q or %q", value, title, name, yes, no)})
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
			p.Sets.RiskLevels = append(p.Sets.RiskLevels, Risk{Risk: value, Meaning: get("meaning"), Hints: pilotage.RiskHints{
				ReadOnly:    boolean("readonly", "true", "false", false),
				Destructive: boolean("destructive", "true", "false", false),
				OpenWorld:   boolean("openworld", "true", "false", false)}})
		case SecRunStatuses, SecStepStatuses:
			s := Status{Status: value, OK: boolean("ok", "true", "false", false),
				SideEffects: boolean("side effects", "possible", "none", false), Meaning: get("meaning")}
			if title == SecRunStatuses {
				p.Sets.RunStatuses = append(p.Sets.RunStatuses, s)
			} else {
				p.Sets.StepStatuses = append(p.Sets.StepStatuses, s)
			}
		case SecLoopDecisions:
			p.Sets.LoopTook = append(p.Sets.LoopTook, Took{Took: value, Meaning: get("meaning")})
		}
	}
}

// cellText is a table cell's Markdown source with escaped pipes restored,
// so a cell reads back exactly what Render wrote.
func cellText(c ast.Node, src []byte) string {
	var b strings.Builder
	for i := 0; i < c.Lines().Len(); i++ {
		seg := c.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), `\|`, "|"))
}

// lineIndex maps byte offsets to 1-based lines and back.
type lineIndex struct {
	starts []int // offset of each line's first byte
	size   int   // length of the source
}

func newLineIndex(src []byte) lineIndex {
	x := lineIndex{starts: []int{0}, size: len(src)}
	for i, c := range src {
		if c == '\n' {
			x.starts = append(x.starts, i+1)
		}
	}
	return x
}

// line is the 1-based line holding offset off (line 1 for a negative one).
func (x lineIndex) line(off int) int {
	if off < 0 {
		return 1
	}
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
}

// start is the offset where 1-based line n starts; past the last line it
// is the end of the source.
func (x lineIndex) start(n int) int {
	switch {
	case n < 1:
		return 0
	case n > len(x.starts):
		return x.size
	}
	return x.starts[n-1]
}
