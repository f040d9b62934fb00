package pilotage_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var schemaNames = []string{
	pilotage.SchemaManifest, pilotage.SchemaLanguage, pilotage.SchemaGuide, pilotage.SchemaCatalogEntry,
	pilotage.SchemaSnapshot, pilotage.SchemaPlan, pilotage.SchemaTrace, pilotage.SchemaOutcome,
	pilotage.SchemaRiskHints, pilotage.SchemaCapabilities,
}

// Every embedded schema compiles, carries the $id it is registered under,
// and every schema file has a name constant (none is left unused).
func TestSchemasCompile(t *testing.T) {
	for _, name := range schemaNames {
		if _, err := pilotage.Schema(name); err != nil {
			t.Errorf("Schema(%s): %v", name, err)
		}
		src, err := pilotage.SchemaSource(name)
		if err != nil {
			t.Errorf("SchemaSource(%s): %v", name, err)
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(src)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		m, _ := doc.(map[string]any)
		if m["$id"] != pilotage.SchemaBase+name {
			t.Errorf("%s has $id %v, want %s", name, m["$id"], pilotage.SchemaBase+name)
		}
		if m["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s is not draft 2020-12: %v", name, m["$schema"])
		}
	}
	if _, err := pilotage.Schema("nope.json"); err == nil {
		t.Error("Schema of an unknown name must fail")
	}
}

const (
	okLanguage = `{"id":"wf/v1","guides":"wf_v1_learn","loop":{"validate":"wf_v1_validate"},"locator":"json-pointer"}`
	okManifest = `{"pilotage":"1.1","capabilities":{"guides":true,"validate":true},"languages":[` + okLanguage + `]}`
	okGuide    = `{"id":"core","title":"Core","level":"core","version":"1","size_bytes":0,"body":""}`
	okEntry    = `{"id":"orders","kind":"table","risk":"write","risk_hints":{"readOnly":false,"destructive":false,"openWorld":false}}`
	okOutcome  = `{"ok":true,"status":"success"}`
)

// Each schema accepts a representative document and rejects the typical
// mistakes, at the pointer where they are.
func TestSchemasValidate(t *testing.T) {
	tests := []struct {
		schema string
		doc    string
		// want lists the pointers of the violations; nil means valid.
		want []string
	}{
		{pilotage.SchemaManifest, okManifest, nil},
		{pilotage.SchemaManifest, `{"pilotage":"1.1","languages":[` + okLanguage + `],"x-extension":{"any":1}}`, nil}, // §1.2 unknown members
		{pilotage.SchemaManifest, `{"languages":[` + okLanguage + `]}`, []string{""}},
		{pilotage.SchemaManifest, `{"pilotage":"1.1","languages":[]}`, []string{"/languages"}},
		{pilotage.SchemaManifest, `{"pilotage":1.1,"languages":[` + okLanguage + `]}`, []string{"/pilotage"}},
		{pilotage.SchemaManifest, `{"pilotage":"1.1","languages":[{"id":"wf/v1","guides":"g","loop":{},"locator":"json-pointer"}]}`, []string{"/languages/0/loop"}},
		{pilotage.SchemaManifest, `{"pilotage":"1.1","capabilities":{"catalog":{"search":"yes"}},"languages":[` + okLanguage + `]}`, []string{"/capabilities/catalog/search"}},
		{pilotage.SchemaManifest, `[]`, []string{""}},
		{pilotage.SchemaLanguage, okLanguage, nil},
		{pilotage.SchemaLanguage, `{"id":"wf/v1","guides":"g","loop":{"validate":"v"},"locator":"json-pointer","context_schema":true}`, nil},
		{pilotage.SchemaLanguage, `{"id":"wf/v1","guides":"g","loop":{"validate":"v"},"locator":"json-pointer","context_schema":"x"}`, []string{"/context_schema"}},
		{pilotage.SchemaLanguage, `{"guides":"g","loop":{"validate":"v"}}`, []string{""}},
		{pilotage.SchemaGuide, okGuide, nil},
		{pilotage.SchemaGuide, `{"id":"core","title":"Core","level":"core","version":"1","size_bytes":-1}`, []string{"/size_bytes"}},
		{pilotage.SchemaGuide, `{"id":"core","title":"Core","level":"core","version":"1","size_bytes":1.5}`, []string{"/size_bytes"}},
		{pilotage.SchemaGuide, `{"id":"core","title":"Core","level":"core","version":"1","size_bytes":3,"topics":["a",2]}`, []string{"/topics/1"}},
		{pilotage.SchemaCatalogEntry, okEntry, nil},
		{pilotage.SchemaCatalogEntry, `{"id":"orders","kind":"table","risk":"write","risk_hints":{"readOnly":false,"destructive":false}}`, []string{"/risk_hints"}},
		{pilotage.SchemaCatalogEntry, `{"id":"orders","kind":"table","risk":"write","risk_hints":{"readOnly":false,"destructive":false,"openWorld":false},"input_schema":[]}`, []string{"/input_schema"}},
		{pilotage.SchemaSnapshot, `{"snapshot":"pilotage/1.1","manifest":` + okManifest + `,"guides":{"wf/v1":[` + okGuide + `]},"catalog":{"wf/v1":{"catalog_version":"1","items":[` + okEntry + `]}}}`, nil},
		{pilotage.SchemaSnapshot, `{"snapshot":"pilotage/1.1","manifest":` + okManifest + `,"guides":{"wf/v1":[{"id":"core"}]}}`, []string{"/guides/wf~1v1/0"}},
		{pilotage.SchemaSnapshot, `{"snapshot":"pilotage/1.1","manifest":` + okManifest + `,"guides":{},"catalog":{"wf/v1":{"items":[]}}}`, []string{"/catalog/wf~1v1"}},
		{pilotage.SchemaPlan, `{"steps":[{"id":"a","kind":"step","calls":["orders"],"risk":"write","risk_hints":{"readOnly":false,"destructive":false,"openWorld":false}},{"id":"b","kind":"branch","arms":["yes","no"]},{"id":"c","kind":"step","arm":{"branch":"b","label":"yes"}}],"max_risk":"write","max_risk_hints":{"readOnly":false,"destructive":false,"openWorld":false}}`, nil},
		{pilotage.SchemaPlan, `{"steps":[{"id":"c","kind":"step","arm":{"branch":"b"}}],"max_risk":"safe","max_risk_hints":{"readOnly":true,"destructive":false,"openWorld":false}}`, []string{"/steps/0/arm"}},
		{pilotage.SchemaTrace, `{"run_id":"r1","level":"summary","outcome":` + okOutcome + `,"steps":[{"id":"loop#1","kind":"loop","outcome":` + okOutcome + `,"t_ms":1.5,"decisions":[{"at":"loop#1","took":"exit","because":"done"}]}]}`, nil},
		{pilotage.SchemaTrace, `{"run_id":"r1","level":"summary","outcome":` + okOutcome + `,"steps":[{"id":"a","outcome":` + okOutcome + `,"t_ms":-1}]}`, []string{"/steps/0/t_ms"}},
		{pilotage.SchemaTrace, `{"run_id":"r1","level":"summary","outcome":{"ok":"yes","status":"success"},"steps":[]}`, []string{"/outcome/ok"}},
		{pilotage.SchemaOutcome, `{"ok":false,"status":"partial","error":"timeout"}`, nil},
		{pilotage.SchemaOutcome, `{"status":"partial"}`, []string{""}},
		{pilotage.SchemaRiskHints, `{"readOnly":true,"destructive":false,"openWorld":false}`, nil},
		{pilotage.SchemaRiskHints, `{"readOnly":"true","destructive":false,"openWorld":false}`, []string{"/readOnly"}},
		{pilotage.SchemaCapabilities, `{"guides":true,"catalog":{"search":true,"changed_since":false},"plan":false}`, nil},
		{pilotage.SchemaCapabilities, `{"guides":null}`, []string{"/guides"}},
		{pilotage.SchemaCapabilities, `{"catalog":{"search":null}}`, []string{"/catalog/search"}},
		{pilotage.SchemaCapabilities, `{"catalog":[true]}`, []string{"/catalog"}},
	}
	for _, tt := range tests {
		s, err := pilotage.Schema(tt.schema)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.doc))
		if err != nil {
			t.Fatalf("%s: test document: %v", tt.doc, err)
		}
		vs := pilotage.Violations(s.Validate(doc))
		var got []string
		for _, v := range vs {
			if v.Message == "" {
				t.Errorf("%s: violation at %q has no message", tt.schema, v.Pointer)
			}
			if len(got) == 0 || got[len(got)-1] != v.Pointer {
				got = append(got, v.Pointer)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s on %s:\n violations at %q (%v)\n want at %q", tt.schema, tt.doc, got, vs, tt.want)
		}
	}
}

// Violations flattens nested causes into leaves sorted by pointer, with
// RFC 6901 escaping of '~' and '/' in member names.
func TestViolations(t *testing.T) {
	if pilotage.Violations(nil) != nil {
		t.Error("Violations(nil) must be nil")
	}
	other := pilotage.Violations(errors.New("boom"))
	if len(other) != 1 || other[0].Pointer != "" || other[0].Message != "boom" {
		t.Errorf("Violations(other error) = %+v", other)
	}
	s, err := pilotage.Schema(pilotage.SchemaSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"snapshot":"pilotage/1.1",
		"manifest":{"pilotage":"1.1","languages":[{"id":"a~b/1","guides":7,"loop":{"validate":"v"},"locator":"json-pointer"}]},
		"guides":{"a~b/1":[{"id":"g","title":"t","level":"core","version":"1","size_bytes":"9"}]}}`))
	vs := pilotage.Violations(s.Validate(doc))
	var ptrs []string
	for _, v := range vs {
		ptrs = append(ptrs, v.Pointer)
	}
	want := []string{"/guides/a~0b~11/0/size_bytes", "/manifest/languages/0/guides"}
	if !reflect.DeepEqual(ptrs, want) {
		t.Errorf("pointers = %q, want %q (%+v)", ptrs, want, vs)
	}
	for _, v := range vs {
		if !strings.Contains(v.Message, "string") && !strings.Contains(v.Message, "number") {
			t.Errorf("message %q does not name the types", v.Message)
		}
	}
}

// TestViolationsAlternatives: a branch of anyOf/oneOf (or of a type
// list) that does not apply is no violation of its own when another
// failure at or below the same place says what to fix, and the type
// mismatches left at one place become one; a type error with nothing
// else to explain it is kept.
func TestViolationsAlternatives(t *testing.T) {
	for _, tt := range []struct {
		name, schema, value string
		want                []string
	}{
		{"anyOf: the branch the value was meant for speaks",
			`{"anyOf": [{"type": "array"}, {"type": "string", "enum": ["a", "b"]}]}`, `"c"`,
			[]string{`: value must be one of 'a', 'b'`}},
		{"oneOf: the object branch speaks, not the integer one",
			`{"oneOf": [{"type": "integer"}, {"type": "object", "required": ["x"]}]}`, `{}`,
			[]string{`: missing property 'x'`}},
		{"no branch applies: one mismatch listing every type",
			`{"anyOf": [{"type": "string"}, {"type": "integer"}]}`, `true`,
			[]string{`: got boolean, want integer or string`}},
		{"a type list is one mismatch too",
			`{"type": ["string", "null"]}`, `3`,
			[]string{`: got number, want null or string`}},
		{"nested: a failure deep in a branch explains the mismatch above it",
			`{"properties": {"a": {"anyOf": [{"type": "array"}, {"type": "object", "properties": {"b": {"type": "integer"}}}]}}}`, `{"a": {"b": "x"}}`,
			[]string{`/a/b: got string, want integer`}},
		{"a real type error is kept beside a failure above it",
			`{"properties": {"n": {"type": "integer"}}, "required": ["m"]}`, `{"n": "x"}`,
			[]string{`: missing property 'm'`, `/n: got string, want integer`}},
		{"type errors at two places are two violations",
			`{"properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}`, `{"n": "x", "s": 1}`,
			[]string{`/n: got string, want integer`, `/s: got number, want string`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			s, err := pilotage.CompileOffline("schema", doc)
			if err != nil {
				t.Fatal(err)
			}
			value, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range pilotage.Violations(s.Validate(value)) {
				if v.Kind == nil {
					t.Errorf("violation %+v has no Kind", v)
				}
				got = append(got, v.Pointer+": "+v.Message)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s on %s:\n got %q\nwant %q", tt.schema, tt.value, got, tt.want)
			}
		})
	}
}

func TestPointerFromTokens(t *testing.T) {
	for _, tt := range []struct {
		tokens []string
		want   string
	}{
		{nil, ""},
		{[]string{""}, "/"},
		{[]string{"a", "0"}, "/a/0"},
		{[]string{"a/b", "m~n", "~1"}, "/a~1b/m~0n/~01"},
	} {
		if got := pilotage.PointerFromTokens(tt.tokens); got != tt.want {
			t.Errorf("PointerFromTokens(%q) = %q, want %q", tt.tokens, got, tt.want)
		}
	}
}

// TestCompileOfflineFetchesNothing: a schema from a manifest, catalog or
// PDL file compiles without reading the disk or the network.
func TestCompileOfflineFetchesNothing(t *testing.T) {
	for _, ref := range []string{"file:///etc/passwd", "https://example.com/s.json", "other.json"} {
		_, err := pilotage.CompileOffline("input_schema", map[string]any{"$ref": ref})
		if err == nil || !strings.Contains(err.Error(), "is not fetched") {
			t.Errorf("$ref %s: err = %v, want a not-fetched error", ref, err)
		}
	}
	s, err := pilotage.CompileOffline("input_schema", map[string]any{
		"$defs": map[string]any{"n": map[string]any{"type": "integer"}},
		"$ref":  "#/$defs/n",
	})
	if err != nil {
		t.Fatalf("an internal $ref must compile: %v", err)
	}
	if s.Validate("x") == nil {
		t.Error("the compiled schema accepts a string for an integer")
	}
}

// TestExplainCompileError: each way CompileOffline refuses a schema comes
// apart into the facts a message needs, with the library's URLs removed.
func TestExplainCompileError(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   string
	}{
		{`{"type": 12, "required": [1]}`, `violations [/required/0: got number, want string /type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string']`},
		{`{"$ref": "other.json"}`, `outside other.json`},
		{`{"$ref": "file:///etc/passwd"}`, `outside file:///etc/passwd`},
		{`{"$schema": "https://example.com/my-draft"}`, `outside https://example.com/my-draft`},
		{`{"$ref": "#/$defs/item"}`, `dangling #/$defs/item`},
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		if _, err = pilotage.CompileOffline("input_schema", doc); err == nil {
			t.Errorf("%s compiles", tt.schema)
			continue
		}
		f := pilotage.ExplainCompileError("input_schema", err)
		var got string
		switch {
		case f.Violations != nil:
			var vs []string
			for _, v := range f.Violations {
				vs = append(vs, v.Pointer+": "+v.Message)
			}
			got = "violations [" + strings.Join(vs, " ") + "]"
		case f.Outside != "":
			got = "outside " + f.Outside
		case f.Dangling != "":
			got = "dangling " + f.Dangling
		}
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.schema, got, tt.want)
		}
	}
	if f := pilotage.ExplainCompileError("x", errors.New("other")); f.Violations != nil || f.Outside != "" || f.Dangling != "" {
		t.Errorf("an unrelated error explained as %+v", f)
	}
}
