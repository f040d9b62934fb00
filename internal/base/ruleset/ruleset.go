// Package ruleset is the one shape every checker's rules take (lint,
// replay, conform): a rule registers under its ID from its own file, and
// the ID alone names that file, its documentation and its fixture.
package ruleset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Rule is what a checker registers: anything that describes itself.
type Rule interface {
	Info() report.RuleInfo
}

// Layout says where a checker keeps what each of its rules has, as
// repository paths with one %s for the ID. In Code the ID is written
// with _ for -, as Go file names are.
type Layout struct {
	// Code is the file that defines the rule ("lint/rules/%s.go").
	Code string
	// Doc is its page ("docs/rules/%s.md") or a section of a page anchored
	// by the ID ("docs/replay.md#%s").
	Doc string
	// Fixture holds its failing and passing cases.
	Fixture string
}

// CodeFile is the file that defines rule id.
func (l Layout) CodeFile(id string) string {
	return fmt.Sprintf(l.Code, strings.ReplaceAll(id, "-", "_"))
}

// DocOf is where rule id is documented.
func (l Layout) DocOf(id string) string { return fmt.Sprintf(l.Doc, id) }

// FixtureOf is the fixture of rule id.
func (l Layout) FixtureOf(id string) string { return fmt.Sprintf(l.Fixture, id) }

// Registry holds the rules of one checker.
type Registry[R Rule] struct {
	Layout Layout
	rules  []R
	byID   map[string]R
}

// New returns an empty registry whose rules follow l.
func New[R Rule](l Layout) *Registry[R] { return &Registry[R]{Layout: l, byID: map[string]R{}} }

// Register adds r and returns it, so a rule file can write
// `var x = registry.Register(...)`. An empty or repeated ID is a
// programming error and panics at start-up, before any check runs.
func (g *Registry[R]) Register(r R) R {
	id := r.Info().ID
	if id == "" {
		panic("ruleset: a rule without an ID")
	}
	if _, ok := g.byID[id]; ok {
		panic("ruleset: rule " + id + " registered twice")
	}
	g.rules = append(g.rules, r)
	g.byID[id] = r
	return r
}

// All returns every rule, sorted by ID.
func (g *Registry[R]) All() []R {
	out := slices.Clone(g.rules)
	slices.SortFunc(out, func(a, b R) int { return strings.Compare(a.Info().ID, b.Info().ID) })
	return out
}

// Lookup returns the rule with the given ID.
func (g *Registry[R]) Lookup(id string) (R, bool) {
	r, ok := g.byID[id]
	return r, ok
}

// Infos describes every rule, sorted by ID, for --list-rules and sarif;
// a rule that does not name its documentation gets the Layout's.
func (g *Registry[R]) Infos() []report.RuleInfo {
	var out []report.RuleInfo
	for _, r := range g.All() {
		i := r.Info()
		if i.Doc == "" {
			i.Doc = g.Layout.DocOf(i.ID)
		}
		out = append(out, i)
	}
	return out
}

// Table is the Markdown table of rules that the docs' rule lists are
// generated from: one row per rule, its ID linked by link.
func Table(infos []report.RuleInfo, link func(id string) string) string {
	var b strings.Builder
	b.WriteString("| rule | category | section | severity | summary |\n|---|---|---|---|---|\n")
	for _, r := range infos {
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | %s | %s |\n", r.ID, link(r.ID), r.Category, report.CiteAll(r.AllSections()), r.Severity,
			strings.ReplaceAll(r.Summary, "|", `\|`))
	}
	return b.String()
}
