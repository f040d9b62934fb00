package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

// Compiled schemas are found by their text as written; equal schemas
// written differently validate alike, and a schema that does not compile
// admits everything (schemaViolations' contract).
func TestCompiledSchemasAreShared(t *testing.T) {
	a := raw(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1}}}`)
	b := raw(`{ "properties": {"n": {"minimum": 1, "type": "integer"}}, "required": ["n"], "type": "object" }`)
	sa, err := compileSchema(a)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := compileSchema(a); again != sa {
		t.Error("the same schema text must compile once")
	}
	for _, in := range []string{`{"n": 0}`, `{"n": 1.5}`, `{}`, `{"n": 2}`} {
		va, vb := schemaViolations(a, raw(in)), schemaViolations(b, raw(in))
		if !reflect.DeepEqual(va, vb) {
			t.Errorf("%s: %+v against %+v", in, va, vb)
		}
		if (len(va) == 0) != (in == `{"n": 2}`) {
			t.Errorf("%s: violations %+v", in, va)
		}
	}
	if v := schemaViolations(raw(`{"type": 3}`), raw(`{}`)); v != nil {
		t.Errorf("a schema that does not compile admits everything, got %+v", v)
	}
	if v := schemaViolations(a, raw(`{"n": `)); len(v) != 1 {
		t.Errorf("an instance that is not JSON is one violation, got %+v", v)
	}
}

// The cache holds at most maxCachedSchemas schemas.
func TestSchemaCacheIsBounded(t *testing.T) {
	saved := schemaCache
	schemaCache = lru.New[schemaResult](schemaBudget, maxCachedSchemas)
	t.Cleanup(func() { schemaCache = saved })
	for i := range maxCachedSchemas + 10 {
		compileSchema(raw(`{"maximum": ` + string(rune('0'+i%10)) + `, "$comment": "` + string(rune(0x4e00+i)) + `"}`))
	}
	if n := schemaCache.Len(); n > maxCachedSchemas {
		t.Errorf("%d schemas cached, cap %d", n, maxCachedSchemas)
	}
}

// The cache holds at most its budget of estimated bytes (schemacost),
// however few the schemas: twenty distinct schemas of 100 subschemas
// each, about 200 KB apiece, through a budget of 1 MiB. The estimated
// bytes held never exceed it; the schema used between the others stays,
// the least recently used go; and an evicted schema compiles again and
// validates as it did.
func TestSchemaCacheBoundedByBytes(t *testing.T) {
	const budget = 1 << 20
	saved := schemaCache
	schemaCache = lru.New[schemaResult](budget, maxCachedSchemas)
	t.Cleanup(func() { schemaCache = saved })
	schema := func(i int) json.RawMessage {
		return raw(fmt.Sprintf(`{"type": "object", "required": ["n"], "properties": {"n": {"minimum": %d}}, "anyOf": [%s{}]}`,
			i, strings.Repeat("{}, ", 99)))
	}
	check := func(i int) *jsonschema.Schema {
		t.Helper()
		s, err := compileSchema(schema(i))
		if err != nil {
			t.Fatal(err)
		}
		if v := schemaViolations(schema(i), raw(fmt.Sprintf(`{"n": %d}`, i-1))); len(v) != 1 || v[0].Pointer != "/n" {
			t.Errorf("schema %d: {\"n\": %d} gives %+v, want one violation at /n", i, i-1, v)
		}
		if v := schemaViolations(schema(i), raw(fmt.Sprintf(`{"n": %d}`, i))); len(v) != 0 {
			t.Errorf("schema %d: {\"n\": %d} gives %+v, want none", i, i, v)
		}
		return s
	}
	if w := schemaWeight(schema(0)); w < budget/8 || w > budget/4 {
		t.Fatalf("a schema weighs %d, want a fifth of the budget or so", w)
	}
	first := check(0)
	hot := check(1)
	for i := 2; i < 20; i++ {
		check(i)
		if again := check(1); again != hot {
			t.Fatalf("schema 1, used between the others, was evicted at schema %d", i)
		}
		if w := schemaCache.Weight(); w > budget {
			t.Fatalf("after schema %d: %d estimated bytes held, over the budget of %d", i, w, budget)
		}
	}
	if n := schemaCache.Len(); n < 3 || n > 5 {
		t.Errorf("%d schemas held, want the budget's 4 or so", n)
	}
	if _, ok := schemaCache.Get(string(schema(0))); ok {
		t.Fatal("schema 0, least recently used, is still cached")
	}
	if again := check(0); again == first {
		t.Error("schema 0 was evicted, yet the same compiled schema came back")
	}
}
