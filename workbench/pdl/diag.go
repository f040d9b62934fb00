package pdl

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Rule IDs of the findings the PDL parser and compiler raise. They print
// with the same reporters as lint findings; Section is the Part II section
// the check serves. PDL itself is not in the spec: the rules on its own
// syntax (and on reading the files it names, whose findings cite what the
// file holds) cite report.Convention, and docs/pdl.md documents them.
const (
	RuleSyntax    = "pdl-syntax"     // the text is not PDL
	RuleUnknown   = "pdl-unknown"    // a keyword or option PDL does not have here
	RuleArgs      = "pdl-args"       // wrong number or kind of arguments
	RuleValue     = "pdl-value"      // a value outside its set, or malformed
	RuleDuplicate = "pdl-duplicate"  // a name defined twice
	RuleReference = "pdl-reference"  // a name that is defined nowhere
	RuleRequired  = "pdl-required"   // a setting the Language needs is missing
	RuleFile      = "pdl-file"       // a named file cannot be read
	RuleJSON      = "pdl-json"       // JSON or JSON Schema that does not compile
	RuleCEL       = "pdl-cel"        // a CEL expression that does not type-check
	RuleProgram   = "pdl-program"    // a promoted program body that does not hold
	RuleExample   = "pdl-example"    // a guide's example program that does not validate
	RuleRisk      = "pdl-risk"       // risk levels that cannot name every plan's max_risk
	RuleGuideName = "pdl-guide-name" // text every caller of a Language receives naming an entry a principal may not see
)

// doc is where every PDL rule is documented.
const doc = "docs/pdl.md#diagnostics"

// Rules describes every PDL rule: `pilotage lint --list-rules` lists
// them next to lint's rules, --disable accepts their IDs, sarif names
// them, and docs/pdl.md#diagnostics documents them in this order
// (TestRulesDocumented).
var Rules = []report.RuleInfo{
	{ID: RuleSyntax, Category: "pdl", Section: report.Convention, Severity: report.Error, Summary: "The file must be well-formed PDL: statements, arguments and balanced blocks.", Doc: doc},
	{ID: RuleUnknown, Category: "pdl", Section: report.Convention, Severity: report.Error, Summary: "Every keyword, option and flag must be one PDL defines in that place.", Doc: doc},
	{ID: RuleArgs, Category: "pdl", Section: report.Convention, Severity: report.Error, Summary: "Every statement must have the arguments its keyword takes.", Doc: doc},
	{ID: RuleValue, Category: "pdl", Section: "5.1", Sections: valueSections, Severity: report.Error, Summary: "Every value must be one of its closed set, or well-formed for its type.", Doc: doc},
	{ID: RuleDuplicate, Category: "pdl", Section: "5.4", Sections: principalSections, Severity: report.Error, Summary: "Languages, guides, entries, closed-set values and principals must be defined once.", Doc: doc},
	{ID: RuleReference, Category: "pdl", Section: "5.4", Sections: principalSections, Severity: report.Error, Summary: "Every name a statement uses (kind, risk, status, entry, Language) must be defined.", Doc: doc},
	{ID: RuleRequired, Category: "pdl", Section: "4.3", Severity: report.Error, Summary: "A Language must state what its capabilities require (execution mode, trace level, retention, guides).", Doc: doc},
	{ID: RuleFile, Category: "pdl", Section: report.Convention, Sections: []string{report.Convention, "5.2", "5.4", "5.1"}, Severity: report.Error, Summary: "Every file a PDL file names must be readable, relative to the PDL file, and be UTF-8 text without a control character written as itself.", Doc: doc},
	{ID: RuleJSON, Category: "pdl", Section: "5.4", Severity: report.Error, Summary: "JSON values must parse, and JSON Schemas must compile.", Doc: doc},
	{ID: RuleCEL, Category: "pdl", Section: "10.2", Severity: report.Error, Summary: "CEL expressions in entry behaviour must type-check over `input` as the entry's input_schema types it.", Doc: doc},
	{ID: RuleProgram, Category: "pdl", Section: "10.4", Severity: report.Error, Summary: "A promoted program's body must be a valid program whose risk its entry covers.", Doc: doc},
	{ID: RuleExample, Category: "pdl", Section: "5.2", Severity: report.Error, Summary: "Every program a guide shows in a fenced block of its Language (`json`, or the fence its `syntax text` names) must validate against that Language.", Doc: doc},
	{ID: RuleRisk, Category: "pdl", Section: "5.3", Severity: report.Error, Summary: "A Language's risk levels must include exactly every aggregate of its own levels (and a read-only level when it plans), and one declaring plan must see a level, so every plan names a `max_risk` consistent with its `max_risk_hints`.", Doc: doc},
	{ID: RuleGuideName, Category: "pdl", Section: "10.3", Severity: report.Error, Summary: "What every caller of a Language receives (its guides, prose, examples and index, its title, description and context_schema, its closed sets and prose, the server's name) must name only catalog entries every principal may see from it, and what lookup and Runs hand over of an entry (its name, description, tags, revision, schemas, fail messages and output) only entries every principal that sees the entry may see: a name a caller may not see must not leak to it.", Doc: doc},
}

// valueSections are the sections pdl-value's findings cite, each the one
// that defines the value it checks: §5.1 the Language's fields (mode,
// trace, locator), §3.3 its id, §3.5 a promoted kind, §4.3 execute
// settings without execute, §5.2 guide levels and topics, §5.3 risk
// hints, §5.4 an entry's program, §5.5 the locator of a text syntax,
// §5.7 statuses, §6.5.7 test_run's mode, §6.6 retention, §10.1 limits,
// §10.3 principals' patterns, binding.md the tool names, and
// closed-sets-format.md the prose sections; PDL's own notation (syntax,
// punctuation, keywords, latency) and pilotage's bounds (a guide id's
// file, the catalogs' and closed-sets guide's size) a convention.
var valueSections = []string{"5.1", "3.3", "3.5", "4.3", "5.2", "5.3", "5.4", "5.5", "5.7", "6.5.7", "6.6", "10.1", "10.3",
	"binding.md", "closed-sets-format.md", report.Convention}

// principalSections are what pdl-duplicate's and pdl-reference's
// findings cite: §5.4 names, and §10.3 principals, their tokens and
// their sees patterns. pdl-file's cite the section that defines what the
// file holds: §5.2 a guide, §5.4 an entry's schema, §5.1 a
// context_schema (docs/pdl.md, "Diagnostics").
var principalSections = []string{"5.4", "10.3"}

// sections maps a rule to its section, so findings need not repeat it.
var sections = func() map[string]string {
	m := map[string]string{}
	for _, r := range Rules {
		m[r.ID] = r.Section
	}
	return m
}()

// Errorf builds an error finding spanning [pos, end); end may be zero.
func Errorf(rule string, pos, end lexer.Position, hint, msg string) report.Finding {
	f := report.Finding{Rule: rule, Section: sections[rule], Severity: report.Error, Message: msg,
		File: pos.Filename, Line: pos.Line, Column: pos.Column, Hint: hint}
	if end.Line > pos.Line || (end.Line == pos.Line && end.Column > pos.Column) {
		f.EndLine, f.EndColumn = end.Line, end.Column
	}
	return f
}
