// Package pdllint lints a PDL file: it compiles it (the compiler's
// findings are the PDL-level checks), emits the snapshot the file
// describes, and runs every lint rule on that snapshot with positions
// mapped back to the PDL constructs the values came from. The result is
// one report in the format every checking command prints.
package pdllint

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// IsPDL reports whether a file name is a PDL file.
func IsPDL(name string) bool { return strings.HasSuffix(name, ".pdl") }

// isPDLInput reports whether an input is PDL: a file named *.pdl, or
// standard input ("-", which has no suffix to go by) that reads as PDL. A
// JSON document starts with a value; a PDL file starts with a comment or a
// keyword, and true, false and null are the only JSON values that also
// start with a letter.
func isPDLInput(in *lint.Input) bool {
	if in.File != "-" {
		return IsPDL(in.File)
	}
	s := bytes.TrimLeft(in.Src, " \t\r\n\ufeff")
	if len(s) == 0 {
		return false
	}
	c := s[0] | 0x20 // ASCII lower case
	return s[0] == '#' || ('a' <= c && c <= 'z' && !json.Valid(s))
}

// Rules describes every rule `pilotage lint` applies: the lint rules
// given, the PDL compiler's (pdl.Rules) and those of the suppression
// comments PDL files carry (suppress.Rules), so --list-rules shows, and
// --disable accepts, all three kinds.
func Rules(lintRules []*lint.Rule) []report.RuleInfo {
	out := make([]report.RuleInfo, 0, len(lintRules)+len(pdl.Rules))
	for _, r := range lintRules {
		out = append(out, r.Info())
	}
	return append(append(out, pdl.Rules...), suppress.Rules()...)
}

// isPDLRule reports whether id names a rule of the PDL compiler.
func isPDLRule(id string) bool {
	return slices.ContainsFunc(pdl.Rules, func(r report.RuleInfo) bool { return r.ID == id })
}

// Input compiles a PDL file and prepares it for lint.Run, leaving out the
// findings of the PDL rules in disabled. When an error remains, no lint
// input is built (the snapshot would be partial) and the compile findings
// are all there is to report.
func Input(name string, src []byte, opts compile.Options, disabled map[string]bool) (*lint.Input, *compile.Result, error) {
	res := compile.Source(name, src, opts)
	res.Findings = slices.DeleteFunc(res.Findings, func(f report.Finding) bool { return disabled[f.Rule] })
	if !res.OK() || res.Server == nil {
		return nil, res, nil
	}
	in, err := Prepare(name, res)
	return in, res, err
}

// Prepare is the lint input of res, what compiling the PDL file name
// gave without errors: the snapshot it builds, with every finding placed
// in the PDL. Build lints what it compiled through it, not compiling
// again.
func Prepare(name string, res *compile.Result) (*lint.Input, error) {
	// Compact: the findings are placed in the PDL (Locator) and quote it,
	// never the snapshot, whose text and tree are live together while the
	// rules run, and indentation more than doubled the text. The budgets
	// charge the file build writes, so the findings are that file's.
	snap, err := emit.CompactSnapshotJSON(res.Server)
	if err != nil {
		return nil, err
	}
	return &lint.Input{File: name, Src: snap, Size: emit.IndentedLen(snap), Locate: Locator(name, res.Server, res.Sources),
		LocateValue: ValueLocator(res.Server), Quoted: res.Sources, Grammars: Grammars(res.Server)}, nil
}

// lastItemSpots is compile.ItemSpotsAt on src, keeping the item last
// read: a rule reports an entry's findings one after another, and
// reading the entry again for each made one entry of n findings cost n
// times its length (a languages list of 20,000 unknown ids: 40 s).
func lastItemSpots(src []byte) func(language.Spot) language.ItemSpots {
	var (
		mu    sync.Mutex
		item  language.Spot
		spots language.ItemSpots
		read  bool
	)
	return func(at language.Spot) language.ItemSpots {
		mu.Lock()
		defer mu.Unlock()
		if !read || at != item {
			item, spots, read = at, compile.ItemSpotsAt(src, at), true
		}
		return spots
	}
}

// Locator maps a snapshot pointer to the PDL construct it came from: the
// longest recorded prefix of the pointer, or the file's start; a catalog
// item and an authored guide, and their members, are placed by their
// Language's Items and GuideSpots. It reads
// the compiled positions where they are (a copy of them all into one map
// was, for a large catalog, as large as the model it copied), and keeps
// only them: the model's catalog, 2.5 MB of the generated Language's, is
// garbage once the snapshot is written. An item's members are placed
// by reading its entry statement again from sources, the files the
// Languages were compiled from (compile.ItemSpotsAt).
func Locator(name string, srv *language.Server, sources map[string][]byte) lint.Locator {
	langs := make([]language.Language, len(srv.Languages))
	for i, l := range srv.Languages {
		langs[i] = language.Language{ID: l.ID, Pos: l.Pos, Positions: l.Positions, Items: l.Items, GuideSpots: l.GuideSpots}
		if src, ok := sources[l.Pos.File]; ok {
			langs[i].ItemSpotsAt = lastItemSpots(src)
		}
	}
	positions := srv.Positions
	at := func(p string) (language.Pos, bool) {
		for i := len(langs) - 1; i >= 0; i-- {
			if pos, ok := langs[i].Position(p); ok {
				return pos, true
			}
		}
		pos, ok := positions[p]
		return pos, ok
	}
	return func(pointer string, _ bool) (string, int, int) {
		for p := pointer; ; {
			if pos, ok := at(p); ok {
				return pos.File, pos.Line, pos.Column
			}
			if p == "" {
				return name, 1, 1
			}
			p = p[:strings.LastIndexByte(p, '/')]
		}
	}
}

// setKeys are the keys of language.Language.SetValues of each section of
// the closed-sets guide.
var setKeys = map[string]string{
	closedsets.SecRiskLevels: "risk", closedsets.SecCatalogKinds: "kind", closedsets.SecDiagnosticCodes: "diagnostic",
	closedsets.SecRunStatuses: "status run", closedsets.SecStepStatuses: "status step",
}

// ValueLocator is lint.Input.LocateValue of a build: the statement that
// defines a closed-set value. Like Locator, it keeps only the positions.
func ValueLocator(srv *language.Server) func(lang, section, value string) (string, int, int, bool) {
	values := make(map[string]*language.Language, len(srv.Languages))
	for _, l := range srv.Languages {
		values[l.ID] = &language.Language{Pos: l.Pos, SetValues: l.SetValues}
	}
	return func(lang, section, value string) (string, int, int, bool) {
		key, ok := setKeys[section]
		l := values[lang]
		if !ok || l == nil {
			return "", 0, 0, false
		}
		pos, ok := l.SetValue(key, value)
		return pos.File, pos.Line, pos.Column, ok
	}
}

// Grammars states what the lint rules cannot see in a snapshot: each
// Language's grammar (reading 14 of data-model.md).
func Grammars(srv *language.Server) map[string]*lint.Grammar {
	out := map[string]*lint.Grammar{}
	for _, l := range srv.Languages {
		out[l.ID] = &lint.Grammar{
			HasBranchesOrLoops: l.Grammar.HasControlFlow(),
			AcceptsInput:       l.Grammar.Input,
			// A text syntax generates the ids of unlabeled statements
			// (§3.4), so its closed-sets guide must document the scheme.
			NativeStepIDs: l.Text == nil,
		}
	}
	return out
}

// Run is lint.Run for a mix of JSON and PDL inputs: each input whose
// name ends in .pdl (or standard input that reads as PDL) is compiled
// (file names inside it are relative to its directory) and replaced by
// its snapshot, its compile findings join the report, and its source
// replaces the snapshot for text snippets, since every finding points
// into the PDL.
//
// cfg.Disabled may name PDL rules as well as lint rules; a disabled PDL
// rule's findings are dropped and do not stop the lint rules from running
// on the build. It may name the rules of suppressions too, which run
// when the report is brought under pilotage.yaml (config.Apply): the
// report lists those that are on, with the PDL rules. cfg.MaxPerRule
// caps the compile findings too, as the compiler raises them.
func Run(rules []*lint.Rule, inputs []*lint.Input, cfg lint.Config) (*report.Report, error) {
	c, err := NewChecker(rules, cfg)
	if err != nil {
		return nil, err
	}
	rep := c.Head()
	for _, in := range inputs {
		b, err := c.Check(in)
		if err != nil {
			return nil, err
		}
		rep.AddReport(b)
	}
	rep.Rules = c.Rules()
	rep.Summary.Files = len(inputs)
	rep.Sort()
	rep.Dedupe()
	return rep, nil
}

// Checker is Run an input at a time (lint.Checker).
type Checker struct {
	lint  *lint.Checker
	rules []*lint.Rule
	// pdlOff are the rules of PDL and of suppressions disabled.
	pdlOff     map[string]bool
	maxPerRule int
	// pdlSeen says an input was PDL, whose rules then join the report's.
	pdlSeen bool
}

// NewChecker prepares Run's rules and baseline; it fails as Run does.
func NewChecker(rules []*lint.Rule, cfg lint.Config) (*Checker, error) {
	// Every rule lint applies may be disabled, and a typo gets the
	// nearest of them all (lint.Run would know only its own).
	var ids []string
	for _, r := range Rules(rules) {
		ids = append(ids, r.ID)
	}
	if err := suggest.UnknownRule(cfg.Disabled, ids); err != nil {
		return nil, err
	}
	lintCfg := lint.Config{Disabled: map[string]bool{}, Baseline: cfg.Baseline, MaxPerRule: cfg.MaxPerRule}
	c := &Checker{rules: rules, pdlOff: map[string]bool{}, maxPerRule: cfg.MaxPerRule}
	for id, off := range cfg.Disabled {
		if isPDLRule(id) || suppress.IsRule(id) {
			c.pdlOff[id] = off
		} else {
			lintCfg.Disabled[id] = off
		}
	}
	lc, err := lint.NewChecker(rules, lintCfg)
	if err != nil {
		return nil, err
	}
	c.lint = lc
	return c, nil
}

// Head is lint.Checker.Head.
func (c *Checker) Head() *report.Report { return c.lint.Head() }

// Rules are the rules of the inputs checked so far: the lint rules that
// run, and when an input was PDL the rules of PDL and of suppressions
// that are on.
func (c *Checker) Rules() []report.RuleInfo {
	if !c.pdlSeen {
		return c.lint.Rules()
	}
	return c.PDLRules()
}

// PDLRules are Rules once a PDL input is checked: the lint rules that
// run and the rules of PDL and of suppressions that are on. Build's
// report of several definitions lists them whether or not any compiles.
func (c *Checker) PDLRules() []report.RuleInfo {
	out := c.lint.Rules()
	for _, r := range append(slices.Clip(pdl.Rules), suppress.Rules()...) {
		if !c.pdlOff[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

// Check lints one input and returns its report, sorted and deduplicated:
// a PDL input is compiled first, and its compile findings, capped as
// the compiler raises them, join those of the lint rules on its build.
// It fails only when the build cannot be written.
func (c *Checker) Check(in *lint.Input) (*report.Report, error) {
	if !isPDLInput(in) {
		return c.lint.Check(in), nil
	}
	// The compiler caps its findings as it raises them, in a cap of its
	// own (lint's Check makes the report's), whose counts join the
	// report's.
	var pdlCap *report.Cap
	if c.maxPerRule > 0 {
		pdlCap = report.NewCap(c.maxPerRule)
	}
	// An input's bytes are only read from here on (its findings'
	// snippets quote them), so the compiled model shares them.
	li, res, err := Input(in.File, in.Src, compile.Options{Dir: filepath.Dir(in.File), Cap: pdlCap, Shared: true}, c.pdlOff)
	if err != nil {
		return nil, err
	}
	// The lint input keeps what lint needs of the model (Locator,
	// Grammars); the rest need not be live while the rules run.
	res.Server = nil
	return c.Compiled(in.File, li, res, pdlCap), nil
}

// Compiled is Check of a PDL file name compiled already, res, as build
// compiles it: li is Prepare's input of res, nil when res has errors, and
// pdlCap the cap the compiler raised res's findings in, or nil.
func (c *Checker) Compiled(name string, li *lint.Input, res *compile.Result, pdlCap *report.Cap) *report.Report {
	c.pdlSeen = true
	var rep *report.Report
	if li != nil {
		rep = c.lint.Check(li)
	} else {
		// A file that did not compile was not linted: a suppression of
		// a lint rule in it can be neither used nor unused.
		rep = c.lint.Head()
		rep.Summary.Checked = nil
		rep.Files = []string{name}
		lintIDs := make([]string, len(c.rules))
		for i, r := range c.rules {
			lintIDs[i] = r.ID
		}
		rep.NotRun = map[string][]string{name: lintIDs}
	}
	maps.Copy(rep.Sources, res.Sources)
	rep.AddListed(res.Findings...)
	if pdlCap != nil {
		if rep.Cap == nil {
			rep.Cap = report.NewCap(c.maxPerRule)
		}
		rep.Cap.Include(pdlCap, func(rule string) bool { return !c.pdlOff[rule] })
	}
	// The counts of what a cap left out cite their rule's section.
	rep.Rules = c.Rules()
	rep.Sort()
	rep.Dedupe()
	return rep
}
