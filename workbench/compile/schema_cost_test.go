package compile

import (
	"fmt"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// costlyPDL is a Language with two entries: "room" names its
// input_schema in room.json, "any" writes it inline.
func costlyPDL(inline string) []byte {
	return []byte(`risk safe readOnly "Reads."
language "a/v1" {
  capabilities {
    catalog
    validate
  }
  kind device callable "A device."
}
entry "room" kind=device risk=safe {
  input_schema file="room.json"
}
entry "any" kind=device risk=safe {
  input_schema ` + "`" + inline + "`" + `
}
`)
}

// enumSchema is an object schema whose one property is an enum of n
// distinct six-digit numbers, with the type t.
func enumSchema(t string, n int) []byte {
	b := []byte(`{"type": "` + t + `", "properties": {"room": {"enum": [`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(100000+i), 10)
	}
	return append(b, "]}}}"...)
}

// anyOf is a schema of n empty subschemas, with the type t.
func anyOf(t string, n int) string {
	return `{"type": "` + t + `", "anyOf": [` + strings.Repeat(`{}, `, n-1) + `{}]}`
}

// TestCostlySchemaRefused: a schema file whose enum lists 200,000 numbers
// (1.4 MB) would take jsonschema about 50 MB to compile, 35 bytes a byte;
// an inline schema of 8,000 empty subschemas (24 KB) 16 MB. Each is one
// pdl-json error at its argument saying it is too large to compile,
// naming the budget, and compiling the PDL allocates within 10 bytes a
// byte of the PDL and the file plus 6 MiB (93 a byte before, 1.6 now).
// The file's schema is refused from its tally (its values alone cost
// more), the inline one from its tree. One 200 levels deep is refused
// too. Schemas within the budget compile, and their mistakes show: on two
// workers the inline one, of 2,500 subschemas, costs more than the share
// prepare compiles side by side, so its handler compiles it alone.
func TestCostlySchemaRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a 1.4 MB schema file")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	compileWith := func(src, room []byte) ([]string, uint64) {
		read := func(name string) ([]byte, error) {
			if name == "room.json" {
				return room, nil
			}
			return nil, fs.ErrNotExist
		}
		var res *Result
		n := memtest.Allocated(func() { res = Source("lang.pdl", src, Options{ReadFile: read}) })
		var out []string
		for _, f := range res.Findings {
			if f.Rule != "pdl-json" {
				continue // the Language has no guides
			}
			out = append(out, fmt.Sprintf("%d:%d %s: %s", f.Line, f.Column, f.Rule, f.Message))
		}
		return out, n
	}

	src, room := costlyPDL(anyOf("object", 8000)), enumSchema("object", 200000)
	findings, allocated := compileWith(src, room)
	want := []string{
		fmt.Sprintf("10:16 pdl-json: input_schema is too large to compile: compiling it would take at least 38400768 bytes, over the budget of 4 bytes a byte of the PDL file and the schema's file plus 6 MiB (%d bytes)",
			4*(len(src)+len(room))+6<<20),
		fmt.Sprintf("13:16 pdl-json: input_schema is too large to compile: compiling it would take about %d bytes, over the budget of 4 bytes a byte of the PDL file plus 6 MiB (%d bytes)",
			2048*8001+192, 4*len(src)+6<<20),
	}
	if strings.Join(findings, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(findings, "\n"), strings.Join(want, "\n"))
	}
	input := len(src) + len(room)
	t.Logf("%d bytes: allocated %d, %.1f bytes a byte", input, allocated, float64(allocated)/float64(input))
	if limit := 10*uint64(input) + 6<<20; allocated > limit {
		t.Errorf("compiling %d bytes allocated %d bytes, over 10 a byte plus 6 MiB (%d)", input, allocated, limit)
	}

	deep := strings.Repeat(`{"items": `, 200) + "{}" + strings.Repeat("}", 200)
	findings, _ = compileWith(costlyPDL(deep), enumSchema("object", 2))
	if want := "13:16 pdl-json: input_schema nests more than 128 levels deep, too deep to compile"; strings.Join(findings, "\n") != want {
		t.Errorf("a schema 200 deep: findings\n%s\nwant %s", strings.Join(findings, "\n"), want)
	}

	findings, _ = compileWith(costlyPDL(anyOf("objekt", 2500)), enumSchema("objekt", 20000))
	if len(findings) != 2 || !strings.Contains(findings[0], "10:16 pdl-json: input_schema is not a valid JSON Schema") ||
		!strings.Contains(findings[1], "13:16 pdl-json: input_schema is not a valid JSON Schema") {
		t.Errorf("schemas within the budget: findings\n%s\nwant both compiled and their \"objekt\" reported", strings.Join(findings, "\n"))
	}
}
