package replay

import (
	"sort"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Rule describes one replay check: what --list-rules prints, what sarif's
// rule table carries and what docs/replay.md documents under a heading
// named by ID. Severity is the default; a few findings state their own
// (expected-set reports unplanned pure steps of a successful Run as info,
// reading 4).
type Rule struct {
	report.RuleInfo
	// UsesPlan marks checks that compare the trace with the plan; they are
	// dropped for a deploy installation trace (§5.8.4) and for a refused
	// Run, where no plan step ran.
	UsesPlan bool
}

// Rule IDs, one constant per rule so a typo is a compile error.
const (
	RuleTraceJSON         = "trace-json"
	RuleTraceShape        = "trace-shape"
	RuleIDSyntax          = "trace-id-syntax"
	RuleIDQualifiers      = "trace-id-qualifiers"
	RuleIDPrefix          = "trace-id-prefix"
	RuleEntryOnce         = "entry-once"
	RuleEntryOrder        = "entry-order"
	RuleEntryKind         = "entry-kind"
	RuleBranchDecision    = "branch-decision"
	RuleLoopDecisions     = "loop-decisions"
	RuleDecisionAt        = "decision-at"
	RuleControlFlowCalls  = "control-flow-calls"
	RuleTraceLevel        = "trace-level"
	RuleLevelContent      = "level-content"
	RuleExpectedSet       = "expected-set"
	RuleUnselectedArm     = "unselected-arm"
	RuleExpectedPresent   = "expected-present"
	RuleEntryCalls        = "entry-calls"
	RuleDeployTrace       = "deploy-trace"
	RuleRunOutcome        = "run-outcome"
	RuleRefusedRun        = "refused-run"
	RuleStepOutcome       = "step-outcome"
	RuleClosedSetStatus   = "closed-set-status"
	RuleSummaryTruncation = "summary-truncation"
	RulePlanShape         = "plan-shape"
	RuleExpectedReached   = "expected-reached"
	RuleCatalogVersion    = "catalog-version"
	RuleTraceMode         = "trace-mode"
	RuleRunOutput         = "run-output"
	RuleDiagnostics       = "response-diagnostics"
	RulePlanRisk          = "plan-risk"
	RuleFetchNarration    = "fetch-narration"
)

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
)

// doc is where docs/replay.md documents a rule.
func doc(id string) string { return "docs/replay.md#" + id }

var rules = []*Rule{
	{report.RuleInfo{ID: RuleTraceJSON, Category: CatDocument, Section: "5.8", Severity: report.Error, Summary: "A trace file is well-formed JSON.", Doc: doc(RuleTraceJSON)}, false},
	{report.RuleInfo{ID: RuleTraceShape, Category: CatDocument, Section: "5.8", Severity: report.Error, Summary: "A trace file holds a trace, an execute response or a trace-fetch response, with every required member and each step an object with an id and an outcome.", Doc: doc(RuleTraceShape)}, false},
	{report.RuleInfo{ID: RuleIDSyntax, Category: CatIdentity, Section: "5.8.2", Severity: report.Error, Summary: "A trace step id is base#n…, optionally prefixed by calling ids and /, with non-empty bases and positive qualifiers.", Doc: doc(RuleIDSyntax)}, false},
	{report.RuleInfo{ID: RuleIDQualifiers, Category: CatIdentity, Section: "5.8.2", Severity: report.Error, Summary: "A step carries one #n per enclosing loop, outermost first, 1-based and consecutive per activation, restarting per outer iteration.", Doc: doc(RuleIDQualifiers)}, true},
	{report.RuleInfo{ID: RuleIDPrefix, Category: CatIdentity, Section: "5.8.2", Severity: report.Error, Summary: "A / prefix names the calling entry that comes right before its expanded entries.", Doc: doc(RuleIDPrefix)}, false},
	{report.RuleInfo{ID: RuleEntryOnce, Category: CatIdentity, Section: "5.8.2", Severity: report.Error, Summary: "Every executed step appears exactly once.", Doc: doc(RuleEntryOnce)}, true},
	{report.RuleInfo{ID: RuleEntryOrder, Category: CatIdentity, Section: "5.8.2", Severity: report.Warning, Summary: "Entries of one sequence appear in the order their plan steps are listed.", Doc: doc(RuleEntryOrder)}, true},
	{report.RuleInfo{ID: RuleEntryKind, Category: CatControlFlow, Section: "5.8", Severity: report.Error, Summary: "A trace entry's kind is step, branch or loop and mirrors its plan step.", Doc: doc(RuleEntryKind)}, true},
	{report.RuleInfo{ID: RuleBranchDecision, Category: CatControlFlow, Section: "5.8", Severity: report.Error, Summary: "A branch entry carries exactly one decision whose took is one of the branch's arms.", Doc: doc(RuleBranchDecision)}, true},
	{report.RuleInfo{ID: RuleLoopDecisions, Category: CatControlFlow, Section: "5.8.2", Severity: report.Error, Summary: "A loop entry's continue/exit decisions agree with the iterations its body ran; a zero-iteration loop has exactly one exit.", Doc: doc(RuleLoopDecisions)}, true},
	{report.RuleInfo{ID: RuleDecisionAt, Category: CatControlFlow, Section: "5.8", Severity: report.Error, Summary: "A decision's at is its construct's step identifier or the complete trace id of its entry (reading 2, amended).", Doc: doc(RuleDecisionAt)}, false},
	{report.RuleInfo{ID: RuleControlFlowCalls, Category: CatControlFlow, Section: "5.6", Severity: report.Error, Summary: "Branch and loop entries carry no calls.", Doc: doc(RuleControlFlowCalls)}, true},
	{report.RuleInfo{ID: RuleTraceLevel, Category: CatLevels, Section: "5.8.1", Severity: report.Error, Summary: "A trace's level is summary or full, and no higher than the Language declares.", Doc: doc(RuleTraceLevel)}, false},
	{report.RuleInfo{ID: RuleLevelContent, Category: CatLevels, Section: "5.8.1", Severity: report.Error, Summary: "At full every non-control-flow entry that made its call carries input; at summary no entry does (reading 6, amended).", Doc: doc(RuleLevelContent)}, false},
	{report.RuleInfo{ID: RuleExpectedSet, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error, Summary: "Every unprefixed entry maps to the expected set of the decisions taken (readings 1 and 4).", Doc: doc(RuleExpectedSet)}, true},
	{report.RuleInfo{ID: RuleUnselectedArm, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error, Summary: "Steps of branch arms that were not selected are absent.", Doc: doc(RuleUnselectedArm)}, true},
	{report.RuleInfo{ID: RuleExpectedPresent, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error, Summary: "A successful Run's trace holds every expected step, loop-body steps once per iteration (reading 1).", Doc: doc(RuleExpectedPresent)}, true},
	{report.RuleInfo{ID: RuleEntryCalls, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error, Summary: "An entry's calls are listed on its plan step, and a plan step with calls is matched by an entry naming them (reading 5).", Doc: doc(RuleEntryCalls)}, true},
	{report.RuleInfo{ID: RuleExpectedReached, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Warning, Summary: "In a Run that did not complete, every expected step that execution passed appears: those before a later entry of their sequence, and every step of an iteration or arm that a later entry closed.", Doc: doc(RuleExpectedReached)}, true},
	{report.RuleInfo{ID: RuleCatalogVersion, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Error, Summary: "A started Run executed at the catalog_version its plan was derived at.", Doc: doc(RuleCatalogVersion)}, true},
	{report.RuleInfo{ID: RuleTraceMode, Category: CatCorrespondence, Section: "6.5.7", Severity: report.Error, Summary: "A trace's mode is immediate, deploy or test_run, one the Language's execution_mode and execute.test_run allow.", Doc: doc(RuleTraceMode)}, false},
	{report.RuleInfo{ID: RuleDeployTrace, Category: CatCorrespondence, Section: "5.8.4", Severity: report.Info, Summary: "A deploy installation trace is not matched against the body plan.", Doc: doc(RuleDeployTrace)}, false},
	{report.RuleInfo{ID: RuleRunOutcome, Category: CatOutcomes, Section: "5.7", Severity: report.Error, Summary: "The run outcome's ok agrees with its status; a started Run that did not complete is ok: false.", Doc: doc(RuleRunOutcome)}, false},
	{report.RuleInfo{ID: RuleRefusedRun, Category: CatOutcomes, Section: "3.6", Severity: report.Error, Summary: "A refused Run (validation_error, catalog_drift, promotion_drift) has no executed steps (reading 8).", Doc: doc(RuleRefusedRun)}, false},
	{report.RuleInfo{ID: RuleStepOutcome, Category: CatOutcomes, Section: "5.7", Severity: report.Error, Summary: "A step outcome's ok agrees with its status; run-only statuses never appear on steps (reading 10).", Doc: doc(RuleStepOutcome)}, false},
	{report.RuleInfo{ID: RuleRunOutput, Category: CatOutcomes, Section: "6.5", Severity: report.Error, Summary: "A response carries output only when its outcome is ok.", Doc: doc(RuleRunOutput)}, false},
	{report.RuleInfo{ID: RuleDiagnostics, Category: CatOutcomes, Section: "6.5.2", Severity: report.Error, Summary: "A validation_error response attaches its diagnostics, at least one an error; each diagnostic has code, severity, message and path, with a code from the Language's closed set.", Doc: doc(RuleDiagnostics)}, false},
	{report.RuleInfo{ID: RuleFetchNarration, Category: CatOutcomes, Section: "6.6", Severity: report.Error, Summary: "Narration comes only from the fetch door of a Language declaring trace_fetch.narrate, and never for a refused Run.", Doc: doc(RuleFetchNarration)}, false},
	{report.RuleInfo{ID: RuleClosedSetStatus, Category: CatClosedSets, Section: "1.5", Severity: report.Error, Summary: "Run and step statuses are listed in the Language's closed-sets guide, with the ok it gives them.", Doc: doc(RuleClosedSetStatus)}, false},
	{report.RuleInfo{ID: RuleSummaryTruncation, Category: CatClosedSets, Section: "5.8.1", Severity: report.Error, Summary: "Step outputs are truncated exactly as the closed-sets guide documents.", Doc: doc(RuleSummaryTruncation)}, false},
	{report.RuleInfo{ID: RulePlanShape, Category: CatPlan, Section: "5.6", Severity: report.Error, Summary: "The plan is a plan: unique step ids, arm and loop references to branch and loop steps, labels listed in arms, no calls on control flow, a mode of immediate or deploy.", Doc: doc(RulePlanShape)}, false},
	{report.RuleInfo{ID: RulePlanRisk, Category: CatPlan, Section: "5.3", Severity: report.Error, Summary: "The plan carries max_risk and max_risk_hints, every step its risk and risk_hints; hints are consistent, max_risk_hints is their aggregate, and with the Language every risk is a declared level with its hints and max_risk is the least risky level covering the aggregate.", Doc: doc(RulePlanRisk)}, false},
}

var byID = func() map[string]*Rule {
	m := map[string]*Rule{}
	for _, r := range rules {
		m[r.ID] = r
	}
	return m
}()

// Rules returns every replay rule, sorted by ID.
func Rules() []*Rule {
	out := append([]*Rule(nil), rules...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// RuleByID returns the rule with the given ID, or nil.
func RuleByID(id string) *Rule { return byID[id] }
