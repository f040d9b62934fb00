package rules

import (
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
			if !compilable(p, ptr, langLabel(l), "context_schema", n) {
				continue
			}
			sumOf(p, l).warnAt(p, ptr, langLabel(l), "context_schema")
			reportCompileFailure(p, ptr, langLabel(l), "context_schema", compileOffline("context_schema", n.Value()))
		}
	},
}

func init() { register(contextSchema) }
