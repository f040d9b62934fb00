package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
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
			// A manifest or a snapshot is never Unknown here: the pass
			// tells them by the same members.
			if k := inputs.Recognize(p.Doc.Root); k != inputs.Unknown {
				p.Report("", "this looks like "+k.String()+", neither a Pilotage manifest nor a snapshot file, so nothing could be checked", k.Use())
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

func init() { register(documentKind) }
