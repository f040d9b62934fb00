package basetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/schemacost"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// TestSchemacostLeastBoundsCost: Least, from the tally alone, is never more than
// Cost, so a reader that refuses a schema by Least refuses only schemas
// Cost would refuse; for the schema files of langs/ and for schemas of
// each shape Cost charges, subschemas, data keywords and arrays in both.
func TestSchemacostLeastBoundsCost(t *testing.T) {
	schemas := map[string]string{
		"empty":        `{}`,
		"true":         `true`,
		"anyOf":        `{"anyOf": [{}, true, false, {"type": "string"}]}`,
		"enum":         `{"enum": [1, "a", null, [1, [2]], {"a": {"b": 1}}]}`,
		"const object": `{"const": {"a": [1, 2, {"b": true}]}, "default": [], "examples": [{}, []]}`,
		"required":     `{"type": ["object", "null"], "required": [], "properties": {"a": {"items": [[{}]]}}}`,
		"array root":   `[[], [{}], 1]`,
		"scalar":       `"x"`,
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "langs", "*", "schemas", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files in langs/: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		schemas[f] = string(b)
	}
	for name, src := range schemas {
		tally, err := jsonpos.CheckTally([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, err := jsonpos.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if least, cost := schemacost.Least(tally), schemacost.Cost(doc.Root); least > cost || least == 0 {
			t.Errorf("%s: Least %d, Cost %d", name, least, cost)
		}
	}
}

// TestSchemacostTooDeep: MaxDepth levels of nesting pass, one more does not,
// through objects and arrays alike.
func TestSchemacostTooDeep(t *testing.T) {
	for _, c := range []struct {
		open, close string
	}{{`{"items": `, `}`}, {`[`, `]`}} {
		for depth, want := range map[int]bool{schemacost.MaxDepth: false, schemacost.MaxDepth + 1: true} {
			src := strings.Repeat(c.open, depth) + "1" + strings.Repeat(c.close, depth)
			doc, err := jsonpos.Parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if got := schemacost.TooDeep(doc.Root); got != want {
				t.Errorf("%s nested %d deep: TooDeep = %v, want %v", c.open, depth, got, want)
			}
		}
	}
}
