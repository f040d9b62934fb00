package conform

import (
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/replay"
)

// Conform's own rules: what only a running server can show (the MCP
// binding, the result channels, paging, the fetch door). Everything a
// published artifact shows is left to the lint rules, and everything a
// trace shows to the replay rules, run on what the server returned. Each
// is defined in its own file, <id>_rule.go, and needs no more than its
// report.RuleInfo.

// Section names for rules of the binding, which is not part of Part II.
const bindingDoc = "binding.md"

// Layout is where every conform rule lives, found from its ID alone: its
// code file, its section of docs/conform.md and its fixture
// (docs/design.md, "Rules").
var Layout = ruleset.Layout{Code: "workbench/conform/%s_rule.go", Doc: "docs/conform.md#%s", Fixture: "workbench/conform/testdata/rules/%s.golden"}

// registry holds conform's own rules; each rule file registers its own.
var registry = ruleset.New[*report.RuleInfo](Layout)

// Rules describes conform's own rules, for --list-rules and sarif.
func Rules() []report.RuleInfo { return registry.Infos() }

// AllRules describes every rule a check runs: conform's own, lint's and
// replay's, for --list-rules and --disable.
func AllRules() []report.RuleInfo {
	return append(append(Rules(), lintRules()...), replayRules()...)
}

// lintRules describes the lint rules conform runs on the snapshot.
func lintRules() []report.RuleInfo {
	var infos []report.RuleInfo
	for _, r := range rules.All() {
		infos = append(infos, r.Info())
	}
	return infos
}

// replayRules describes the replay rules conform runs on the Run.
func replayRules() []report.RuleInfo { return replay.RuleInfos() }

// CheckDisabled fails on the first disabled ID that names none of
// AllRules, with the error lint's and replay's --disable give.
func CheckDisabled(disabled map[string]bool) error {
	var ids []string
	for _, r := range AllRules() {
		ids = append(ids, r.ID)
	}
	return suggest.UnknownRule(disabled, ids)
}

// disabledOf is the part of the disabled IDs that names one of infos,
// for lint and replay, which refuse an ID that is not theirs.
func disabledOf(disabled map[string]bool, infos []report.RuleInfo) map[string]bool {
	out := map[string]bool{}
	for _, r := range infos {
		if disabled[r.ID] {
			out[r.ID] = true
		}
	}
	return out
}

func ruleInfo(id string) report.RuleInfo {
	r, ok := registry.Lookup(id)
	if !ok {
		panic("conform: unknown rule " + id)
	}
	return r.Info()
}
