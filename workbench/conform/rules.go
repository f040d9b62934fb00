package conform

import (
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/replay"
)

// Conform's own rules: what only a running server can show (the MCP
// binding, the result channels, paging, the fetch door). Everything a
// published artifact shows is left to the lint rules, and everything a
// trace shows to the replay rules, run on what the server returned.
const (
	RuleExtension     = "binding-extension"
	RuleVersion       = "binding-version"
	RuleTools         = "binding-tools"
	RuleResources     = "binding-resources"
	RuleResultShape   = "result-channel"
	RuleRequestError  = "request-error-channel"
	RuleCarrierError  = "carrier-error-channel"
	RuleAnswers       = "operation-answers"
	RulePaging        = "lookup-paging"
	RuleBounds        = "read-bounds"
	RuleFetchSameRun  = "trace-fetch-run"
	RuleProgramChecks = "program-valid"
	RuleChangedSince  = "lookup-changed-since"
	RuleUnknownName   = "validate-unknown-name"
	RuleRefusals      = "execute-refusals"
	RuleDriftText     = "catalog-drift-text"
	RuleNotFoundSame  = "not-found-indistinguishable"
)

// Section names for rules of the binding, which is not part of Part II.
const bindingDoc = "binding.md"

var own = []report.RuleInfo{
	{ID: RuleExtension, Category: "binding", Section: bindingDoc, Severity: report.Error,
		Summary: `initialize declares capabilities.extensions["dev.pilotage/pilotage"] with a version and the discover tool.`},
	{ID: RuleVersion, Category: "binding", Section: "11.1", Severity: report.Error,
		Summary: "The server's extension major version is not above the client's; a client must not use Pilotage with a newer major."},
	{ID: RuleTools, Category: "binding", Section: bindingDoc, Severity: report.Error,
		Summary: "Every tool the manifest names is listed by tools/list, with an object inputSchema and outputSchema."},
	{ID: RuleResources, Category: "binding", Section: bindingDoc, Severity: report.Error,
		Summary: "pilotage://manifest holds the manifest discover returns; when a Language's guides are published as resources, every guide of the learn index has one holding its body, and none names another guide."},
	{ID: RuleResultShape, Category: "channels", Section: "8", Severity: report.Error,
		Summary: "A processed operation answers isError false, the response as structuredContent and the same JSON as one text block."},
	{ID: RuleRequestError, Category: "channels", Section: "8", Severity: report.Error,
		Summary: `A request error answers isError true with {"error": {"kind", "message"}} of a closed kind; unknown guides, entries and runs are not_found.`},
	{ID: RuleCarrierError, Category: "channels", Section: "8", Severity: report.Error,
		Summary: "An unknown tool or arguments that are not an object are JSON-RPC errors, not tool results."},
	{ID: RuleAnswers, Category: "operations", Section: "6", Severity: report.Error,
		Summary: "discover, learn, lookup, validate, execute and trace answer a well-formed request, within the timeout."},
	{ID: RulePaging, Category: "operations", Section: "6.3", Severity: report.Error,
		Summary: "lookup list cursors lead to the end of the catalog without repeating, at one catalog_version."},
	{ID: RuleBounds, Category: "operations", Section: "6.3", Severity: report.Warning,
		Summary: "Conform read everything the server publishes within its bounds (--max-items, --max-pages, --max-languages); what lies beyond was not checked."},
	{ID: RuleFetchSameRun, Category: "operations", Section: "6.6", Severity: report.Error,
		Summary: "The fetch door returns the Run execute returned: the same run_id and outcome, a trace at no higher level than recorded, and at the same level the same trace envelope."},
	{ID: RuleProgramChecks, Category: "operations", Section: "6.4", Severity: report.Error,
		Summary: "The --program given validates, so it can be planned and executed; otherwise the loop checks cannot run."},
	{ID: RuleChangedSince, Category: "operations", Section: "6.3", Severity: report.Error,
		Summary: "lookup changed_since from a catalog_version the server never issued is an unknown_baseline request error where the verb is declared, and a request error where it is not."},
	{ID: RuleUnknownName, Category: "operations", Section: "5.5", Severity: report.Error,
		Summary: "With --program: the program with one catalog name replaced by one that cannot exist validates as invalid, with an unknown_name diagnostic whose path locates the name."},
	{ID: RuleRefusals, Category: "operations", Section: "6.5.2", Severity: report.Error,
		Summary: "With --execute: execute refuses before running anything: a drifted expected_catalog_version is a catalog_drift outcome, an invalid inline program a validation_error outcome with diagnostics (neither with trace steps or output), an unknown program_ref, an unknown trace_level and store: true under retention none are request errors, and a request both malformed and drifted gets the request error (the first failing check wins)."},
	{ID: RuleDriftText, Category: "operations", Section: "6.5.2", Severity: report.Info,
		Summary: `With --execute: the catalog_drift outcome's error is the text §6.5.2 shows, "catalog version mismatch"; error is an optional short description (§5.7), so another text is only noted.`},
	{ID: RuleNotFoundSame, Category: "channels", Section: "6.6", Severity: report.Error,
		Summary: "With --execute, when the Language declares trace_fetch: a fetch of a refused (never retained) Run and a fetch of an unknown run_id give the same request error: the same kind and the same message once the run_id is taken out."},
}

// Rules describes conform's own rules, for --list-rules and sarif.
func Rules() []report.RuleInfo {
	out := make([]report.RuleInfo, len(own))
	for i, r := range own {
		r.Doc = "docs/conform.md"
		out[i] = r
	}
	return out
}

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
func replayRules() []report.RuleInfo {
	var infos []report.RuleInfo
	for _, r := range replay.Rules() {
		infos = append(infos, r.RuleInfo)
	}
	return infos
}

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
	for _, r := range own {
		if r.ID == id {
			return r
		}
	}
	panic("conform: unknown rule " + id)
}
