package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// contextSchema checks that a Language's `context_schema` (§5.1) is a
// JSON Schema that compiles: validation checks every context against it
// (§6.4), and a schema that does not compile makes every context
// uncheckable. The schema is compiled offline: a `$ref` outside the
// schema is reported, never fetched, so linting a hostile manifest reads
// no file and opens no connection.
var contextSchema = &lint.Rule{
	ID:       "context-schema",
	Category: lint.CatManifest,
	Section:  "5.1",
	Severity: report.Error,
	Summary:  "`context_schema` must be a self-contained JSON Schema that compiles (draft 2020-12 unless `$schema` says otherwise).",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			n := l.Node.Get("context_schema")
			if !n.Is(jsonpos.Object) {
				continue // absent, a boolean schema, or malformed (the schema rule)
			}
			ptr := l.Pointer + "/context_schema"
			if depthOver(n, maxSchemaDepth) {
				p.ReportAs(report.Warning, ptr, false,
					fmt.Sprintf("%s: context_schema nests more than %d levels deep, so this tool did not compile it", langLabel(l), maxSchemaDepth),
					"flatten the schema with \"$defs\" and \"$ref\"; no context needs this depth, and checking it would cost time quadratic in the depth")
				continue
			}
			reportCompileFailure(p, ptr, langLabel(l), "context_schema", compileOffline("context_schema", n.Value()))
		}
	},
}

// maxSchemaDepth bounds the nesting of a context_schema lint compiles:
// metaschema validation costs time quadratic in the depth (a 2000-level
// schema takes seconds), and real schemas stay far below this.
const maxSchemaDepth = 128

// depthOver reports whether n nests more than limit levels of objects and
// arrays.
func depthOver(n jsonpos.Node, limit int) bool {
	if limit < 0 {
		return true
	}
	for _, m := range n.Members() {
		if depthOver(m.Value, limit-1) {
			return true
		}
	}
	for _, e := range n.Elems() {
		if depthOver(e, limit-1) {
			return true
		}
	}
	return false
}

func init() { register(contextSchema) }
