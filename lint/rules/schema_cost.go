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

// schemaSum is where a Language's distinct schemas, charged together,
// first cost more than the document's budget: at is the pointer of the
// schema that crosses it, "" when none does.
type schemaSum struct {
	at, lang     string
	distinct     int
	cost, budget int64
}

// sumOf charges the schemas of Language l that a server validating its
// calls and contexts compiles and keeps, as pilotage's engine does: its
// context_schema and the input_schema of each catalog entry (an
// output_schema is published, not compiled to validate), each distinct
// text once, in document order, the ones lint leaves uncompiled aside.
// Lint compiles one schema at a time, so the sum is no cost of its own;
// but a PDL whose schemas cost more together does not compile (the PDL
// compiler charges them the same way), and a server holding them holds
// their sum.
func sumOf(p *lint.Pass, l *lint.Language) schemaSum {
	sum := schemaSum{lang: langLabel(l), budget: schemacost.Budget(p.In.BudgetSize())}
	seen := map[string]bool{} // distinct texts only: catalogs repeat a few
	charge := func(n jsonpos.Node) bool {
		text := p.Doc.Text(n) // no copy: lint parses with ParseShared
		if seen[text] || schemacost.TooDeep(n) {
			return false
		}
		seen[text] = true
		cost := schemacost.Cost(n)
		if cost > sum.budget {
			return false // warned alone, not compiled
		}
		sum.distinct++
		sum.cost += cost
		return sum.cost > sum.budget
	}
	// The entries are in document order; the context_schema is charged
	// where it stands among them.
	ctx := l.Node.Get("context_schema")
	if !ctx.Is(jsonpos.Object) {
		ctx = jsonpos.Node{}
	}
	if l.Catalog != nil {
		for _, e := range l.Catalog.Entries {
			n := e.Node.Get("input_schema")
			if !n.Is(jsonpos.Object) {
				continue
			}
			if ctx.Exists() && ctx.Start() < n.Start() {
				if charge(ctx) {
					sum.at = l.Pointer + "/context_schema"
					return sum
				}
				ctx = jsonpos.Node{}
			}
			if charge(n) {
				sum.at = e.Pointer() + "/input_schema"
				return sum
			}
		}
	}
	if ctx.Exists() && charge(ctx) {
		sum.at = l.Pointer + "/context_schema"
		return sum
	}
	return schemaSum{}
}

// warnAt warns at the schema member of owner, at ptr, when it is the one
// that takes the sum over the budget. The schema is still compiled and
// checked: lint holds one at a time.
func (s schemaSum) warnAt(p *lint.Pass, ptr, owner, member string) {
	if ptr != s.at {
		return
	}
	p.ReportAs(report.Warning, ptr, false,
		fmt.Sprintf("%s: %s makes the schemas of %s too costly together: compiling its first %d distinct schemas (context_schema and input_schema) would take about %d bytes, over the budget of %d bytes a byte of the document plus %d MiB (%d bytes); a server that keeps them compiled holds them all",
			owner, member, s.lang, s.distinct, s.cost, jsonpos.TreePerByte, jsonpos.TreeSlack>>20, s.budget),
		"share schemas (entries that take the same input can carry one schema text, compiled once) or simplify them; the PDL compiler refuses such a Language")
}
