package compile

import (
	"encoding/json"
	"runtime"
	"sync"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// prepass gathers, from each entry statement as the file is read, what
// prepare needs: strings of the PDL text, not the tree.
type prepass struct {
	// schemas are the distinct inline schemas, in order.
	schemas []string
	seen    map[string]bool
	// uses pairs each expression with the inline input_schema source of
	// its entry ("" without one); inline is false for a schema in a file.
	uses []use
	// entries counts the entry statements.
	entries int
}

type use struct {
	schema, expr string
	inline       bool
}

// entry gathers the schemas and behaviour expressions of an entry.
func (pp *prepass) entry(s *pdl.Stmt) {
	pp.entries++
	input, inline := "", true
	var exprs []string
	for _, ch := range s.Children() {
		switch ch.Keyword {
		case "input_schema", "output_schema":
			p := ch.Positional()
			src, ok := literal(p)
			if ok && !pp.seen[src] {
				if pp.seen == nil {
					pp.seen = map[string]bool{}
				}
				pp.seen[src] = true
				pp.schemas = append(pp.schemas, src)
			}
			if ch.Keyword == "input_schema" {
				input, inline = src, ok
			}
		case "compute":
			if src, ok := literal(ch.Positional()); ok {
				exprs = append(exprs, src)
			}
		case "fail":
			if w, ok := ch.Option("when"); ok {
				if src, ok := literal([]*pdl.Arg{w}); ok {
					exprs = append(exprs, src)
				}
			}
		}
	}
	for _, e := range exprs {
		pp.uses = append(pp.uses, use{input, e, inline})
	}
}

// prepare compiles every distinct inline JSON Schema the prepass found,
// and lists every distinct behaviour CEL expression with the environment
// of its entry's inline input_schema, for check to check them
// concurrently; together they fill the caches the statement handlers
// read, so a catalog of thousands of entries uses every CPU for its
// costliest work. Findings are still raised by the handlers, in file
// order, so output does not depend on scheduling. What prepare cannot see
// (schemas in files) the handlers compute themselves.
func (c *compiler) prepare(pp *prepass) []celKey {
	schemas, uses := pp.schemas, pp.uses
	schemaOut := make([]schemaResult, len(schemas))
	// Schemas compiled side by side share the allowance: one that costs
	// more is left over here and compiled alone by its handler, so the
	// peak stays within the budget of one schema (schemacost.Budget).
	share := min(c.schemaBudget, jsonpos.TreeSlack/int64(runtime.GOMAXPROCS(0)))
	parallel(len(schemas), func(i int) {
		schemaOut[i] = compileSchema([]byte(schemas[i]), share)
	})
	for i, s := range schemas {
		c.schemas[s] = schemaOut[i]
	}
	// The handlers key expressions by the compiled schema; build each
	// distinct environment once, then check the distinct pairs.
	var keys []celKey
	for _, u := range uses {
		if !u.inline {
			continue
		}
		var schema json.RawMessage
		if u.schema != "" {
			schema = c.schemas[u.schema].schema
		}
		k := celKey{c.inputEnvFor(schema), u.expr}
		if _, dup := c.celCache[k]; dup {
			continue
		}
		c.celCache[k] = celResult{}
		keys = append(keys, k)
	}
	return keys
}

// check checks the expressions prepare listed, concurrently.
func (c *compiler) check(keys []celKey) {
	celOut := make([]celResult, len(keys))
	parallel(len(keys), func(i int) { celOut[i] = keys[i].env.checkCEL(keys[i].src) })
	for i, k := range keys {
		c.celCache[k] = celOut[i]
	}
}

// literal returns the content of a statement's one positional argument
// when it is a string of any kind.
func literal(p []*pdl.Arg) (string, bool) {
	if len(p) != 1 {
		return "", false
	}
	switch p[0].Value.Kind() {
	case pdl.KindString, pdl.KindRaw, pdl.KindText:
		return p[0].Value.Str(), true
	}
	return "", false
}

// parallel runs fn(0) … fn(n-1) on GOMAXPROCS workers.
func parallel(n int, fn func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
