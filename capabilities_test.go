package pilotage_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// §4.2: a capability value is `true`, `false` or an object of booleans.
func TestCapabilityValueJSON(t *testing.T) {
	tests := []struct {
		in   string
		want pilotage.CapabilityValue
		out  string // canonical re-encoding
	}{
		{`true`, pilotage.CapabilityValue{Declared: true}, `true`},
		{`false`, pilotage.CapabilityValue{}, `false`},
		{` true `, pilotage.CapabilityValue{Declared: true}, `true`},
		// An empty object declares the capability with no sub-features.
		{`{}`, pilotage.CapabilityValue{Declared: true, Sub: map[string]bool{}}, `{}`},
		{`{"search":true,"changed_since":false}`,
			pilotage.CapabilityValue{Declared: true, Sub: map[string]bool{"search": true, "changed_since": false}},
			`{"changed_since":false,"search":true}`},
		// Unknown sub-features are kept (§1.2: ignored by the receiver, not lost).
		{`{"future_thing":true}`, pilotage.CapabilityValue{Declared: true, Sub: map[string]bool{"future_thing": true}}, `{"future_thing":true}`},
		{`{"a/b~c":true}`, pilotage.CapabilityValue{Declared: true, Sub: map[string]bool{"a/b~c": true}}, `{"a/b~c":true}`},
	}
	for _, tt := range tests {
		var got pilotage.CapabilityValue
		if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Unmarshal(%s) = %#v, want %#v", tt.in, got, tt.want)
		}
		b, err := json.Marshal(got)
		if err != nil || string(b) != tt.out {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", got, b, err, tt.out)
		}
		// The re-encoding decodes to the same value: a round trip.
		var again pilotage.CapabilityValue
		if err := json.Unmarshal(b, &again); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("round trip of %s: %#v, %v", tt.in, again, err)
		}
	}
}

func TestCapabilityValueJSONErrors(t *testing.T) {
	for _, in := range []string{`1`, `"true"`, `null`, `[]`, `[true]`, `{"search":1}`, `{"search":"yes"}`, `{"search":{"x":true}}`, `{"search":null}`} {
		var v pilotage.CapabilityValue
		err := v.UnmarshalJSON([]byte(in))
		if err == nil {
			t.Errorf("UnmarshalJSON(%s) = %#v, want an error", in, v)
			continue
		}
		// The message tells the author what the value may be.
		if !strings.Contains(err.Error(), "boolean") {
			t.Errorf("UnmarshalJSON(%s): error %q does not say booleans are expected", in, err)
		}
		// And it is worded here, not by encoding/json.
		if strings.Contains(err.Error(), "json:") || strings.Contains(err.Error(), "Go value") {
			t.Errorf("UnmarshalJSON(%s): error %q leaks encoding/json's wording", in, err)
		}
	}
}

func TestCapabilitiesRoundTrip(t *testing.T) {
	src := `{"catalog":{"search":true},"execute":true,"guides":{},"plan":false}`
	var c pilotage.Capabilities
	if err := json.Unmarshal([]byte(src), &c); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil || string(b) != src {
		t.Fatalf("Marshal = %s, %v; want %s", b, err, src)
	}
}

// §4.2: a capability is undeclared when absent or false; a sub-feature is
// declared only when its parent is declared and its own value is true.
func TestHasAndHasSub(t *testing.T) {
	var c pilotage.Capabilities
	if err := json.Unmarshal([]byte(`{
		"guides": true,
		"validate": {},
		"plan": false,
		"catalog": {"search": true, "changed_since": false}
	}`), &c); err != nil {
		t.Fatal(err)
	}
	has := []struct {
		name string
		want bool
	}{
		{pilotage.CapGuides, true},
		{pilotage.CapValidate, true}, // an empty object declares it
		{pilotage.CapPlan, false},    // explicitly false
		{pilotage.CapExecute, false}, // absent
		{pilotage.CapCatalog, true},
	}
	for _, tt := range has {
		if got := c.Has(tt.name); got != tt.want {
			t.Errorf("Has(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	sub := []struct {
		name, sub string
		want      bool
	}{
		{pilotage.CapCatalog, pilotage.SubSearch, true},
		{pilotage.CapCatalog, pilotage.SubChangedSince, false}, // own value false
		{pilotage.CapGuides, pilotage.SubTopicFetch, false},    // `true` has no sub-features
		{pilotage.CapValidate, "anything", false},
		{pilotage.CapExecute, pilotage.SubTestRun, false}, // parent absent
	}
	for _, tt := range sub {
		if got := c.HasSub(tt.name, tt.sub); got != tt.want {
			t.Errorf("HasSub(%q, %q) = %v, want %v", tt.name, tt.sub, got, tt.want)
		}
	}
	// A sub-feature set true under a parent declared false is not declared.
	off := pilotage.Capabilities{pilotage.CapCatalog: {Declared: false, Sub: map[string]bool{pilotage.SubSearch: true}}}
	if off.HasSub(pilotage.CapCatalog, pilotage.SubSearch) {
		t.Error("HasSub under an undeclared parent must be false")
	}
	var nilCaps pilotage.Capabilities
	if nilCaps.Has(pilotage.CapGuides) || nilCaps.HasSub(pilotage.CapCatalog, pilotage.SubSearch) {
		t.Error("a nil map declares nothing")
	}
}

// §4.2: the Language-level value of a capability replaces the Server-level
// value in full; sub-features are never merged.
func TestEffectiveReplacesNotMerges(t *testing.T) {
	decode := func(s string) pilotage.Capabilities {
		t.Helper()
		if s == "" {
			return nil
		}
		var c pilotage.Capabilities
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name             string
		server, language string
		declared         []string // capability or capability.sub
		undeclared       []string
	}{
		{
			name:       "sub-features are not merged (§4.2)",
			server:     `{"catalog":{"search":true}}`,
			language:   `{"catalog":{"changed_since":true}}`,
			declared:   []string{"catalog", "catalog.changed_since"},
			undeclared: []string{"catalog.search"},
		},
		{
			name:       "language false withdraws a server capability",
			server:     `{"guides":true,"validate":true,"execute":{"test_run":true}}`,
			language:   `{"execute":false}`,
			declared:   []string{"guides", "validate"},
			undeclared: []string{"execute", "execute.test_run"},
		},
		{
			name:       "language true drops server sub-features",
			server:     `{"guides":{"topic_fetch":true}}`,
			language:   `{"guides":true}`,
			declared:   []string{"guides"},
			undeclared: []string{"guides.topic_fetch"},
		},
		{
			name:       "server value governs capabilities the language does not name",
			server:     `{"guides":{"topic_fetch":true},"validate":true}`,
			language:   `{"plan":true}`,
			declared:   []string{"guides", "guides.topic_fetch", "validate", "plan"},
			undeclared: []string{"catalog"},
		},
		{
			name:       "language only",
			language:   `{"guides":true,"validate":{}}`,
			declared:   []string{"guides", "validate"},
			undeclared: []string{"plan"},
		},
		{
			name:       "server only",
			server:     `{"guides":true,"validate":true}`,
			declared:   []string{"guides", "validate"},
			undeclared: []string{"execute"},
		},
		{
			name:       "neither",
			undeclared: []string{"guides", "validate"},
		},
	}
	check := func(c pilotage.Capabilities, path string) bool {
		capName, sub, isSub := strings.Cut(path, ".")
		if isSub {
			return c.HasSub(capName, sub)
		}
		return c.Has(capName)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server, language := decode(tt.server), decode(tt.language)
			eff := pilotage.Effective(server, language)
			for _, p := range tt.declared {
				if !check(eff, p) {
					t.Errorf("%s is not declared in %v", p, eff)
				}
			}
			for _, p := range tt.undeclared {
				if check(eff, p) {
					t.Errorf("%s is declared in %v", p, eff)
				}
			}
			// Effective does not alter its inputs.
			if !reflect.DeepEqual(server, decode(tt.server)) || !reflect.DeepEqual(language, decode(tt.language)) {
				t.Error("Effective modified an input map")
			}
		})
	}
}

func TestManifestEffectiveCapabilities(t *testing.T) {
	var m pilotage.Manifest
	if err := json.Unmarshal([]byte(`{"pilotage":"1.1","capabilities":{"catalog":{"search":true}},
		"languages":[{"id":"a/1","capabilities":{"catalog":{"changed_since":true}}}]}`), &m); err != nil {
		t.Fatal(err)
	}
	eff := m.EffectiveCapabilities(&m.Languages[0])
	if eff.HasSub(pilotage.CapCatalog, pilotage.SubSearch) || !eff.HasSub(pilotage.CapCatalog, pilotage.SubChangedSince) {
		t.Errorf("EffectiveCapabilities = %v; want catalog with changed_since only (§4.2)", eff)
	}
}

// §4.1: the capability table and its dependencies.
func TestLookupCapability(t *testing.T) {
	deps := map[string]string{
		pilotage.CapGuides: "", pilotage.CapCatalog: "", pilotage.CapValidate: pilotage.CapGuides,
		pilotage.CapPlan: pilotage.CapValidate, pilotage.CapExecute: pilotage.CapValidate,
		pilotage.CapTraceFetch: pilotage.CapExecute,
	}
	for name, dep := range deps {
		spec, ok := pilotage.LookupCapability(name)
		if !ok || spec.DependsOn != dep {
			t.Errorf("LookupCapability(%q) = %+v, %v; want depends on %q", name, spec, ok, dep)
		}
	}
	if _, ok := pilotage.LookupCapability("search"); ok {
		t.Error("a sub-feature is not a capability")
	}
	if len(pilotage.CapabilityTable) != len(deps) {
		t.Errorf("CapabilityTable has %d rows, §4.1 has %d", len(pilotage.CapabilityTable), len(deps))
	}
}
