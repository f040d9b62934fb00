package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// What compiling a JSON Schema costs at the peak (jsonschema/v6, measured
// as lint's peak RSS over its baseline, docs/performance.md "Hostile
// inputs"): every subschema, an object or a boolean where a schema may
// stand, becomes a compiled Schema and its metaschema validation, 1.3 to
// 2 KiB; every other value, an enum's member above all, about 160 to
// 190 bytes. A schema's text spends 3 bytes on an empty subschema and 2
// on a one-digit enum member, so compiling one takes 20 to 700 bytes a
// byte of it: a 3.4 MB enum took 81 MB, 40 KB of "{}," 14 MB, and
// 30,000 of them 5.9 s (the compiler's time grows with the square of the
// subschemas).
const (
	costPerSubschema = 2048
	costPerValue     = 192
)

// dataKeywords hold JSON values, not schemas: what is inside them costs
// costPerValue whatever its type.
var dataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// schemaCost estimates what compiling the schema n would take at the
// peak, walking its tree (no allocation) with the costs above.
func schemaCost(n jsonpos.Node) int64 {
	switch n.Kind() {
	case jsonpos.Object:
		cost := int64(costPerSubschema)
		for _, m := range n.Members() {
			if dataKeywords[m.Key] {
				cost += costPerValue * int64(valueCount(m.Value))
			} else {
				cost += schemaCost(m.Value)
			}
		}
		return cost
	case jsonpos.Array:
		var cost int64
		for _, e := range n.Elems() {
			cost += schemaCost(e)
		}
		return cost
	case jsonpos.Bool:
		return costPerSubschema
	}
	return costPerValue
}

// valueCount counts the values in n, n included.
func valueCount(n jsonpos.Node) int {
	c := 1
	for _, m := range n.Members() {
		c += valueCount(m.Value)
	}
	for _, e := range n.Elems() {
		c += valueCount(e)
	}
	return c
}

// schemaBudget is what compiling one schema of a document of n bytes may
// cost: the budget of the document's tree (jsonpos.TreeBudget), which
// lint has held within, so that tree and compiled schema stay within 10
// bytes a byte of the document over the baseline, as a dense document
// does (docs/json.md, "Dense documents"). Schemas compile one at a time
// and none is kept, so the budget is each schema's, not their sum's.
func schemaBudget(n int) int64 { return jsonpos.TreeBudget(n) }

// compilable reports whether lint compiles the schema member of owner,
// n at ptr, and warns when it does not: one nested deeper than
// maxSchemaDepth (the metaschema validation costs time quadratic in the
// depth) or one whose compiling would cost more than schemaBudget. Such
// a schema is no error of the document, only past what this tool checks
// offline, so the finding is a warning and the schema is left unchecked.
func compilable(p *lint.Pass, ptr, owner, member string, n jsonpos.Node) bool {
	if depthOver(n, maxSchemaDepth) {
		p.ReportAs(report.Warning, ptr, false,
			fmt.Sprintf("%s: %s nests more than %d levels deep, so this tool did not compile it", owner, member, maxSchemaDepth),
			"flatten the schema with \"$defs\" and \"$ref\"; checking this depth would cost time quadratic in it")
		return false
	}
	if cost, budget := schemaCost(n), schemaBudget(len(p.Doc.Src)); cost > budget {
		p.ReportAs(report.Warning, ptr, false,
			fmt.Sprintf("%s: %s is too large to check offline: compiling it would take about %d bytes, over the budget of %d bytes a byte of the document plus %d MiB (%d bytes)",
				owner, member, cost, jsonpos.TreePerByte, jsonpos.TreeSlack>>20, budget),
			"split the schema or shorten its enums (a long list of values is better checked by the server as a lookup than as a JSON Schema enum); lint holds every schema it compiles within this budget")
		return false
	}
	return true
}

// maxSchemaDepth bounds the nesting of a schema lint compiles:
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
