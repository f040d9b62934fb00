package rules

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestSchemaSectionsCoverTheSchemas keeps schemaSections complete: every
// schema the rule validates with (manifest.json, snapshot.json and those
// they refer to) has its root, each property and each definition in the
// table, so a member added to a schema cannot go without the section of
// the field table that defines it; and every line of the table names a
// place that exists.
func TestSchemaSectionsCoverTheSchemas(t *testing.T) {
	places := map[string]bool{}
	queue := []string{pilotage.SchemaManifest, pilotage.SchemaSnapshot}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if places[name+"#"] {
			continue
		}
		src, err := pilotage.SchemaSource(name)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		places[name+"#"] = true
		schemaPlaces(doc, name+"#", false, func(place string) { places[place] = true }, func(ref string) {
			if file, _, _ := strings.Cut(ref, "#"); file != "" {
				queue = append(queue, file)
			}
		})
	}
	for place := range places {
		if _, ok := schemaSections[place]; !ok {
			t.Errorf("schemaSections has no line for %s: add the section of the data-model.md table that defines it", place)
		}
	}
	for place, sections := range schemaSections {
		if !places[place] {
			t.Errorf("schemaSections cites %v for %s, which is in no schema the rule uses", sections, place)
		}
		if len(sections) == 0 {
			t.Errorf("schemaSections cites nothing for %s", place)
		}
	}
}

// schemaPlaces walks the schema v at place and calls found with the place
// of every property and definition under it (members of "properties",
// "$defs", "definitions"), and ref with every "$ref".
func schemaPlaces(v any, place string, membersAreSchemas bool, found, ref func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			at := place + "/" + pilotage.EscapePointerToken(k)
			if membersAreSchemas {
				found(at)
				schemaPlaces(sub, at, false, found, ref)
				continue
			}
			if s, ok := sub.(string); ok && k == "$ref" {
				ref(s)
			}
			schemaPlaces(sub, at, k == "properties" || k == "$defs" || k == "definitions", found, ref)
		}
	case []any:
		for i, e := range v {
			schemaPlaces(e, place+"/"+strconv.Itoa(i), false, found, ref)
		}
	}
}

// TestSchemaFindingSections pins what the lookup does with the library's
// schema locations: a missing member cites each member's sections then
// §1.1 (§1.1), a value cites its own place or the nearest listed place
// holding it, and a location outside the embedded schemas cites nothing,
// so the rule's §1.1 stands.
func TestSchemaFindingSections(t *testing.T) {
	base := pilotage.SchemaBase
	for _, c := range []struct {
		schema string
		kind   jsonschema.ErrorKind
		want   []string
	}{
		{base + "manifest.json#", &kind.Required{Missing: []string{"pilotage"}}, []string{"5.1", "11.1", "1.1"}},
		{base + "catalog-entry.json#", &kind.Required{Missing: []string{"kind", "risk", "risk_hints"}}, []string{"5.4", "5.3", "1.1"}},
		{base + "manifest.json#/properties/pilotage", &kind.Type{Got: "number", Want: []string{"string"}}, []string{"5.1", "11.1"}},
		{base + "capabilities.json#/additionalProperties/additionalProperties", &kind.Type{Got: "string", Want: []string{"boolean"}}, []string{"4.2"}},
		{base + "guide.json#/properties/topics/items", &kind.Type{Got: "number", Want: []string{"string"}}, []string{"5.2"}},
		{"https://example.com/other.json#", &kind.Required{Missing: []string{"x"}}, nil},
	} {
		v := pilotage.SchemaViolation{Schema: c.schema, Kind: c.kind}
		if got := schemaFindingSections(v); !slices.Equal(got, c.want) {
			t.Errorf("%s %T: got %v, want %v", c.schema, c.kind, got, c.want)
		}
	}
}
