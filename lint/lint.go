// Package lint is the rule framework behind `pilotage lint`: the Rule
// record (ID, category, spec section, severity, summary), the Pass a rule
// inspects (a parsed manifest or snapshot with each Language's effective
// capabilities, guides, catalog and parsed closed-sets guide), and the
// runner that turns rule reports into positioned findings.
//
// Rules live one per file in lint/rules; each is documented in
// docs/rules/<id>.md.
package lint

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

// Categories group rules in --list-rules and the docs.
const (
	CatSyntax       = "syntax"       // JSON and schema structure
	CatManifest     = "manifest"     // §5.1, §3.3, §11.1
	CatCapabilities = "capabilities" // §4.2, §4.3
	CatGuides       = "guides"       // §5.2
	CatClosedSets   = "closed-sets"  // §5.2 and closed-sets-format.md
	CatRisk         = "risk"         // §5.3
	CatCatalog      = "catalog"      // §5.4
	CatRetention    = "retention"    // §6.6
	// CatEvolution rules compare the input with an earlier capture of the
	// same Server (Config.Baseline): §1.5, §5.4 and §11.2 state what may
	// and may not change between two captures, which no one document shows.
	CatEvolution = "evolution"
)

// Layout is where every lint rule lives, found from its ID alone: its
// code file, its page and its fixture (docs/design.md, "Rules").
var Layout = ruleset.Layout{Code: "lint/rules/%s.go", Doc: "docs/rules/%s.md", Fixture: "lint/rules/testdata/%s.txtar"}

// Rule is one check, where Layout says.
type Rule struct {
	ID       string
	Category string
	// Section is the Part II section the rule enforces, without "§".
	Section string
	// Severity is error for a MUST, warning for a SHOULD, info otherwise.
	Severity report.Severity
	// Summary is one sentence: what the rule requires.
	Summary string
	// Check inspects one input and reports through the pass.
	Check func(p *Pass)
}

// Info returns the rule's description for reporters.
func (r *Rule) Info() report.RuleInfo {
	return report.RuleInfo{ID: r.ID, Category: r.Category, Section: r.Section, Severity: r.Severity,
		Summary: r.Summary, Doc: Layout.DocOf(r.ID)}
}

// InputKind says what a linted file holds.
type InputKind int

// The input kinds.
const (
	KindUnknown  InputKind = iota
	KindManifest           // a manifest object (§5.1)
	KindSnapshot           // a snapshot file (data-model.md)
)

func (k InputKind) String() string {
	switch k {
	case KindManifest:
		return "manifest"
	case KindSnapshot:
		return "snapshot"
	}
	return "unknown"
}

// Locator maps a JSON Pointer into the linted document to the place a
// finding should point at: for hand-written JSON the value itself, for a
// document built from PDL the PDL construct it came from.
type Locator func(pointer string, key bool) (file string, line, col int)

// Grammar holds what is known about the Language's grammar when the input
// is a PDL definition (reading 14 of data-model.md); nil for plain JSON.
type Grammar struct {
	HasBranchesOrLoops bool
	AcceptsInput       bool
	NativeStepIDs      bool
	SummarizedLoops    bool
}

// Input is one document to lint.
type Input struct {
	// File is the name findings carry ("-" for standard input).
	File string
	// Src is the document. Run parses it with jsonpos.ParseShared and the
	// report keeps it, so it must not change while Run runs or while the
	// report is in use.
	Src []byte
	// Locate overrides positions (PDL builds); nil uses Src positions.
	Locate Locator
	// LocateValue places a value of a Language's closed set (the title
	// of its section of the closed-sets guide, closedsets.Sec…) at its
	// definition in the source (PDL builds), ok false when the source
	// has none (a reserved value); nil for a snapshot, where a finding
	// about a value is at the body of the guide that lists it.
	LocateValue func(language, section, value string) (file string, line, col int, ok bool)
	// Quoted holds the texts Locate places findings in, by file name (a
	// PDL and the files it reads), for the report's snippets; nil quotes
	// Src under File.
	Quoted map[string][]byte
	// Grammars maps a Language id to its grammar facts, when known.
	Grammars map[string]*Grammar
	// Size is the length the budgets per byte of the document charge
	// (jsonpos.TreeBudget), when not len(Src): a PDL build's snapshot is
	// linted compact and held to the budgets of the indented file build
	// writes, so its findings are those of that file's.
	Size int
}

// BudgetSize is the length of the document the budgets per byte of it
// charge: Size, or len(Src).
func (in *Input) BudgetSize() int {
	if in.Size > 0 {
		return in.Size
	}
	return len(in.Src)
}

// quoteInto records the texts the input's findings quote: a PDL's, not
// the snapshot built from it, whose lines are not the PDL's.
func (in *Input) quoteInto(sources map[string][]byte) {
	if in.Quoted == nil {
		sources[in.File] = in.Src
		return
	}
	maps.Copy(sources, in.Quoted)
}

// Config selects rules.
type Config struct {
	// Disabled rule IDs.
	Disabled map[string]bool
	// Baseline is an earlier capture (a manifest or snapshot) that every
	// input is compared with by the evolution rules; nil for none. Like an
	// Input, its Src must not change while Run runs or the report is used.
	Baseline *Input
	// MaxPerRule, when above 0, lists at most that many findings of one
	// rule per file and counts the rest (report.Cap).
	MaxPerRule int
}

// Run lints every input with the enabled rules and returns the report.
// Malformed JSON is a finding, never an error; Run fails only on a
// configuration error: an unknown rule ID in Disabled, or a Baseline that
// is not a manifest or snapshot (there is nothing to compare with).
func Run(rules []*Rule, inputs []*Input, cfg Config) (*report.Report, error) {
	c, err := NewChecker(rules, cfg)
	if err != nil {
		return nil, err
	}
	rep := c.Head()
	for _, in := range inputs {
		rep.AddReport(c.Check(in))
	}
	rep.Summary.Files = len(inputs)
	rep.Sort()
	return rep, nil
}

// Checker lints inputs one at a time, so a command can report each
// input's findings before it reads the next (pilotage lint of thousands
// of files holds one file's findings, not every file's).
type Checker struct {
	enabled []*Rule
	infos   []report.RuleInfo
	base    *Pass
	cfg     Config
	// idle are the enabled rules that run on no input: without a
	// baseline, the evolution rules, which have nothing to compare with.
	idle []string
}

// NewChecker prepares the enabled rules and the baseline. It fails as Run
// does: on an unknown rule ID in Disabled, or a Baseline that is not a
// manifest or snapshot.
func NewChecker(rules []*Rule, cfg Config) (*Checker, error) {
	known := make([]string, len(rules))
	for i, r := range rules {
		known[i] = r.ID
	}
	if err := suggest.UnknownRule(cfg.Disabled, known); err != nil {
		return nil, err
	}
	base, err := baselinePass(cfg.Baseline)
	if err != nil {
		return nil, err
	}
	c := &Checker{base: base, cfg: cfg}
	for _, r := range rules {
		if !cfg.Disabled[r.ID] {
			c.enabled = append(c.enabled, r)
			c.infos = append(c.infos, r.Info())
			if base == nil && r.Category == CatEvolution {
				c.idle = append(c.idle, r.ID)
			}
		}
	}
	return c, nil
}

// Head is the report of no input: the tool, the rules that run and what
// they count, and the baseline's text, which related locations quote.
// The reports of the inputs join it (Report.AddReport, report.Stream).
func (c *Checker) Head() *report.Report {
	rep := c.report()
	rep.Cap = nil // each input is capped in its own report
	if c.base != nil {
		c.base.In.quoteInto(rep.Sources)
	}
	rep.Summary.Checked = map[string]int{"rules": len(c.enabled)}
	return rep
}

// Rules describes the rules that run.
func (c *Checker) Rules() []report.RuleInfo { return slices.Clip(c.infos) }

func (c *Checker) report() *report.Report {
	rep := &report.Report{Tool: "pilotage lint", Sources: map[string][]byte{}, Rules: c.Rules()}
	if c.cfg.MaxPerRule > 0 {
		rep.Cap = report.NewCap(c.cfg.MaxPerRule)
	}
	return rep
}

// Check lints one input and returns its report, sorted, with its Cap's
// counts added: the input as its one file, the texts its findings
// quote, and the findings, which may be in other files too (a PDL's
// guides).
func (c *Checker) Check(in *Input) *report.Report {
	rep := c.report()
	rep.Files = []string{in.File}
	in.quoteInto(rep.Sources)
	// lintOne offers its findings to the report's cap as the rules
	// raise them and returns those listed.
	rep.AddListed(lintOne(c.enabled, in, c.base, rep.Cap)...)
	rep.Summary.Files = 1
	if len(c.idle) > 0 {
		// A suppression of one had nothing to suppress: it is not
		// unused (docs/config.md, "unused-suppression").
		rep.NotRun = map[string][]string{in.File: c.idle}
	}
	rep.Sort()
	return rep
}

// baselinePass parses the baseline into the pass its rules compare with;
// nil without one.
func baselinePass(in *Input) (*Pass, error) {
	if in == nil {
		return nil, nil
	}
	doc, err := parse(in)
	var be *jsonpos.BudgetError
	if errors.As(err, &be) {
		return nil, fmt.Errorf("baseline %s: %v", in.File, be)
	}
	if err != nil {
		se := err.(*jsonpos.SyntaxError)
		return nil, fmt.Errorf("baseline %s:%d:%d: malformed JSON: %s", in.File, se.Pos.Line, se.Pos.Column, se.Msg)
	}
	p := newPass(in, doc)
	if p.Kind == KindUnknown {
		return nil, fmt.Errorf("baseline %s is neither a manifest nor a snapshot, so there is nothing to compare with", in.File)
	}
	return p, nil
}

// parse reads in's Src into a tree that shares its bytes, after checking
// it without one (jsonpos.CheckBudgetOf), so that a malformed or too dense
// document is refused before its tree is built. The tree's strings
// share src instead of copying it: the report keeps src anyway, and on a
// large snapshot the copies were a fifth of the tree. The error is a
// *jsonpos.SyntaxError or a *jsonpos.BudgetError.
func parse(in *Input) (*jsonpos.Doc, error) {
	if err := jsonpos.CheckBudgetOf(in.Src, in.BudgetSize()); err != nil {
		return nil, err
	}
	return jsonpos.ParseShared(in.Src)
}

// lintOne parses one input and runs the rules over it, with base (nil
// for none) as the pass's Baseline, and returns the findings cap (nil
// for none) lists, which it hands on (report.Cap.Take).
func lintOne(rules []*Rule, in *Input, base *Pass, cap *report.Cap) []report.Finding {
	doc, err := parse(in)
	if err != nil {
		f := syntaxFinding(rules, in, err)
		if f == nil {
			return nil
		}
		if cap != nil {
			cap.Admit(*f)
			return cap.Take()
		}
		return []report.Finding{*f}
	}
	p := newPass(in, doc)
	p.Baseline = base
	p.cap = cap
	for _, r := range rules {
		p.rule = r
		r.Check(p)
	}
	if cap != nil {
		// The cap holds what it lists until the end: a finding raised
		// later before one listed takes its place.
		return cap.Take()
	}
	return p.findings
}

// syntaxFinding is the finding for err, parse's error on in, or nil when
// its rule is disabled.
func syntaxFinding(rules []*Rule, in *Input, err error) *report.Finding {
	// The finding belongs to the json-syntax rule, so --disable
	// json-syntax silences it like any other rule.
	if !slices.ContainsFunc(rules, func(r *Rule) bool { return r.ID == RuleJSONSyntax }) {
		return nil
	}
	var be *jsonpos.BudgetError
	if errors.As(err, &be) {
		return &report.Finding{
			Rule: RuleJSONSyntax, Section: "5", Severity: report.Error,
			Message: "JSON too dense to check: " + be.Error(), File: in.File, Line: 1, Column: 1,
			Hint: "a manifest or snapshot holds far fewer values a byte; look for a large array of numbers or empty values (docs/json.md, \"Dense documents\")",
		}
	}
	se := err.(*jsonpos.SyntaxError)
	hint := "fix the JSON syntax first; no other rule can run on this file"
	switch strings.ToLower(path.Ext(in.File)) {
	case ".yaml", ".yml":
		// The YAML files of a project are not lint's to check.
		hint = "lint checks manifests, snapshots and PDL files, not YAML: run a test case file with pilotage test FILE (docs/test.md); pilotage config show reads pilotage.yaml (docs/config.md)"
	case ".md", ".markdown":
		// Nor its guides, alone: what a guide must be (its topics, its
		// level, its example programs) is said by the PDL naming it.
		hint = "lint checks manifests, snapshots and PDL files, not Markdown: a guide is checked through the PDL that names it, pilotage lint LANG.pdl (docs/pdl.md#guide)"
	default:
		// Nor its programs, which validate checks against their
		// Language; one in the JSON form is told by document-kind.
		if inputs.LooksLikeText(in.Src) {
			hint = "this looks like a program in a Language's text syntax: lint checks manifests, snapshots and PDL files; " + inputs.Program.Use()
		}
	}
	return &report.Finding{
		Rule: RuleJSONSyntax, Section: "5", Severity: report.Error,
		Message: "malformed JSON: " + se.Msg, File: in.File,
		Line: se.Pos.Line, Column: se.Pos.Column, Pointer: "",
		Hint: hint,
	}
}

// RuleJSONSyntax is the ID of the built-in finding for unparsable JSON. It
// is a rule like any other (lint/rules registers its metadata) but is
// raised by the runner, since nothing else can run on such a file.
const RuleJSONSyntax = "json-syntax"
