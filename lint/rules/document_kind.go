package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// documentKind reports a file that is neither a manifest nor a snapshot,
// so that linting the wrong file never passes silently.
var documentKind = &lint.Rule{
	ID:       "document-kind",
	Category: lint.CatSyntax,
	Section:  "5.1",
	Severity: report.Error,
	Summary:  "The file must be a manifest (an object with `pilotage` and `languages`) or a snapshot (an object with `snapshot`).",
	Check: func(p *lint.Pass) {
		if p.Kind == lint.KindUnknown {
			if what, verb := otherArtifact(p.Doc.Root); what != "" {
				p.Report("", "this looks like "+what+", neither a Pilotage manifest nor a snapshot file, so nothing could be checked", verb)
				return
			}
			p.Report("", "this is neither a Pilotage manifest nor a snapshot file, so nothing could be checked",
				"a manifest is an object with \"pilotage\" and \"languages\"; a snapshot has \"snapshot\": \"pilotage/1.1\" and a \"manifest\"")
			return
		}
		if p.Kind == lint.KindSnapshot && !p.Manifest.Exists() {
			p.Report("/manifest", "the snapshot has no manifest object, so nothing in it could be checked",
				"add \"manifest\": {\"pilotage\": \"1.1\", \"languages\": [...]}")
		}
	},
}

// otherArtifact names the project artifact a JSON document that is no
// manifest looks like, with the verb that checks it: a program, a plan
// (or a validate response carrying one) or a trace (or an execute
// response). "" when it looks like none of them.
func otherArtifact(root jsonpos.Node) (what, verb string) {
	if !root.Is(jsonpos.Object) {
		return "", ""
	}
	switch {
	case root.Has("run_id") || root.Get("trace").Is(jsonpos.Object):
		return "a trace", "check a trace against the plan it ran from with pilotage replay FILE --plan PLAN (docs/replay.md)"
	case root.Has("max_risk") || root.Has("valid") && root.Get("plan").Is(jsonpos.Object):
		return "a plan", "a plan is what traces are checked against: pilotage replay TRACE --plan FILE (docs/replay.md)"
	case root.Has("valid"):
		return "a validate response", "pilotage validate writes it; lint checks manifests, snapshots and PDL files"
	case root.Get("steps").Is(jsonpos.Array):
		return "a program", "check a program against its Language with pilotage validate --lang LANG.pdl FILE"
	}
	return "", ""
}

func init() { register(documentKind) }
