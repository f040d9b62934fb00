package rules

import (
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	pilotage "github.com/pilotage-dev/pilotage"
)

// schemaSections maps a place in the embedded schemas (the schema file,
// "#", then the JSON Pointer of a subschema) to what a schema finding there
// cites, most specific first: the section of the field table in
// data-model.md that defines the member, then the sections its meaning
// column names. A place not listed is cited as the nearest listed place
// that holds it (a capability's value, capabilities.json#/additionalProperties,
// as the declaration). The snapshot file is the project's, so its own
// members cite data-model.md, which defines it.
//
// TestSchemaSectionsCoverTheSchemas fails when a schema gains a property
// or a definition without a line here, or a line names a place that no
// longer exists.
var schemaSections = map[string][]string{
	"manifest.json#":                                      {"5.1"},
	"manifest.json#/properties/pilotage":                  {"5.1", "11.1"},
	"manifest.json#/properties/server":                    {"5.1"},
	"manifest.json#/properties/server/properties/name":    {"5.1"},
	"manifest.json#/properties/server/properties/version": {"5.1"},
	"manifest.json#/properties/capabilities":              {"5.1", "4.2"},
	"manifest.json#/properties/languages":                 {"5.1"},

	"capabilities.json#": {"4.2"},

	"language.json#":                                     {"5.1"},
	"language.json#/properties/id":                       {"5.1", "3.3"},
	"language.json#/properties/title":                    {"5.1"},
	"language.json#/properties/description":              {"5.1"},
	"language.json#/properties/capabilities":             {"5.1", "4.2"},
	"language.json#/properties/guides":                   {"5.1", "4.3"},
	"language.json#/properties/catalog":                  {"5.1", "4.3"},
	"language.json#/properties/loop":                     {"5.1", "4.3"},
	"language.json#/properties/loop/properties/validate": {"5.1", "4.3"},
	"language.json#/properties/loop/properties/execute":  {"5.1", "4.3"},
	"language.json#/properties/loop/properties/trace":    {"5.1", "4.3"},
	"language.json#/properties/locator":                  {"5.1", "5.5"},
	"language.json#/properties/context_schema":           {"5.1", "6.4"},
	"language.json#/properties/execution_mode":           {"5.1", "6.5.7"},
	"language.json#/properties/trace_level":              {"5.1", "5.8.1"},
	"language.json#/properties/retention":                {"5.1", "6.6"},
	"language.json#/properties/trace_subprogram":         {"5.1", "5.8.3"},
	"language.json#/properties/promotion_authority":      {"5.1", "10.4"},

	"guide.json#":                        {"5.2"},
	"guide.json#/properties/id":          {"5.2"},
	"guide.json#/properties/title":       {"5.2"},
	"guide.json#/properties/level":       {"5.2"},
	"guide.json#/properties/version":     {"5.2", "11.2"},
	"guide.json#/properties/size_bytes":  {"5.2"},
	"guide.json#/properties/topics":      {"5.2"},
	"guide.json#/properties/media_type":  {"5.2"},
	"guide.json#/properties/description": {"5.2"},
	"guide.json#/properties/body":        {"5.2", "6.2"},

	"catalog-entry.json#":                          {"5.4"},
	"catalog-entry.json#/properties/id":            {"5.4"},
	"catalog-entry.json#/properties/kind":          {"5.4"},
	"catalog-entry.json#/properties/name":          {"5.4"},
	"catalog-entry.json#/properties/description":   {"5.4"},
	"catalog-entry.json#/properties/tags":          {"5.4"},
	"catalog-entry.json#/properties/languages":     {"5.4"},
	"catalog-entry.json#/properties/input_schema":  {"5.4"},
	"catalog-entry.json#/properties/output_schema": {"5.4"},
	"catalog-entry.json#/properties/risk":          {"5.3", "5.4"},
	"catalog-entry.json#/properties/risk_hints":    {"5.3", "5.4"},
	"catalog-entry.json#/properties/revision":      {"5.4"},

	"risk-hints.json#":                        {"5.3"},
	"risk-hints.json#/properties/readOnly":    {"5.3"},
	"risk-hints.json#/properties/destructive": {"5.3"},
	"risk-hints.json#/properties/openWorld":   {"5.3"},

	"snapshot.json#":                     {"data-model.md"},
	"snapshot.json#/properties/snapshot": {"data-model.md"},
	"snapshot.json#/properties/manifest": {"data-model.md", "5.1"},
	"snapshot.json#/properties/guides":   {"data-model.md", "5.2"},
	"snapshot.json#/properties/catalog":  {"data-model.md", "6.3"},
	"snapshot.json#/properties/catalog/additionalProperties/properties/catalog_version": {"data-model.md", "6.3"},
	"snapshot.json#/properties/catalog/additionalProperties/properties/items":           {"data-model.md", "6.3"},
}

// schemaFindingSections is what the schema finding for v cites: the
// sections of the place that failed, or for missing members those of
// each member, then §1.1 (an M field MUST be present). Nil when the
// place is in no embedded schema, and the rule's own section stands.
func schemaFindingSections(v pilotage.SchemaViolation) []string {
	place, ours := strings.CutPrefix(v.Schema, pilotage.SchemaBase)
	if !ours {
		return nil
	}
	req, ok := v.Kind.(*kind.Required)
	if !ok {
		return schemaPlaceSections(place)
	}
	var sections []string
	cite := func(cited ...string) {
		for _, s := range cited {
			if !slices.Contains(sections, s) {
				sections = append(sections, s)
			}
		}
	}
	for _, member := range req.Missing {
		cite(schemaPlaceSections(place + "/properties/" + pilotage.EscapePointerToken(member))...)
	}
	cite("1.1")
	return sections
}

// schemaPlaceSections looks place up in schemaSections, or the nearest
// place that holds it.
func schemaPlaceSections(place string) []string {
	for {
		if sections, ok := schemaSections[place]; ok {
			return sections
		}
		i := strings.LastIndexByte(place, '/')
		if i < 0 {
			return nil
		}
		place = place[:i]
	}
}
