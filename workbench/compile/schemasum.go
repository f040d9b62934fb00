package compile

import (
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// schemaUse is a schema statement whose schema compiled: where it is,
// which distinct text it is (schemaResult.id; 0 for no schema) and
// whether it was read from a file. An entry keeps one, so it is small.
type schemaUse struct {
	at     place
	id     int32
	inFile bool
}

// schemaCost is what compiling a distinct schema text takes (schemacost)
// and its length, which a file holding it adds to the budget.
type schemaCost struct {
	cost  int64
	bytes int
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
	charged := make([]int32, len(c.schemaCosts)+1)
	for i, ls := range c.langs {
		sum := schemaSum{c: c, ls: ls, charged: charged, tag: int32(i + 1), budget: c.schemaBudget}
		// The entries it sees (visible's, without the list visible
		// keeps) are in file order; the context_schema is charged where
		// it stands among them.
		ctx := ls.context
		over := false
		entries := c.entries
		if !c.hasCatalog(ls) || c.tooBig {
			entries = nil
		}
		for _, es := range entries {
			u := es.input
			if u.id == 0 || !sees(es.e, ls.lang.ID) {
				continue
			}
			if ctx.id != 0 && ctx.at.from.Offset < u.at.from.Offset {
				if over = sum.charge(ctx); over {
					break
				}
				ctx.id = 0
			}
			if over = sum.charge(u); over {
				break
			}
		}
		if !over && ctx.id != 0 {
			sum.charge(ctx)
		}
	}
}

// schemaSum is the running charge of one Language's schemas.
type schemaSum struct {
	c       *compiler
	ls      *langState
	charged []int32
	tag     int32
	// cost is the sum so far of distinct schemas; budget grows with
	// each schema file charged, files says there was one.
	cost, budget int64
	distinct     int
	files        bool
}

// charge adds u unless its text was charged already, and reports it at
// u when the sum crosses the budget, returning true.
func (s *schemaSum) charge(u schemaUse) bool {
	if s.charged[u.id] == s.tag {
		return false
	}
	s.charged[u.id] = s.tag
	sc := s.c.schemaCosts[u.id-1]
	s.distinct++
	s.cost += sc.cost
	if u.inFile {
		s.budget += jsonpos.TreePerByte * int64(sc.bytes)
		s.files = true
	}
	if s.cost <= s.budget {
		return false
	}
	keyword, where := "input_schema", "the PDL file"
	if u == s.ls.context {
		keyword = "context_schema"
	}
	if s.files {
		where += " and of the schema files"
	}
	s.c.errf(pdl.RuleJSON, u.at, `share schemas: entries that take the same input can name one schema text or file, which is compiled once; or simplify them (docs/pdl.md, "JSON Schemas")`,
		"%s makes the schemas of Language %s too costly together: compiling its first %d distinct schemas would take about %d bytes, over the budget of %d bytes a byte of %s plus %d MiB (%d bytes); the engine keeps them all compiled",
		keyword, s.ls.lang.ID, s.distinct, s.cost, jsonpos.TreePerByte, where, jsonpos.TreeSlack>>20, s.budget)
	return true
}
