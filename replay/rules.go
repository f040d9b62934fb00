package replay

import (
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
)

// Rule describes one replay check: what --list-rules prints, what sarif's
// rule table carries and what docs/replay.md documents under a heading
// named by ID. Each is defined in its own file, <id>_rule.go. Severity is
// the default; a few findings state their own (expected-set reports
// unplanned pure steps of a successful Run as info, reading 4).
type Rule struct {
	report.RuleInfo
	// UsesPlan marks checks that compare the trace with the plan; they are
	// dropped for a deploy installation trace (§5.8.4) and for a refused
	// Run, where no plan step ran.
	UsesPlan bool
}

// Categories group the rules in --list-rules and docs/replay.md.
const (
	CatDocument       = "document"
	CatIdentity       = "identity"
	CatControlFlow    = "control-flow"
	CatLevels         = "levels"
	CatCorrespondence = "correspondence"
	CatOutcomes       = "outcomes"
	CatClosedSets     = "closed-sets"
	CatPlan           = "plan"
	CatDeep           = "deep"
)

// Layout is where every replay rule lives, found from its ID alone: its
// code file, its section of docs/replay.md and its fixture
// (docs/design.md, "Rules").
var Layout = ruleset.Layout{Code: "replay/%s_rule.go", Doc: "docs/replay.md#%s", Fixture: "replay/testdata/rules/%s.txtar"}

// registry holds every replay rule; each rule file registers its own.
var registry = ruleset.New[*Rule](Layout)

// Rules returns every replay rule, sorted by ID.
func Rules() []*Rule { return registry.All() }

// RuleInfos describes every replay rule, sorted by ID, for --list-rules
// and sarif.
func RuleInfos() []report.RuleInfo { return registry.Infos() }

// RuleByID returns the rule with the given ID, or nil.
func RuleByID(id string) *Rule {
	r, _ := registry.Lookup(id)
	return r
}
