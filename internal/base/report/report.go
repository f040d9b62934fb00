// Package report holds the finding model every checking command shares
// (lint, replay, the PDL compiler) and the writers that render a report in
// the formats people and CI systems read: text, json, sarif, github and
// junit. The json form is a stable contract: fields are only ever added,
// and added fields are optional.
package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Severity of a finding: error for a MUST, warning for a SHOULD, info for
// what is worth knowing but breaks nothing.
type Severity string

// The severities.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Finding is one problem found in one file.
type Finding struct {
	Rule string `json:"rule"`
	// Section is what the rule enforces: a section number of Part II
	// ("5.8.2"), the name of another document of the spec ("binding.md"),
	// or Convention.
	Section string `json:"section"`
	// Sections lists every section the finding cites, Section first, when
	// there is more than one (a schema finding cites the field table that
	// defines the member, then the sections that bear on it); nil when it
	// would only repeat Section. AllSections gives the list either way, and
	// json and sarif output always carry it.
	Sections []string `json:"sections,omitempty"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Pointer  string   `json:"pointer"`
	// EndLine and EndColumn close the underlined range (exclusive end);
	// zero when only a start is known.
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
	Hint      string `json:"hint,omitempty"`
	// Key groups findings by subject inside a file (replay: the run_id).
	Key string `json:"key,omitempty"`
	// Related points at other places the finding involves (replay: the plan
	// step an entry was matched against).
	Related []Location `json:"related,omitempty"`
	// Suppressions say why the finding does not count: a
	// `# pilotage:ignore` comment or a suppress entry of pilotage.yaml
	// (docs/config.md). A suppressed finding stays in json and sarif,
	// marked, and counts as suppressed, not by its severity.
	Suppressions []Suppression `json:"suppressions,omitempty"`
}

// Suppression kinds, SARIF's names for them.
const (
	InSource = "inSource" // a comment in the file (# pilotage:ignore)
	External = "external" // an entry of pilotage.yaml
)

// Suppression is one reason a finding is suppressed, and where it was
// given.
type Suppression struct {
	// Kind is InSource or External.
	Kind string `json:"kind"`
	// Justification is the reason the suppression gives.
	Justification string `json:"justification"`
	// Location is the comment or configuration entry.
	Location Location `json:"location"`
}

// Suppressed reports whether f does not count.
func (f Finding) Suppressed() bool { return len(f.Suppressions) > 0 }

// CiteSections makes sections, the most specific first, what f cites:
// Section is the first, and Sections holds them all when there are
// several. An empty list leaves f as it is.
func (f *Finding) CiteSections(sections []string) {
	if len(sections) == 0 {
		return
	}
	f.Section, f.Sections = sections[0], nil
	if len(sections) > 1 {
		f.Sections = sections
	}
}

// AllSections is every section f cites, Section first.
func (f Finding) AllSections() []string {
	if len(f.Sections) > 0 {
		return f.Sections
	}
	return []string{f.Section}
}

// cited is what f cites as people write it, after its rule in text,
// github and junit output: "§5.1, §11.1, §1.1".
func (f Finding) cited() string { return CiteAll(f.AllSections()) }

// CiteAll is Cite of each of sections, joined: "§5.1, §11.1, §1.1".
func CiteAll(sections []string) string {
	cites := make([]string, len(sections))
	for i, s := range sections {
		cites[i] = Cite(s)
	}
	return strings.Join(cites, ", ")
}

// Location is a place in a file.
type Location struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Pointer string `json:"pointer"`
	Note    string `json:"note,omitempty"`
}

// Summary counts findings by severity, plus what was checked, so that a
// run that checked nothing can never pass unnoticed.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos,omitempty"`
	// Suppressed counts the findings suppressed (Finding.Suppressions),
	// which count under no severity.
	Suppressed int `json:"suppressed,omitempty"`
	Files      int `json:"files,omitempty"`
	// Checked counts the units checked (entries, steps, rules …).
	Checked map[string]int `json:"checked,omitempty"`
	// Cases are pilotage test's counts, the members of the summary
	// beside the findings' (nil for every other verb): findings alone
	// do not tell a run that ran no case from one whose cases passed.
	*Cases
}

// Cases counts the cases of a pilotage test run, as its text report's
// last line does ("7 cases, 6 passed, 1 failed").
type Cases struct {
	Cases  int `json:"cases"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// Convention is the Section of a rule that enforces a convention of
// pilotage itself, which no document of the spec requires (a
// suppression comment's reason); its documentation says why.
const Convention = "convention"

// Cite is a section as people write it: "§5.8.2" for a section of Part
// II, the document's own name ("binding.md") for the rest of the spec,
// "pilotage convention" for Convention.
func Cite(section string) string {
	switch {
	case section == Convention:
		return "pilotage " + Convention
	case PartII(section):
		return "§" + section
	}
	return section
}

// PartII reports whether section is a section of Part II ("5.8.2"),
// not another document of the spec nor Convention.
func PartII(section string) bool {
	return section != "" && section[0] >= '0' && section[0] <= '9'
}

// source names the document a section belongs to, for the help text of
// machine formats.
func source(section string) string {
	switch c := Cite(section); {
	case section == Convention:
		return "A " + c + ", not a requirement of Pilotage 1.1"
	case c != section:
		return "Pilotage 1.1 Part II " + c
	}
	return "Pilotage 1.1 " + section
}

// RuleInfo describes a rule for reporters that list rules (sarif).
type RuleInfo struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Section  string `json:"section"`
	// Sections lists every section the rule's findings cite, Section
	// (what most cite) first, when they do not all cite it: each cites
	// the one that defines what it checks (CiteSections).
	Sections []string `json:"sections,omitempty"`
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	// Doc is the repository path of the rule's documentation page.
	Doc string `json:"doc,omitempty"`
}

// AllSections is every section r's findings cite, Section first.
func (r RuleInfo) AllSections() []string {
	if len(r.Sections) > 0 {
		return r.Sections
	}
	return []string{r.Section}
}

// Info returns r: a RuleInfo describes itself, so a checker whose rules
// need no more than it can register them as they are (ruleset.Rule).
func (r RuleInfo) Info() RuleInfo { return r }

// Report is everything a writer needs.
type Report struct {
	// Tool names the command, for sarif and junit ("pilotage lint").
	Tool     string
	Findings []Finding
	Summary  Summary
	// Rules are the rules that ran, for sarif's rule table.
	Rules []RuleInfo
	// NotRun lists, per file, rules of Rules that did not run on it (the
	// lint rules on a PDL file that failed to compile), so that a
	// suppression naming one is not reported unused.
	NotRun map[string][]string
	// Files lists every input checked, in order, so junit can emit a test
	// case per file even when it is clean.
	Files []string
	// Sources maps a file name to its bytes, for source snippets in text.
	Sources map[string][]byte
	// KeyLabel names what Finding.Key holds ("run_id" for replay), so the
	// text writer can show it; empty shows no key.
	KeyLabel string
	// Cap, when set, lists at most its number of findings per rule and
	// file, the first by position: Add offers findings to it, which
	// holds those listed so far and counts the rest without keeping them
	// (a PDL file repeating one wrong line 300,000 times spent most of
	// lint's time growing and sorting the list), and Sort adds those it
	// lists and the findings that count the rest. The summary counts
	// what is listed, once sorted.
	Cap *Cap
	// left are the findings of Cap.Left that Sort added last, replaced
	// when findings are added after a Sort.
	left []Finding
}

// Add appends findings and keeps the summary counts in step.
func (r *Report) Add(fs ...Finding) {
	for _, f := range fs {
		if r.Cap != nil {
			r.Cap.Admit(f) // Sort adds it if it is still listed
			continue
		}
		r.Findings = append(r.Findings, f)
		r.count(f, 1)
	}
}

// count adds d findings of f's severity to the summary.
func (r *Report) count(f Finding, d int) {
	switch {
	case f.Suppressed():
		r.Summary.Suppressed += d
		return
	}
	switch f.Severity {
	case Error:
		r.Summary.Errors += d
	case Warning:
		r.Summary.Warnings += d
	default:
		r.Summary.Infos += d
	}
}

// AddReport adds the findings of b, the report of other inputs, which
// b's Cap has counted (Sort has added what it left out), with b's files,
// sources and the rules that did not run on them.
func (r *Report) AddReport(b *Report) {
	r.AddListed(b.Findings...)
	r.Files = append(r.Files, b.Files...)
	if r.Sources == nil {
		r.Sources = map[string][]byte{}
	}
	maps.Copy(r.Sources, b.Sources)
	for file, ids := range b.NotRun {
		if r.NotRun == nil {
			r.NotRun = map[string][]string{}
		}
		r.NotRun[file] = ids
	}
}

// addLeft adds the findings Cap lists and has not handed on (Add), and
// puts its counts of what it left out in the findings, in place of those
// an earlier Sort added (pdllint adds the PDL compiler's findings after
// lint.Run has sorted its own).
func (r *Report) addLeft() {
	if r.Cap == nil {
		return
	}
	r.AddListed(r.Cap.Take()...)
	if len(r.left) > 0 {
		type id struct{ file, rule, msg string }
		was := map[id]bool{}
		for _, f := range r.left {
			was[id{f.File, f.Rule, f.Message}] = true
			r.count(f, -1)
		}
		r.Findings = slices.DeleteFunc(r.Findings, func(f Finding) bool {
			return f.CountsLeft() && was[id{f.File, f.Rule, f.Message}]
		})
	}
	r.left = r.Cap.Left()
	for i, f := range r.left {
		if !r.Cap.cited(f) {
			r.left[i].Section, r.left[i].Sections = r.ruleSection(f), nil
		}
		r.Findings = append(r.Findings, r.left[i])
		r.count(f, 1)
	}
}

// ruleSection is the section of f's rule, for a finding that counts
// others of it that do not all cite the same (CiteSections). f's own
// section when the report does not describe the rule.
func (r *Report) ruleSection(f Finding) string {
	for _, ri := range r.Rules {
		if ri.ID == f.Rule {
			return ri.Section
		}
	}
	return f.Section
}

// Recount sets the summary's counts from the findings, after a
// configuration changed their severities, dropped or suppressed some.
func (r *Report) Recount() {
	r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos, r.Summary.Suppressed = 0, 0, 0, 0
	for _, f := range r.Findings {
		r.count(f, 1)
	}
}

// Sort adds the counts of what Cap left out, then orders findings by
// file, position, then rule, so output is stable.
func (r *Report) Sort() {
	r.addLeft()
	r.Order()
}

// Order orders findings by file, position, then rule, without adding
// Cap's counts again: for a report already sorted whose findings were
// then changed (a configuration dropped or added some).
func (r *Report) Order() {
	slices.SortStableFunc(r.Findings, compare)
}

// Dedupe drops each finding that repeats the one before it: the same
// rule, severity and message over the same range of the same file,
// suppressed or not alike. Findings in a file that several inputs name
// (a guide two PDL files read) are raised once per input, and are one
// finding for whoever fixes the file. Call it after Sort, which puts
// repeats together.
func (r *Report) Dedupe() {
	r.Findings = slices.CompactFunc(r.Findings, func(a, b Finding) bool {
		same := repeatKey(a) == repeatKey(b)
		if same {
			r.count(b, -1)
		}
		return same
	})
}

// repeat is what makes a finding the same as another for Dedupe: the
// same rule, severity and message over the same range of the same file,
// suppressed or not alike.
type repeat struct {
	file, rule, msg            string
	sev                        Severity
	line, col, endLine, endCol int
	suppressed                 bool
}

func repeatKey(f Finding) repeat {
	return repeat{f.File, f.Rule, f.Message, f.Severity, f.Line, f.Column, f.EndLine, f.EndColumn, f.Suppressed()}
}

// compare orders findings by file, position, then rule and message.
func compare(a, b Finding) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
		strings.Compare(a.Rule, b.Rule), strings.Compare(a.Message, b.Message))
}

// Failed reports whether the report should fail the command: any error,
// or with strict any warning too.
func (r *Report) Failed(strict bool) bool {
	return r.Summary.Errors > 0 || (strict && r.Summary.Warnings > 0)
}

// Format names an output format.
type Format string

// The formats.
const (
	Text   Format = "text"
	JSON   Format = "json"
	SARIF  Format = "sarif"
	GitHub Format = "github"
	JUnit  Format = "junit"
)

// Formats lists the formats every checking command accepts.
var Formats = []Format{Text, JSON, SARIF, GitHub, JUnit}

// ParseFormat validates a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q; use one of: %s", s, strings.Join(names, ", "))
}

// Options tune the writers.
type Options struct {
	// Color enables ANSI colour in text output.
	Color bool
	// Strict is the verb's --strict: warnings fail the run, so junit marks
	// a file with warnings as failing too, and a CI dashboard shows the
	// file that failed the job.
	Strict bool
	// IncludeSuppressed keeps suppressed findings in sarif output.
	// Without it they are left out: GitHub code scanning, the main
	// reader of pilotage's sarif, ignores a result's suppressions and
	// would open an alert for each. json always has them; text, github
	// and junit never list them (the text summary counts them).
	IncludeSuppressed bool
}

// Write renders r in format f.
func Write(w io.Writer, f Format, r *Report, opt Options) error {
	held := newSpool(0)
	defer held.close()
	fw := newFindingWriter(w, f, r, opt, held)
	if fw == nil {
		return fmt.Errorf("unknown format %q", f)
	}
	for _, x := range r.Findings {
		if err := fw.finding(x); err != nil {
			return err
		}
	}
	return fw.end(r)
}
