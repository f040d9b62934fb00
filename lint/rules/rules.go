// Package rules holds the lint rules, one per file. Each file defines one
// *lint.Rule and registers it in init; docs/rules/<id>.md documents it and
// testdata/<id>.txtar holds its failing and passing fixtures.
package rules

import (
	"sort"

	"github.com/pilotage-dev/pilotage/lint"
)

var registry []*lint.Rule

// register adds a rule; called from each rule file's init.
func register(r *lint.Rule) { registry = append(registry, r) }

// All returns every rule, sorted by ID.
func All() []*lint.Rule {
	out := append([]*lint.Rule(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ByID returns the rule with the given ID, or nil.
func ByID(id string) *lint.Rule {
	for _, r := range registry {
		if r.ID == id {
			return r
		}
	}
	return nil
}
