package rules

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
)

// The schema rule validates a snapshot piece by piece (schemaPieces); it
// must find exactly what validating the whole document finds (§1.1), on
// every fixture and example of the repository and on snapshots that break
// guides and entries in every way the split could get wrong.
func TestSchemaPiecesMatchWhole(t *testing.T) {
	docs := golden.Sections(t, filepath.Join("testdata", "*.txtar"), func(name string) bool { return strings.HasSuffix(name, ".json") })
	examples, _ := filepath.Glob(filepath.Join("..", "..", "docs", "examples", "*.json"))
	for _, path := range examples {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	for _, d := range []string{
		`{"snapshot": "pilotage/1.1", "manifest": {}, "guides": {"a": [{"id": 1}, "x", {"id": "g", "title": "t", "level": "core", "version": "1", "size_bytes": -1}]}}`,
		`{"snapshot": "pilotage/1.1", "manifest": {}, "guides": {"a": [{}], "a": [{"id": "only the last counts"}]}}`,
		`{"snapshot": "pilotage/1.1", "manifest": {}, "guides": {"a": {}}, "catalog": {"b": {"items": {}}}}`,
		`{"snapshot": "pilotage/1.1", "manifest": {}, "guides": {}, "catalog": {"b": {"items": [{"id": 2, "risk_hints": {"readOnly": 1}}, []], "items": [{"kind": "k"}]}, "c": 3}}`,
		`{"snapshot": "pilotage/1.1", "manifest": {}, "guides": [], "catalog": {"x~/y": {"catalog_version": "1", "items": [{"input_schema": 1}]}}}`,
		`{"snapshot": 1, "guides": {"a": [{"id": "g"}]}, "guides": {"b": [{"id": 1}]}}`,
		`{"snapshot": "pilotage/1.1", "manifest": {}, "guides": {}, "catalog": {"b": {"catalog_version": "1", "items": [{"id": "e", "kind": "k", "risk": "r", "risk_hints": {}, "input_schema": [{"type": 1}], "output_schema": "s"}, {"input_schema": {"type": 3}, "input_schema": null, "output_schema": {}, "tags": [1]}]}}}`,
	} {
		docs = append(docs, []byte(d))
	}
	checked := 0
	for _, src := range docs {
		doc, err := jsonpos.Parse(src)
		if err != nil || !doc.Root.Is(jsonpos.Object) {
			continue
		}
		kind, name := lint.KindManifest, pilotage.SchemaManifest
		if doc.Root.Has("snapshot") {
			kind, name = lint.KindSnapshot, pilotage.SchemaSnapshot
		}
		s, err := pilotage.Schema(name)
		if err != nil {
			t.Fatal(err)
		}
		var whole, split []string
		for _, v := range pilotage.Violations(s.Validate(doc.Root.Value())) {
			whole = append(whole, fmt.Sprintf("%s %T %s", v.Pointer, v.Kind, v.Message))
		}
		// The keys are short, so their pointers are whole.
		partPointer := func(part, key string) string { return "/" + part + "/" + pilotage.EscapePointerToken(key) }
		for pc := range schemaPieces(doc.Root, kind, s, partPointer) {
			for _, v := range pilotage.Violations(pc.schema.Validate(pc.node.ValueWith(pc.cut))) {
				split = append(split, fmt.Sprintf("%s %T %s", pc.pointer+v.Pointer, v.Kind, v.Message))
			}
		}
		slices.Sort(whole)
		slices.Sort(split)
		if !reflect.DeepEqual(whole, split) {
			t.Errorf("%.120s:\nwhole: %q\nsplit: %q", src, whole, split)
		}
		checked++
	}
	if checked < 50 {
		t.Errorf("only %d documents checked; the fixtures were not found", checked)
	}
}

// The entry's schemas, most of a catalog's nodes, are the members only
// typed by catalog-entry.json, and so left out of the conversion.
func TestTypeOnlyMembers(t *testing.T) {
	got := typeOnlyMembers(pilotage.SchemaCatalogEntry)
	if !got["input_schema"] || !got["output_schema"] || got["risk_hints"] || got["tags"] {
		t.Errorf("type-only members of catalog-entry.json = %v; want input_schema and output_schema, not risk_hints or tags", got)
	}
}

// schemaPieces relies on the snapshot schema saying nothing of a guides
// array or a catalog's items but their type and the schema of each
// element; a keyword added there (minItems, uniqueItems, contains…) would
// be lost by the split, so this test fails first.
func TestSnapshotSchemaSplits(t *testing.T) {
	src, err := pilotage.SchemaSource(pilotage.SchemaSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Guides struct {
				AdditionalProperties map[string]any `json:"additionalProperties"`
			} `json:"guides"`
			Catalog struct {
				AdditionalProperties struct {
					Properties struct {
						Items map[string]any `json:"items"`
					} `json:"properties"`
				} `json:"additionalProperties"`
			} `json:"catalog"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(src, &s); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]map[string]any{
		pilotage.SchemaGuide:        s.Properties.Guides.AdditionalProperties,
		pilotage.SchemaCatalogEntry: s.Properties.Catalog.AdditionalProperties.Properties.Items,
	} {
		want := map[string]any{"type": "array", "items": map[string]any{"$ref": name}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("snapshot.json's array of %s is %v; schemaPieces assumes exactly %v", name, got, want)
		}
	}
}
