package pilotage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Capability identifiers (§4.1).
const (
	CapGuides     = "guides"
	CapCatalog    = "catalog"
	CapValidate   = "validate"
	CapPlan       = "plan"
	CapExecute    = "execute"
	CapTraceFetch = "trace_fetch"
)

// Sub-feature identifiers (§4.1, data-model.md).
const (
	SubTopicFetch   = "topic_fetch"
	SubSearch       = "search"
	SubChangedSince = "changed_since"
	SubTestRun      = "test_run"
	SubIdempotency  = "idempotency"
	SubNarrate      = "narrate"
)

// CapabilitySpec describes one capability of the §4.1 table.
type CapabilitySpec struct {
	Name        string
	DependsOn   string // empty when the capability depends on nothing
	SubFeatures []string
}

// CapabilityTable is the §4.1 capability table in the order the spec lists it.
var CapabilityTable = []CapabilitySpec{
	{Name: CapGuides, SubFeatures: []string{SubTopicFetch}},
	{Name: CapCatalog, SubFeatures: []string{SubSearch, SubChangedSince}},
	{Name: CapValidate, DependsOn: CapGuides},
	{Name: CapPlan, DependsOn: CapValidate},
	{Name: CapExecute, DependsOn: CapValidate, SubFeatures: []string{SubTestRun, SubIdempotency}},
	{Name: CapTraceFetch, DependsOn: CapExecute, SubFeatures: []string{SubNarrate}},
}

// LookupCapability returns the §4.1 row for name.
func LookupCapability(name string) (CapabilitySpec, bool) {
	for _, c := range CapabilityTable {
		if c.Name == name {
			return c, true
		}
	}
	return CapabilitySpec{}, false
}

// CapabilityValue is the value of one capability in a declaration: `true`,
// `false`, or an object of boolean sub-features (§4.2).
type CapabilityValue struct {
	// Declared is true for `true` and for any object value.
	Declared bool
	// Sub holds the sub-feature booleans of an object value; nil for a
	// boolean value.
	Sub map[string]bool
}

// On returns a boolean `true` capability value.
func On() CapabilityValue { return CapabilityValue{Declared: true} }

// With returns an object capability value declaring the named sub-features.
func With(subs ...string) CapabilityValue {
	m := make(map[string]bool, len(subs))
	for _, s := range subs {
		m[s] = true
	}
	return CapabilityValue{Declared: true, Sub: m}
}

// MarshalJSON writes `true`/`false` or the sub-feature object, keys sorted.
func (v CapabilityValue) MarshalJSON() ([]byte, error) {
	if v.Sub == nil {
		return json.Marshal(v.Declared)
	}
	if !v.Declared {
		return []byte("false"), nil
	}
	keys := make([]string, 0, len(v.Sub))
	for k := range v.Sub {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		if v.Sub[k] {
			b.WriteString(":true")
		} else {
			b.WriteString(":false")
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON accepts a boolean or an object of booleans.
func (v *CapabilityValue) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		// Each member is read as written, so that null (which
		// encoding/json would make a silent false) and any other
		// non-boolean are named in the error (the schema allows booleans
		// only).
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return fmt.Errorf("capability object is not valid JSON")
		}
		m := make(map[string]bool, len(raw))
		for k, b := range raw {
			switch string(bytes.TrimSpace(b)) {
			case "true":
				m[k] = true
			case "false":
				m[k] = false
			default:
				return fmt.Errorf("capability object must map sub-features to booleans (true or false): %q is %s", k, jsonKind(b))
			}
		}
		*v = CapabilityValue{Declared: true, Sub: m}
		return nil
	}
	// encoding/json would decode null into false without a word; a null
	// capability value is malformed (§4.2), so it is rejected.
	var b bool
	if err := json.Unmarshal(data, &b); err != nil || string(data) == "null" {
		return fmt.Errorf("capability value must be true, false or an object of booleans")
	}
	*v = CapabilityValue{Declared: b}
	return nil
}

// Capabilities is a capability declaration: capability id → value (§4.2).
type Capabilities map[string]CapabilityValue

// Has reports whether capability c is declared (present and not false).
func (c Capabilities) Has(name string) bool {
	v, ok := c[name]
	return ok && v.Declared
}

// HasSub reports whether sub-feature sub of capability name is declared:
// the parent is declared and the sub-feature's own value is true (§4.2).
func (c Capabilities) HasSub(name, sub string) bool {
	v, ok := c[name]
	return ok && v.Declared && v.Sub[sub]
}

// Effective computes the effective capability map of one Language (§4.2):
// for each capability the Language-level value, when the Language declaration
// names it, replaces the Server-level value in full (sub-features are never
// merged); otherwise the Server-level value governs.
func Effective(server, language Capabilities) Capabilities {
	out := make(Capabilities, len(server)+len(language))
	for k, v := range server {
		out[k] = v
	}
	for k, v := range language {
		out[k] = v
	}
	return out
}

// jsonKind names the kind of a JSON value for messages: "null", "a string",
// "a number", "an object", "an array".
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "empty"
	}
	switch t[0] {
	case 'n':
		return "null"
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
