package compile

import (
	"cmp"
	"slices"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// schemaUse is a schema statement whose schema compiled: where it is,
// which distinct text it is (schemaResult.id), what compiling it takes
// (schemacost) and the bytes of its file (0 inline).
type schemaUse struct {
	at        place
	keyword   string
	id        int
	cost      int64
	fileBytes int
}

// checkSchemaSums charges each Language's distinct schemas together
// against the budget of what was read for them: the engine compiles the
// context_schema and input_schema a served Language's contexts and calls
// meet and keeps them compiled, so a PDL of many distinct schemas, each
// within its own budget (schema), would have it hold their sum. (An
// output_schema is published, never compiled by the engine.) A
// Language's schemas are its context_schema and the input_schema of each
// entry it sees, each text charged once, in file order; the budget is
// schema's, 4 bytes a byte of the PDL file and of each charged schema
// file plus 6 MiB. The schema that crosses it is an error, one a
// Language: the sum before it fits.
func (c *compiler) checkSchemaSums() {
	// charged[id] is 1 + the index of the last Language that charged
	// schema id, so no Language needs a set of its own.
	charged := make([]int, c.schemaIDs+1)
	var uses []schemaUse
	for i, ls := range c.langs {
		uses = append(uses[:0], ls.schemas...)
		for _, es := range c.visible(ls.lang.ID) {
			uses = append(uses, es.schemas...)
		}
		slices.SortStableFunc(uses, func(a, b schemaUse) int { return cmp.Compare(a.at.from.Offset, b.at.from.Offset) })
		var sum int64
		budget, files, distinct := c.schemaBudget, false, 0
		for _, u := range uses {
			if charged[u.id] == i+1 {
				continue
			}
			charged[u.id] = i + 1
			distinct++
			sum += u.cost
			budget += jsonpos.TreePerByte * int64(u.fileBytes)
			files = files || u.fileBytes > 0
			if sum <= budget {
				continue
			}
			where := "the PDL file"
			if files {
				where += " and of the schema files"
			}
			c.errf(pdl.RuleJSON, u.at, `share schemas: entries that take the same input can name one schema text or file, which is compiled once; or simplify them (docs/pdl.md, "JSON Schemas")`,
				"%s makes the schemas of Language %s too costly together: compiling its first %d distinct schemas would take about %d bytes, over the budget of %d bytes a byte of %s plus %d MiB (%d bytes); the engine keeps them all compiled",
				u.keyword, ls.lang.ID, distinct, sum, jsonpos.TreePerByte, where, jsonpos.TreeSlack>>20, budget)
			break
		}
	}
}
