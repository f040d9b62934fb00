package syntax

import (
	"encoding/json"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

func homeflow(locator string) *language.Language {
	return &language.Language{ID: "h/v1", Locator: locator, Grammar: language.Grammar{Call: "call", Args: "with"}}
}

// Wire and Source are inverse for both dialects (binding.md): a text
// program travels as a JSON string of its characters, a JSON one as is.
func TestWireSource(t *testing.T) {
	src := []byte("{\"steps\": []}\n")
	for _, loc := range pilotage.Locators {
		raw, text := Wire(loc, src)
		if text != Textual(loc) || string(Source(loc, raw)) != string(src) {
			t.Errorf("%s: Wire gave %s (textual %v), Source of it %q", loc, raw, text, Source(loc, raw))
		}
	}
	if raw, _ := Wire(pilotage.LocatorTextRange, src); !json.Valid(raw) || raw[0] != '"' {
		t.Errorf("a text program is sent as a JSON string, got %s", raw)
	}
	if ProgramSchema(pilotage.LocatorJSONPointer) != nil || ProgramSchema(pilotage.LocatorTextRange)["type"] != "string" {
		t.Error("only a text-range Language's tools take the program as a string")
	}
}

// The same JSON with the same error is located by JSON Pointer in a
// json-pointer Language and by the value's line and column (code points)
// in a text-range one.
func TestJSONLocate(t *testing.T) {
	src := []byte("{\"steps\": [\n  {\"id\": \"é\", \"call\": 5}]}")
	for _, c := range []struct {
		loc  string
		want string
	}{
		{pilotage.LocatorJSONPointer, `"/steps/0/call"`},
		{pilotage.LocatorTextRange, `{"start":{"line":2,"column":23},"end":{"line":2,"column":24}}`},
	} {
		p, err := For(homeflow(c.loc)).Parse(src, 8)
		if err != nil || len(p.Diagnostics) != 1 {
			t.Fatalf("%s: %v %v", c.loc, err, p.Diagnostics)
		}
		got, _ := json.Marshal(p.Locate(p.Diagnostics)[0].Path)
		if string(got) != c.want {
			t.Errorf("%s: path %s, want %s", c.loc, got, c.want)
		}
		if s, e := p.Span(p.Diagnostics[0]); s != (pilotage.LineCol{Line: 2, Column: 23}) || e != (pilotage.LineCol{Line: 2, Column: 24}) {
			t.Errorf("%s: span %v–%v", c.loc, s, e)
		}
	}
}

// TestSpanEveryStepLinear: placing every step of a JSON program reads the
// text once, not once a step (plan's program listing of 2,000 steps took
// 7.6 s when each span built its own tree).
func TestSpanEveryStepLinear(t *testing.T) {
	alloc := func(n int) uint64 {
		src := jsonSteps(n)
		return memtest.Allocated(func() { spanEveryStep(t, src) })
	}
	small, large := alloc(500), alloc(2000)
	if large > 6*small {
		t.Errorf("4× the steps allocate %.1f× the bytes (%d then %d)", float64(large)/float64(small), small, large)
	}
}

// TestMalformedJSON: a JSON program that is not JSON is, without its
// Language, the finding Parse's syntax diagnostic is: the same message,
// at the byte where it goes wrong (a trailing comma at the comma, a name
// given twice at the second); a program that is JSON is none, whatever
// its steps.
func TestMalformedJSON(t *testing.T) {
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"{\n  \"steps\": [],}", 2, 14},
		{`{"steps": [], "steps": []}`, 1, 15},
		{"{\"output\": \"caf\xe9\"}", 1, 16},
	} {
		f := MalformedJSON("p.json", []byte(c.src))
		p, err := For(homeflow(pilotage.LocatorJSONPointer)).Parse([]byte(c.src), 8)
		if err != nil || len(p.Diagnostics) != 1 {
			t.Fatalf("%q: Parse gave %v %v", c.src, err, p.Diagnostics)
		}
		if f == nil || f.File != "p.json" || f.Line != c.line || f.Column != c.col || f.Rule != pilotage.CodeSyntax || f.Message != p.Diagnostics[0].Message || f.Hint != p.Diagnostics[0].Hint {
			t.Errorf("%q: %+v, want a syntax finding at %d:%d saying %q", c.src, f, c.line, c.col, p.Diagnostics[0].Message)
		}
	}
	if f := MalformedJSON("p.json", []byte(`{"steps": [{"nonsense": 1}]}`)); f != nil {
		t.Errorf("JSON is no malformed program: %+v", f)
	}
}
