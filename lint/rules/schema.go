package rules

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/report"
)

// schemaRule validates the document against the embedded JSON Schema of
// its kind: required members and JSON types of every structure (§1.1,
// §5.1–§5.4, data-model.md). Closed-set values are other rules' business,
// because their severity depends on the manifest version (reading 11).
var schemaRule = &lint.Rule{
	ID:       "schema",
	Category: lint.CatSyntax,
	Section:  "1.1",
	Severity: report.Error,
	Summary:  "Every structure must have its required (M) members with the JSON types of data-model.md.",
	Check: func(p *lint.Pass) {
		name, root := "", ""
		switch p.Kind {
		case lint.KindManifest:
			name, root = pilotage.SchemaManifest, "the manifest"
		case lint.KindSnapshot:
			name, root = pilotage.SchemaSnapshot, "the snapshot"
		default:
			return
		}
		s, err := pilotage.Schema(name)
		if err != nil {
			p.Report("", fmt.Sprintf("internal error: embedded schema %s: %v", name, err), "")
			return
		}
		for _, v := range pilotage.Violations(s.Validate(p.Doc.Root.Value())) {
			p.Report(v.Pointer, describe(v, subject(v.Pointer, root)), schemaHint(v.Pointer))
		}
	},
}

// schemaHint points at the data-model.md table of the structure that
// holds the value at pointer.
func schemaHint(pointer string) string {
	toks := strings.Split(pointer, "/")
	last := func(name string) int {
		for i := len(toks) - 1; i >= 0; i-- {
			if toks[i] == name {
				return i
			}
		}
		return -1
	}
	switch c, l, g, i := last("capabilities"), last("languages"), last("guides"), last("items"); {
	case c >= 0 && c >= l:
		return "a capability declaration maps each capability to true, false or an object of boolean sub-features (§4.2, data-model.md §4.1)"
	case i > 0 && toks[1] == "catalog" && len(toks) > i+1:
		return "see the catalog entry table (data-model.md §5.4) for the required members and their types"
	case g == 1 && toks[0] == "" && len(toks) > 3:
		return "see the guide table (data-model.md §5.2) for the required members and their types"
	case l >= 0 && len(toks) > l+1:
		return "see the Language entry table (data-model.md §5.1) for the required members and their types"
	}
	return "see the manifest table (data-model.md §5.1) and, for snapshots, the snapshot file section of data-model.md"
}

func init() { register(schemaRule) }
