package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/schemacost"
	"github.com/pilotage-dev/pilotage/lint"
)

// compilable reports whether lint compiles the schema member of owner,
// n at ptr, and warns when it does not: one nested deeper than
// schemacost.MaxDepth (the metaschema validation costs time quadratic in
// the depth) or one whose compiling would cost more than the document's
// schemacost.Budget. Such a schema is no error of the document, only past
// what this tool checks offline, so the finding is a warning and the
// schema is left unchecked. (The PDL compiler refuses the same schemas
// with an error: there the schema is the author's, and the engine would
// compile it.)
func compilable(p *lint.Pass, ptr, owner, member string, n jsonpos.Node) bool {
	if schemacost.TooDeep(n) {
		p.ReportAs(report.Warning, ptr, false,
			fmt.Sprintf("%s: %s nests more than %d levels deep, so this tool did not compile it", owner, member, schemacost.MaxDepth),
			"flatten the schema with \"$defs\" and \"$ref\"; checking this depth would cost time quadratic in it")
		return false
	}
	if cost, budget := schemacost.Cost(n), schemacost.Budget(p.In.BudgetSize()); cost > budget {
		p.ReportAs(report.Warning, ptr, false,
			fmt.Sprintf("%s: %s is too large to check offline: compiling it would take about %d bytes, over the budget of %d bytes a byte of the document plus %d MiB (%d bytes)",
				owner, member, cost, jsonpos.TreePerByte, jsonpos.TreeSlack>>20, budget),
			"split the schema or shorten its enums (a long list of values is better checked by the server as a lookup than as a JSON Schema enum); lint holds every schema it compiles within this budget")
		return false
	}
	return true
}
