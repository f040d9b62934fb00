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
	var b strings.Builder
	b.WriteString("# " + title + "\n\n")
	b.WriteString("This guide is generated. It enumerates every closed set of the Language; a value not listed here is never produced.\n")
	if len(s.DiagnosticCodes) > 0 {
		section(&b, SecDiagnosticCodes, "Every diagnostic carries exactly one of these codes.")
		rows := make([][]string, len(s.DiagnosticCodes))
		for i, c := range s.DiagnosticCodes {
			rows[i] = []string{c.Code, c.Meaning}
		}
		table(&b, []string{"code", "meaning"}, rows)
		if t := strings.TrimSpace(s.DiagnosticPaths); t != "" {
			b.WriteString("\n" + t + "\n")
		}
	}
	if len(s.Kinds) > 0 {
		section(&b, SecCatalogKinds, "Every catalog entry has one of these kinds. Only callable kinds may be called from a program.")
		rows := make([][]string, len(s.Kinds))
		for i, k := range s.Kinds {
			rows[i] = []string{k.Kind, yesNo(k.Callable), yesNo(k.Promoted), k.Meaning}
		}
		table(&b, []string{"kind", "callable", "promoted", "meaning"}, rows)
	}
	if len(s.RiskLevels) > 0 {
		section(&b, SecRiskLevels, "Every risk level corresponds to exactly one risk_hints triple.")
		rows := make([][]string, len(s.RiskLevels))
		for i, r := range s.RiskLevels {
			rows[i] = []string{r.Risk, trueFalse(r.Hints.ReadOnly), trueFalse(r.Hints.Destructive), trueFalse(r.Hints.OpenWorld), r.Meaning}
		}
		table(&b, []string{"risk", "readOnly", "destructive", "openWorld", "meaning"}, rows)
	}
	prose(&b, SecScopeRules, s.ScopeRules)
	prose(&b, SecParameterBinding, s.ParameterBinding)
	prose(&b, SecStepIdentifiers, s.StepIdentifiers)
	statuses(&b, SecRunStatuses, "Every Run ends with one of these statuses.", s.RunStatuses)
	statuses(&b, SecStepStatuses, "Every trace step's outcome has one of these statuses.", s.StepStatuses)
	prose(&b, SecSummaryTruncation, s.Truncation)
	prose(&b, SecOutput, s.Output)
	loopDecisions(&b, s)
	return b.String()
}

// loopDecisions writes the Loop decisions section: its prose, then the
// table of took values when there is one.
func loopDecisions(b *strings.Builder, s *Sets) {
	if len(s.LoopTook) == 0 {
		prose(b, SecLoopDecisions, s.LoopDecisions)
		return
	}
	section(b, SecLoopDecisions, strings.TrimSpace(s.LoopDecisions))
	rows := make([][]string, len(s.LoopTook))
	for i, t := range s.LoopTook {
		rows[i] = []string{t.Took, t.Meaning}
	}
	table(b, ColsLoopDecisions, rows)
}

func section(b *strings.Builder, title, intro string) {
	b.WriteString("\n## " + title + "\n\n")
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
}

// prose writes a prose section; it ends with one newline, so exactly one
// blank line separates it from the next heading.
func prose(b *strings.Builder, title, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	b.WriteString("\n## " + title + "\n\n" + strings.TrimSpace(text) + "\n")
}

func statuses(b *strings.Builder, title, intro string, ss []Status) {
	if len(ss) == 0 {
		return
	}
	section(b, title, intro)
	rows := make([][]string, len(ss))
	for i, s := range ss {
		effects := "none"
		if s.SideEffects {
			effects = "possible"
		}
		rows[i] = []string{s.Status, trueFalse(s.OK), effects, s.Meaning}
	}
	table(b, []string{"status", "ok", "side effects", "meaning"}, rows)
}

func table(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// cell makes text safe inside a GFM table cell: one line, pipes escaped.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	if s == "" {
		return " "
	}
	return s
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
