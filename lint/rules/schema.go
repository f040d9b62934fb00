package rules

import (
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// schemaRule validates the document against the embedded JSON Schema of
// its kind: required members and JSON types of every structure (§1.1,
// §5.1–§5.4, data-model.md). Each finding cites the section of the field
// table that defines the failing member first (schemaSections); §1.1,
// the rule's own, is the default. Closed-set values are other rules'
// business, because their severity depends on the manifest version
// (reading 11).
var schemaRule = &lint.Rule{
	ID:       "schema",
	Category: lint.CatSyntax,
	Section:  "1.1",
	Severity: report.Error,
	Summary:  "Every structure must have its required (M) members with the JSON types of data-model.md.",
	Check: func(p *lint.Pass) {
		name, root := "", ""
		switch p.Kind {
		case lint.KindManifest:
			name, root = pilotage.SchemaManifest, "the manifest"
		case lint.KindSnapshot:
			name, root = pilotage.SchemaSnapshot, "the snapshot"
		default:
			return
		}
		s, err := pilotage.Schema(name)
		if err != nil {
			p.Report("", fmt.Sprintf("internal error: embedded schema %s: %v", name, err), "")
			return
		}
		for pc := range schemaPieces(p.Doc.Root, p.Kind, s, p.PartPointer) {
			for _, v := range pilotage.Violations(pc.schema.Validate(pc.node.ValueWith(pc.cut))) {
				ptr := pc.pointer + v.Pointer
				if p.Counted(ptr) {
					continue
				}
				v.Pointer = ptr
				p.ReportCiting(schemaFindingSections(v), ptr, describe(v, subject(ptr, root)), schemaHint(ptr))
			}
		}
	},
}

// schemaPiece is a subtree validated on its own against schema, with the
// nodes cut marks left out (they are pieces of their own).
type schemaPiece struct {
	pointer string
	node    jsonpos.Node
	schema  *jsonschema.Schema
	cut     func(jsonpos.Node) (any, bool)
}

// schemaPieces splits the validation of a snapshot so that no more than
// one guide or one catalog entry is converted to Go values at a time:
// converting a large snapshot whole doubled lint's memory. The snapshot
// schema applies guide.json to each element of a guides array and
// catalog-entry.json to each element of a catalog's items, and says
// nothing else of those arrays but their type (TestSnapshotSchemaSplits
// keeps it so), so validating the root with those arrays empty and each
// element against its own schema finds the same violations. A manifest is
// small and validated whole. The pieces are made as they are validated,
// not listed first: with the list of a snapshot's 250,000 catalog
// entries, lint's heap reached 3 bytes a byte of it more. partPointer is
// the pointer of a member of guides or catalog (lint.Pass.PartPointer).
func schemaPieces(rootNode jsonpos.Node, kind lint.InputKind, rootSchema *jsonschema.Schema, partPointer func(part, key string) string) iter.Seq[schemaPiece] {
	return func(yield func(schemaPiece) bool) {
		if kind != lint.KindSnapshot {
			yield(schemaPiece{node: rootNode, schema: rootSchema})
			return
		}
		// The arrays split off, found first, as the root's validation
		// leaves them out.
		type split struct {
			array    jsonpos.Node
			ptr      string
			schema   *jsonschema.Schema
			typeOnly map[string]bool
		}
		var arrays []split
		emptied := map[jsonpos.Node]bool{}
		each := func(array jsonpos.Node, ptr, name string) {
			s, err := pilotage.Schema(name)
			if err != nil || !array.Is(jsonpos.Array) {
				return // left to the root's validation, which reports the type
			}
			emptied[array] = true
			arrays = append(arrays, split{array, ptr, s, typeOnlyMembers(name)})
		}
		// Only the last of duplicate members is validated, as in the
		// decoded value (and Get) the last one wins.
		guides := rootNode.Get("guides")
		for _, m := range guides.Members() {
			if guides.Get(m.Key) == m.Value {
				each(m.Value, partPointer("guides", m.Key), pilotage.SchemaGuide)
			}
		}
		catalog := rootNode.Get("catalog")
		for _, m := range catalog.Members() {
			if catalog.Get(m.Key) == m.Value {
				each(m.Value.Get("items"), partPointer("catalog", m.Key)+"/items", pilotage.SchemaCatalogEntry)
			}
		}
		root := schemaPiece{node: rootNode, schema: rootSchema,
			cut: func(n jsonpos.Node) (any, bool) { return []any{}, emptied[n] }}
		if !yield(root) {
			return
		}
		for _, a := range arrays {
			for i, e := range a.array.Elems() {
				if !yield(schemaPiece{pointer: a.ptr + "/" + strconv.Itoa(i), node: e, schema: a.schema, cut: stubs(e, a.typeOnly)}) {
					return
				}
			}
		}
	}
}

// stubs leaves out of an element's conversion the containers the schema
// checks only for their type (an entry's input_schema and output_schema,
// most of an entry's nodes): an empty one of the same type stands in.
func stubs(elem jsonpos.Node, typeOnly map[string]bool) func(jsonpos.Node) (any, bool) {
	var cut []jsonpos.Node
	for _, m := range elem.Members() {
		if typeOnly[m.Key] {
			cut = append(cut, m.Value)
		}
	}
	if cut == nil {
		return nil
	}
	return func(n jsonpos.Node) (any, bool) {
		if !slices.Contains(cut, n) {
			return nil, false
		}
		switch n.Kind() {
		case jsonpos.Object:
			return map[string]any{}, true
		case jsonpos.Array:
			return []any{}, true
		}
		return nil, false
	}
}

// typeOnlyMembers returns the properties of the embedded object schema
// name whose subschema has no keyword but "type" and annotations, so that
// only the JSON type of their value matters; none when the schema has a
// keyword that could look at a property another way.
func typeOnlyMembers(name string) map[string]bool {
	typeOnlyOnce.Do(func() {
		typeOnlyCache = map[string]map[string]bool{}
		for _, n := range []string{pilotage.SchemaGuide, pilotage.SchemaCatalogEntry} {
			typeOnlyCache[n] = readTypeOnly(n)
		}
	})
	return typeOnlyCache[name]
}

var (
	typeOnlyOnce  sync.Once
	typeOnlyCache map[string]map[string]bool
)

// schemaAnnotations are the keywords that constrain nothing.
var schemaAnnotations = []string{"$schema", "$id", "$comment", "title", "description"}

func readTypeOnly(name string) map[string]bool {
	src, err := pilotage.SchemaSource(name)
	var s map[string]json.RawMessage
	if err != nil || json.Unmarshal(src, &s) != nil {
		return nil
	}
	for k := range s {
		if !slices.Contains(schemaAnnotations, k) && k != "type" && k != "required" && k != "properties" {
			return nil
		}
	}
	var props map[string]map[string]json.RawMessage
	if json.Unmarshal(s["properties"], &props) != nil {
		return nil
	}
	out := map[string]bool{}
	for prop, sub := range props {
		only := len(sub) > 0
		for k := range sub {
			only = only && (k == "type" || slices.Contains(schemaAnnotations, k))
		}
		if only {
			out[prop] = true
		}
	}
	return out
}

// schemaHint points at the data-model.md table of the structure that
// holds the value at pointer.
func schemaHint(pointer string) string {
	toks := strings.Split(pointer, "/")
	last := func(name string) int {
		for i := len(toks) - 1; i >= 0; i-- {
			if toks[i] == name {
				return i
			}
		}
		return -1
	}
	switch c, l, g, i := last("capabilities"), last("languages"), last("guides"), last("items"); {
	case c >= 0 && c >= l:
		return "a capability declaration maps each capability to true, false or an object of boolean sub-features (§4.2, data-model.md §4.1)"
	case i > 0 && toks[1] == "catalog" && len(toks) > i+1:
		return "see the catalog entry table (data-model.md §5.4) for the required members and their types"
	case g == 1 && toks[0] == "" && len(toks) > 3:
		return "see the guide table (data-model.md §5.2) for the required members and their types"
	case l >= 0 && len(toks) > l+1:
		return "see the Language entry table (data-model.md §5.1) for the required members and their types"
	}
	return "see the manifest table (data-model.md §5.1) and, for snapshots, the snapshot file section of data-model.md"
}

func init() { register(schemaRule) }
