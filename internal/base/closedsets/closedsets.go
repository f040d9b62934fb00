// Package closedsets reads and writes the machine-checkable closed-sets
// guide of closed-sets-format.md: level-2 sections with fixed titles, each
// with prose and, for enumerations, a GFM table whose first column holds
// the values. `pilotage build` renders it from a Language's sets and
// `pilotage lint` parses it back (with goldmark) to check completeness and
// to cross-check catalogs, plans and traces.
package closedsets

import (
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Section titles of closed-sets-format.md, in the order build writes them.
const (
	SecDiagnosticCodes   = "Diagnostic codes"
	SecCatalogKinds      = "Catalog entry kinds"
	SecRiskLevels        = "Risk levels"
	SecScopeRules        = "Scope rules"
	SecParameterBinding  = "Parameter binding"
	SecStepIdentifiers   = "Step identifiers"
	SecRunStatuses       = "Run statuses"
	SecStepStatuses      = "Step statuses"
	SecSummaryTruncation = "Summary truncation"
	SecOutput            = "Output"
	SecLoopDecisions     = "Loop decisions"
)

// Table columns of closed-sets-format.md (lower case; headers match
// case-insensitively).
var (
	ColsDiagnosticCodes = []string{"code", "meaning"}
	ColsCatalogKinds    = []string{"kind", "callable", "promoted", "meaning"}
	ColsRiskLevels      = []string{"risk", "readonly", "destructive", "openworld", "meaning"}
	ColsStatuses        = []string{"status", "ok", "side effects", "meaning"}
	ColsLoopDecisions   = []string{"took", "meaning"}
)

// Sets is the content of a closed-sets guide: every enumeration and every
// prose section a Language documents. A zero-length slice or empty string
// means the section is absent.
type Sets struct {
	DiagnosticCodes []Code
	// DiagnosticPaths is the prose after the Diagnostic codes table: how a
	// diagnostic's path locates it, in the Language's locator dialect
	// (§5.5). A model writing a text program needs to know that paths are
	// line and column ranges, not JSON Pointers.
	DiagnosticPaths  string
	Kinds            []Kind
	RiskLevels       []Risk
	ScopeRules       string
	ParameterBinding string
	StepIdentifiers  string
	RunStatuses      []Status
	StepStatuses     []Status
	Truncation       string
	Output           string
	// LoopDecisions is the prose of the Loop decisions section, before
	// and after its table; LoopTook is the table: every took value the
	// summarized form uses (closed-sets-format.md). A loop decision whose
	// took is neither continue, exit nor listed is an error when the
	// Language is known; a section without the table is prose a checker
	// cannot read.
	LoopDecisions string
	LoopTook      []Took
}

// Took is one value a summarized loop decision takes.
type Took struct {
	Took    string
	Meaning string
}

// Code is one diagnostic code.
type Code struct {
	Code    string
	Meaning string
}

// Kind is one catalog entry kind.
type Kind struct {
	Kind     string
	Callable bool
	Promoted bool
	Meaning  string
}

// Risk is one engine-defined risk level with its hints.
type Risk struct {
	Risk    string
	Hints   pilotage.RiskHints
	Meaning string
}

// Status is one run or step status.
type Status struct {
	Status      string
	OK          bool
	SideEffects bool
	Meaning     string
}

// Levels returns the risk levels in the form risk arithmetic takes.
func (s *Sets) Levels() []pilotage.RiskLevel {
	out := make([]pilotage.RiskLevel, len(s.RiskLevels))
	for i, r := range s.RiskLevels {
		out[i] = pilotage.RiskLevel{Name: r.Risk, Hints: r.Hints}
	}
	return out
}

// Render writes the guide body in the closed-sets-format.md shape. Sections
// with no content are left out; the output is deterministic.
func Render(title string, s *Sets) string {
	body, _ := Head(title, s, -1)
	return body
}

// Head is the first lines lines of Render's guide (all of it when lines
// is negative or the guide is no longer) and the size of the whole, for
// guidemd.CheckHead: a guide of 25,000 risk levels is a megabyte, which
// the compile wrote whole only to refuse it (docs/performance.md, "The
// last Language rows under 10 bytes a byte").
func Head(title string, s *Sets, lines int) (head string, size int) {
	// Written twice, counted then kept: its builder grown by doubling
	// held half as much again beside it (docs/performance.md, "A Language
	// block a statement at a time").
	var n counter
	count := upTo{w: &n, left: lines}
	render(&count, title, s)
	var b strings.Builder
	b.Grow(int(n))
	render(&upTo{w: &b, left: lines}, title, s)
	return b.String(), int(n) + count.past
}

// upTo passes what is written to w up to and including its left'th
// newline (all of it when left is negative), and counts the bytes past
// it.
type upTo struct {
	w    writer
	left int
	past int
}

func (u *upTo) WriteString(s string) (int, error) {
	for rest := s; u.left != 0; {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			u.w.WriteString(rest)
			return len(s), nil
		}
		u.w.WriteString(rest[:i+1])
		rest = rest[i+1:]
		u.left--
		if u.left == 0 {
			u.past += len(rest)
			return len(s), nil
		}
	}
	u.past += len(s)
	return len(s), nil
}

func (u *upTo) WriteByte(c byte) error {
	u.WriteString(string(c))
	return nil
}

// writer is what Render writes to: a strings.Builder, or a counter.
type writer interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

// counter counts what is written to it.
type counter int

func (c *counter) WriteString(s string) (int, error) {
	*c += counter(len(s))
	return len(s), nil
}

func (c *counter) WriteByte(byte) error {
	*c++
	return nil
}

// render writes the guide Render returns to b.
func render(b writer, title string, s *Sets) {
	b.WriteString("# " + title + "\n\n")
	b.WriteString("This guide is generated. It enumerates every closed set of the Language; a value not listed here is never produced.\n")
	if len(s.DiagnosticCodes) > 0 {
		section(b, SecDiagnosticCodes, "Every diagnostic carries exactly one of these codes.")
		table(b, []string{"code", "meaning"}, s.DiagnosticCodes, func(c Code, row []string) {
			row[0], row[1] = c.Code, c.Meaning
		})
		if t := strings.TrimSpace(s.DiagnosticPaths); t != "" {
			b.WriteString("\n" + t + "\n")
		}
	}
	if len(s.Kinds) > 0 {
		section(b, SecCatalogKinds, "Every catalog entry has one of these kinds. Only callable kinds may be called from a program.")
		table(b, []string{"kind", "callable", "promoted", "meaning"}, s.Kinds, func(k Kind, row []string) {
			row[0], row[1], row[2], row[3] = k.Kind, yesNo(k.Callable), yesNo(k.Promoted), k.Meaning
		})
	}
	if len(s.RiskLevels) > 0 {
		section(b, SecRiskLevels, "Every risk level corresponds to exactly one risk_hints triple.")
		table(b, []string{"risk", "readOnly", "destructive", "openWorld", "meaning"}, s.RiskLevels, func(r Risk, row []string) {
			row[0], row[1], row[2], row[3], row[4] = r.Risk, trueFalse(r.Hints.ReadOnly), trueFalse(r.Hints.Destructive), trueFalse(r.Hints.OpenWorld), r.Meaning
		})
	}
	prose(b, SecScopeRules, s.ScopeRules)
	prose(b, SecParameterBinding, s.ParameterBinding)
	prose(b, SecStepIdentifiers, s.StepIdentifiers)
	statuses(b, SecRunStatuses, "Every Run ends with one of these statuses.", s.RunStatuses)
	statuses(b, SecStepStatuses, "Every trace step's outcome has one of these statuses.", s.StepStatuses)
	prose(b, SecSummaryTruncation, s.Truncation)
	prose(b, SecOutput, s.Output)
	loopDecisions(b, s)
}

// loopDecisions writes the Loop decisions section: its prose, then the
// table of took values when there is one.
func loopDecisions(b writer, s *Sets) {
	if len(s.LoopTook) == 0 {
		prose(b, SecLoopDecisions, s.LoopDecisions)
		return
	}
	section(b, SecLoopDecisions, strings.TrimSpace(s.LoopDecisions))
	table(b, ColsLoopDecisions, s.LoopTook, func(t Took, row []string) {
		row[0], row[1] = t.Took, t.Meaning
	})
}

func section(b writer, title, intro string) {
	b.WriteString("\n## " + title + "\n\n")
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
}

// prose writes a prose section; it ends with one newline, so exactly one
// blank line separates it from the next heading.
func prose(b writer, title, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	b.WriteString("\n## " + title + "\n\n" + strings.TrimSpace(text) + "\n")
}

func statuses(b writer, title, intro string, ss []Status) {
	if len(ss) == 0 {
		return
	}
	section(b, title, intro)
	table(b, []string{"status", "ok", "side effects", "meaning"}, ss, func(s Status, row []string) {
		effects := "none"
		if s.SideEffects {
			effects = "possible"
		}
		row[0], row[1], row[2], row[3] = s.Status, trueFalse(s.OK), effects, s.Meaning
	})
}

// table writes a GFM table of header and a row for each of values, whose
// cells cells fills in. The rows are written as they are made, in one
// reused slice: 25,000 risk levels made 25,000 slices of their cells
// beside the guide, 4 MB (docs/performance.md, "Guides of many small
// blocks").
func table[T any](b writer, header []string, values []T, cells func(T, []string)) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	row := make([]string, len(header))
	for _, v := range values {
		cells(v, row)
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(" ")
			writeCell(b, c)
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
}

// writeCell writes text made safe inside a GFM table cell: one line,
// its runs of white space one space, pipes escaped, and a space for
// none.
func writeCell(b writer, s string) {
	n := 0
	for f := range strings.FieldsSeq(s) {
		if n++; n > 1 {
			b.WriteByte(' ')
		}
		for {
			i := strings.IndexByte(f, '|')
			if i < 0 {
				break
			}
			b.WriteString(f[:i])
			b.WriteString(`\|`)
			f = f[i+1:]
		}
		b.WriteString(f)
	}
	if n == 0 {
		b.WriteByte(' ')
	}
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func trueFalse(v bool) string {
	if v {
		return "true"
	}
	return "false"
}
