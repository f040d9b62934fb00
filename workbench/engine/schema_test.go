package engine

import (
	"reflect"
	"testing"
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

// The cache starts over when full, so it cannot grow past its cap.
func TestSchemaCacheIsBounded(t *testing.T) {
	for i := range maxCachedSchemas + 10 {
		compileSchema(raw(`{"maximum": ` + string(rune('0'+i%10)) + `, "$comment": "` + string(rune(0x4e00+i)) + `"}`))
	}
	schemaCache.Lock()
	n := len(schemaCache.m)
	schemaCache.Unlock()
	if n > maxCachedSchemas {
		t.Errorf("%d schemas cached, cap %d", n, maxCachedSchemas)
	}
}
