package compile

import (
	"encoding/json"
	"runtime"
	"sync"

	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// prepare compiles every distinct inline JSON Schema, and checks every
// distinct behaviour CEL expression against its entry's inline
// input_schema, concurrently, and fills the caches the statement handlers
// read, so a catalog of thousands of entries uses every CPU for its
// costliest work. Findings are still raised by the handlers, in file
// order, so output does not depend on scheduling. What prepare cannot see
// (schemas in files) the handlers compute themselves.
func (c *compiler) prepare(f *pdl.File) {
	var schemas []string
	seen := map[string]bool{}
	// uses pairs each expression with the inline input_schema source of
	// its entry ("" without one); inline is false for a schema in a file.
	type use struct {
		schema, expr string
		inline       bool
	}
	var uses []use
	for _, s := range pdl.Stmts(f.Body) {
		if s.Keyword != "entry" {
			continue
		}
		input, inline := "", true
		var exprs []string
		for _, ch := range s.Children() {
			switch ch.Keyword {
			case "input_schema", "output_schema":
				p := ch.Positional()
				src, ok := literal(p)
				if ok && !seen[src] {
					seen[src] = true
					schemas = append(schemas, src)
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
			uses = append(uses, use{input, e, inline})
		}
	}
	schemaOut := make([]schemaResult, len(schemas))
	parallel(len(schemas), func(i int) {
		schemaOut[i] = compileSchema([]byte(schemas[i]))
	})
	for i, s := range schemas {
		c.schemas[s] = schemaOut[i]
	}
	// The handlers key expressions by the compiled schema; build each
	// distinct environment once, then check the distinct pairs.
	var keys []string
	var envs []*inputEnv
	var exprs []string
	for _, u := range uses {
		if !u.inline {
			continue
		}
		var schema json.RawMessage
		if u.schema != "" {
			schema = c.schemas[u.schema].schema
		}
		k := celKey(schema, u.expr)
		if _, dup := c.celCache[k]; dup {
			continue
		}
		c.celCache[k] = celResult{}
		keys, envs, exprs = append(keys, k), append(envs, c.inputEnvFor(schema)), append(exprs, u.expr)
	}
	celOut := make([]celResult, len(exprs))
	parallel(len(exprs), func(i int) { celOut[i] = envs[i].checkCEL(exprs[i]) })
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
