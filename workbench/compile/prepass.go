package compile

import (
	"runtime"
	"sync"

	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// prepare compiles every distinct inline JSON Schema and CEL expression of
// the file's entries concurrently and fills the caches the statement
// handlers read, so a catalog of thousands of entries uses every CPU for
// its costliest work. Findings are still raised by the handlers, in file
// order, so output does not depend on scheduling.
func (c *compiler) prepare(f *pdl.File) {
	var schemas, exprs []string
	seen := map[string]bool{}
	add := func(list *[]string, kind string, v *pdl.Value) {
		switch v.Kind() {
		case pdl.KindString, pdl.KindRaw, pdl.KindText:
		default:
			return
		}
		s := v.Str()
		if !seen[kind+s] {
			seen[kind+s] = true
			*list = append(*list, s)
		}
	}
	for _, s := range pdl.Stmts(f.Body) {
		if s.Keyword != "entry" {
			continue
		}
		for _, ch := range s.Children() {
			switch ch.Keyword {
			case "input_schema", "output_schema":
				if p := ch.Positional(); len(p) == 1 {
					add(&schemas, "s", p[0].Value)
				}
			case "compute":
				if p := ch.Positional(); len(p) == 1 {
					add(&exprs, "c", p[0].Value)
				}
			case "fail":
				if w, ok := ch.Option("when"); ok {
					add(&exprs, "c", w.Value)
				}
			}
		}
	}
	schemaOut := make([]schemaResult, len(schemas))
	celOut := make([]celResult, len(exprs))
	parallel(len(schemas), func(i int) {
		out, hint, msg := compileSchema([]byte(schemas[i]))
		schemaOut[i] = schemaResult{schema: out, err: msg, hint: hint}
	})
	parallel(len(exprs), func(i int) {
		ast, iss := celEnv.Compile(exprs[i])
		celOut[i] = celResult{ast, iss}
	})
	for i, s := range schemas {
		c.schemas[s] = schemaOut[i]
	}
	for i, e := range exprs {
		c.celCache[e] = celOut[i]
	}
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
