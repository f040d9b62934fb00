package inputs

import (
	"strings"
	"testing"
)

// Recognize names a document only when its shape is unmistakable: an
// object that merely has steps, as a program's input or a schema may, is
// Unknown, and so is anything that is no JSON object.
func TestRecognize(t *testing.T) {
	for src, want := range map[string]Kind{
		`{"snapshot": "pilotage/1.1", "manifest": {}}`:                        Snapshot,
		`{"pilotage": "1.1", "languages": []}`:                                Manifest,
		`{"run_id": "r", "level": "full", "steps": [{"id": "a"}]}`:            Trace,
		`{"outcome": {"ok": true}, "trace": {"run_id": "r"}}`:                 Trace,
		`{"steps": [{"id": "a", "kind": "step"}], "max_risk": "safe"}`:        Plan,
		`{"valid": true, "diagnostics": [], "plan": {"steps": []}}`:           Plan,
		`{"valid": false, "diagnostics": []}`:                                 Response,
		`{"steps": [{"id": "a", "call": "x.y"}, {"if": "true", "then": []}]}`: Program,
		`{"steps": [{"for_each": "input.xs", "do": []}], "output": "1"}`:      Program,
		// A program with a stray member is still a program: its
		// diagnostics name the member.
		`{"steps": [{"id": "a", "call": "x"}], "valid": true}`:      Program,
		`{"steps": [{"id": "a", "call": "x"}], "languages": []}`:    Program,
		`{"steps": [{"id": "a", "call": "x"}], "max_risk": "safe"}`: Program,
		// Not unmistakably a program: no steps, a plan step, a step of
		// another grammar, a step that is no object.
		`{"steps": []}`: Unknown,
		`{"steps": [{"id": "a", "call": "x", "kind": "step"}]}`: Unknown,
		`{"steps": [{"id": "a", "invoke": "x.y"}]}`:             Unknown,
		`{"steps": [{"call": "x"}, "b"]}`:                       Unknown,
		`{"room": "kitchen", "steps": 3}`:                       Unknown,
		`{"valid": "yes"}`:                                      Unknown,
		`[{"steps": [{"call": "x"}]}]`:                          Unknown,
		`{"steps": [{"call": "x"}]`:                             Unknown,
		"# a PDL file\nserver \"s\" version=\"1\"":              Unknown,
		"cases:\n  - name: a\n":                                 Unknown,
		``:                                                      Unknown,
		// Too dense to build a tree of: not parsed at all.
		`{"pilotage": "1.1", "x": [` + strings.Repeat("0,", 1<<20) + `0]}`: Unknown,
	} {
		if got := RecognizeSrc([]byte(src)); got != want {
			t.Errorf("RecognizeSrc(%.60q) = %v, want %v", src, got, want)
		}
	}
}
