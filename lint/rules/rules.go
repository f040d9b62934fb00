// Package rules holds the lint rules, one per file named after its ID;
// lint.Layout says where its page and fixture are.
package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/lint"
)

// Registry holds every lint rule; each rule file registers its own.
var Registry = ruleset.New[*lint.Rule](lint.Layout)

// register adds a rule; called from each rule file's init.
func register(r *lint.Rule) { Registry.Register(r) }

// All returns every rule, sorted by ID.
func All() []*lint.Rule { return Registry.All() }
