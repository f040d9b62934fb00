package compile

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/schemacost"
)

// TestCompiledSchemasBounded: the schema texts kept for the process stay
// within their budget however many distinct ones a caller brings, are
// kept apart from the source they were read from, and a text compiled
// again, kept or evicted, compiles to the same result.
func TestCompiledSchemasBounded(t *testing.T) {
	// The budget lowered, so that a test fills it in few compiles.
	const budget = 64 << 10
	compiled.Reset()
	before := compiled.SetMax(budget)
	t.Cleanup(func() { compiled.SetMax(before); compiled.Reset() })
	pad := strings.Repeat("x", 2<<10)
	src := func(i int) []byte {
		return fmt.Appendf(nil, `{"description": %q, "properties": {"n%d": {"type": "integer"}}}`, pad, i)
	}
	bad := []byte(`{"type": "objekt"}`)
	first := compileSchema(bad, schemacost.Budget(len(bad)))
	if first.err == "" {
		t.Fatal("an unknown type compiled")
	}
	n := 2 * budget / len(pad)
	for i := range n {
		s := src(i)
		r := compileSchema(s, schemacost.Budget(len(s)))
		if r.err != "" || r.schema == nil {
			t.Fatalf("schema %d: %+v", i, r)
		}
		clear(s) // the caller's buffer: what is kept must not be it
		if w := compiled.Weight(); w > budget {
			t.Fatalf("after %d schemas the cache weighs %d, over %d", i+1, w, budget)
		}
	}
	if l := compiled.Len(); l >= n {
		t.Fatalf("%d of %d distinct schemas kept", l, n)
	}
	if _, ok := compiled.Get(string(src(n - 1))); !ok {
		t.Fatal("the last schema compiled is not kept")
	}
	if _, ok := compiled.Get(string(bad)); ok {
		t.Fatal("the first schema compiled survived twice the budget of others")
	}
	if again := compileSchema(bad, schemacost.Budget(len(bad))); !reflect.DeepEqual(again, first) {
		t.Fatalf("compiled again after eviction: %+v, first %+v", again, first)
	}
	if again := compileSchema(bad, schemacost.Budget(len(bad))); !reflect.DeepEqual(again, first) {
		t.Fatalf("compiled again from the cache: %+v, first %+v", again, first)
	}
}
