package rules

import (
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// entrySchemas checks §5.4: a catalog entry's input_schema and
// output_schema are JSON Schemas that compile, since execute binds input
// against input_schema (§6.5.5) and promotion records both in its
// baseline. They are compiled offline like context_schema: a `$ref`
// outside the schema is reported, never fetched.
var entrySchemas = &lint.Rule{
	ID:       "entry-schemas",
	Category: lint.CatCatalog,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "A catalog entry's `input_schema` and `output_schema` must be self-contained JSON Schemas that compile.",
	Check: func(p *lint.Pass) {
		// Catalogs repeat schemas (every table entry of one shape has the
		// same input_schema); compiling costs ~100µs, so each distinct
		// source is compiled once per input. Findings are still reported
		// at every entry.
		type source struct{ member, text string }
		compiled := map[source]error{}
		for _, l := range p.Languages {
			if l.Catalog == nil {
				continue
			}
			sum := sumOf(p, l)
			for _, e := range l.Catalog.Entries {
				for _, member := range []string{"input_schema", "output_schema"} {
					n := e.Node.Get(member)
					if !n.Is(jsonpos.Object) {
						continue // absent, a boolean schema, or malformed (the schema rule)
					}
					ptr := e.Pointer() + "/" + member
					if !compilable(p, ptr, entryLabel(e), member, n) {
						continue
					}
					sum.warnAt(p, ptr, entryLabel(e), member)
					key := source{member, p.Doc.Text(n)} // no copy: lint parses with ParseShared
					err, done := compiled[key]
					if !done {
						err = compileOffline(member, n.Value())
						compiled[key] = err
					}
					reportCompileFailure(p, ptr, entryLabel(e), member, err)
				}
			}
		}
	},
}

func init() { register(entrySchemas) }
