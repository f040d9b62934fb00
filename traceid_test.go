package pilotage_test

import (
	"reflect"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

func seg(base string, it ...int) pilotage.TraceSegment {
	return pilotage.TraceSegment{Base: base, Iterations: it}
}

// §5.8.2: identity grammar, iteration qualifiers and expansion prefixes.
func TestParseTraceID(t *testing.T) {
	tests := []struct {
		in   string
		want pilotage.TraceID
		base string
	}{
		{"fetch", pilotage.TraceID{TraceSegment: seg("fetch")}, "fetch"},
		{"step#1", pilotage.TraceID{TraceSegment: seg("step", 1)}, "step"},
		{"step#3", pilotage.TraceID{TraceSegment: seg("step", 3)}, "step"},
		{"step#2#4", pilotage.TraceID{TraceSegment: seg("step", 2, 4)}, "step"},
		{"call1#2/body#3", pilotage.TraceID{Prefixes: []pilotage.TraceSegment{seg("call1", 2)}, TraceSegment: seg("body", 3)}, "body"},
		{"call1/body", pilotage.TraceID{Prefixes: []pilotage.TraceSegment{seg("call1")}, TraceSegment: seg("body")}, "body"},
		{"a#1/b#2#3/c", pilotage.TraceID{Prefixes: []pilotage.TraceSegment{seg("a", 1), seg("b", 2, 3)}, TraceSegment: seg("c")}, "c"},
		{"x#10#200", pilotage.TraceID{TraceSegment: seg("x", 10, 200)}, "x"},
		{"ünï-code_1.2#7", pilotage.TraceID{TraceSegment: seg("ünï-code_1.2", 7)}, "ünï-code_1.2"},
	}
	for _, tt := range tests {
		id, err := pilotage.ParseTraceID(tt.in)
		if err != nil {
			t.Errorf("ParseTraceID(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(id, tt.want) {
			// Normalise nil vs empty Prefixes for the comparison.
			if !(len(id.Prefixes) == 0 && len(tt.want.Prefixes) == 0 && reflect.DeepEqual(id.TraceSegment, tt.want.TraceSegment)) {
				t.Errorf("ParseTraceID(%q) = %+v, want %+v", tt.in, id, tt.want)
			}
		}
		if id.String() != tt.in {
			t.Errorf("String() = %q, want %q", id.String(), tt.in)
		}
		if got := pilotage.BaseID(tt.in); got != tt.base || id.Base != tt.base {
			t.Errorf("BaseID(%q) = %q, parsed base %q; want %q", tt.in, got, id.Base, tt.base)
		}
		if id.Prefixed() != strings.Contains(tt.in, "/") {
			t.Errorf("Prefixed(%q) = %v", tt.in, id.Prefixed())
		}
	}
}

func TestParseTraceIDRejects(t *testing.T) {
	tests := []rejectCase{
		{"", "empty"},
		{"step#0", "#0"},     // iterations are 1-based
		{"step#01", "#01"},   // no leading zeros: one spelling per id
		{"step#-1", "#-1"},   // not positive
		{"step#+1", "#+1"},   // no sign
		{"step#", "#"},       // empty qualifier
		{"step##1", "#"},     // empty qualifier between two
		{"step#1x", "#1x"},   // not decimal
		{"step#x", "#x"},     // not a number at all
		{"step# 1", "# 1"},   // no spaces
		{"step#١", "#١"},     // Arabic-Indic digit: decimal means ASCII
		{"#1", "empty base"}, // no base
		{"/body", "empty base"},
		{"call1/", "empty base"},
		{"call1//body", "empty base"},
		{"call1#0/body", "#0"}, // prefixes are checked too
		{"step#99999999999999999999999", "too large"},
		{"step#-99999999999999999999999", "not a positive integer"},
		{"step#01", "without leading zeros"},
	}
	checkRejects(t, "ParseTraceID", pilotage.ParseTraceID, tests)
}

// §5.8.2 base identifier recovery works on any string, valid or not.
func TestBaseID(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"step":             "step",
		"step#2#4":         "step",
		"call1#2/body#3":   "body",
		"a/b/c#1":          "c",
		"trailing/":        "",
		"#3":               "",
		"call#1/#2":        "",
		"a#b/c":            "c",
		"x/y#1#2/z#9#9#9#": "z",
	} {
		if got := pilotage.BaseID(in); got != want {
			t.Errorf("BaseID(%q) = %q, want %q", in, got, want)
		}
	}
}

// §3.4: program step identifiers must not contain '#' or '/'.
func TestValidStepID(t *testing.T) {
	for in, want := range map[string]bool{"fetch": true, "a-b_c.1": true, "": false, "a#1": false, "a/b": false, "#": false} {
		if got := pilotage.ValidStepID(in); got != want {
			t.Errorf("ValidStepID(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzParseTraceID: a successful parse round-trips through String, its
// base is what BaseID recovers, and its base is a valid step id; BaseID
// never panics on anything.
func FuzzParseTraceID(f *testing.F) {
	for _, s := range []string{"step", "step#1", "step#2#4", "call1#2/body#3", "a/b/c", "#0", "x#01", "x#-1", "x#", "a//b", "", "/", "#", "a#1/b#2#3/c#4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		base := pilotage.BaseID(s)
		id, err := pilotage.ParseTraceID(s)
		if err != nil {
			return
		}
		if id.String() != s {
			t.Fatalf("ParseTraceID(%q).String() = %q", s, id.String())
		}
		if base != id.Base {
			t.Fatalf("BaseID(%q) = %q, parsed base %q", s, base, id.Base)
		}
		if !pilotage.ValidStepID(id.Base) {
			t.Fatalf("ParseTraceID(%q) accepted base %q", s, id.Base)
		}
		for _, p := range id.Prefixes {
			if !pilotage.ValidStepID(p.Base) {
				t.Fatalf("ParseTraceID(%q) accepted prefix base %q", s, p.Base)
			}
		}
		if id.Prefixed() != strings.Contains(s, "/") {
			t.Fatalf("Prefixed(%q) = %v", s, id.Prefixed())
		}
	})
}
