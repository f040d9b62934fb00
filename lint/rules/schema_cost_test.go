package rules

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/lint"
)

// costlySnapshot is a snapshot whose one entry has input_schema and
// whose Language has context_schema as given.
func costlySnapshot(inputSchema, contextSchema string) []byte {
	return []byte(`{"snapshot": "pilotage/1.1", "manifest": {"pilotage": "1.1", "capabilities": {"catalog": true},
	  "languages": [{"id": "h/1", "catalog": "h_lookup", "locator": "json-pointer", "context_schema": ` + contextSchema + `}]},
	  "catalog": {"h/1": {"catalog_version": "1", "items": [{"id": "e", "kind": "table", "risk": "safe",
	    "risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}, "input_schema": ` + inputSchema + `}]}}}`)
}

// numbers is a JSON array of n distinct six-digit numbers.
func numbers(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(100000 + i))
	}
	return b.String() + "]"
}

// TestCostlySchemaNotCompiled: an input_schema whose enum lists 200,000
// numbers (1.4 MB) would take jsonschema about 50 MB to compile, 35 bytes
// a byte; a context_schema of 8,000 empty subschemas (24 KB) 16 MB. Each
// is one warning at the schema saying it is too large to check offline,
// naming the budget, and lint of the document allocates within 10 bytes a
// byte of it plus 6 MiB (it allocated 81 bytes a byte before). The same
// schemas a tenth the size, within the budget, are compiled and their
// errors reported.
func TestCostlySchemaNotCompiled(t *testing.T) {
	if testing.Short() {
		t.Skip("lints a 1.4 MB snapshot")
	}
	run := func(src []byte) ([]report.Finding, uint64) {
		var rep *report.Report
		var err error
		n := memtest.Allocated(func() { rep, err = lint.Run(All(), []*lint.Input{{File: "costly.json", Src: src}}, lint.Config{}) })
		if err != nil {
			t.Fatal(err)
		}
		return rep.Findings, n
	}
	anyOf := func(n int) string { return `{"anyOf": [` + strings.Repeat(`{}, `, n-1) + `{}]}` }

	src := costlySnapshot(`{"enum": `+numbers(200000)+`}`, anyOf(8000))
	findings, allocated := run(src)
	var warned []string
	for _, f := range findings {
		if f.Rule != "entry-schemas" && f.Rule != "context-schema" {
			continue
		}
		if f.Severity != report.Warning || !strings.Contains(f.Message, "too large to check offline") ||
			!strings.Contains(f.Message, "budget of 4 bytes a byte of the document plus 6 MiB") {
			t.Errorf("finding %+v, want a warning that the schema is too large, naming the budget", f)
		}
		warned = append(warned, f.Pointer)
	}
	if want := []string{"/manifest/languages/0/context_schema", "/catalog/h~11/items/0/input_schema"}; strings.Join(warned, " ") != strings.Join(want, " ") {
		t.Errorf("warned at %q, want %q", warned, want)
	}
	t.Logf("%d bytes: allocated %d, %.1f bytes a byte", len(src), allocated, float64(allocated)/float64(len(src)))
	if limit := 10*uint64(len(src)) + 6<<20; allocated > limit {
		t.Errorf("lint of %d bytes allocated %d bytes, over 10 a byte plus 6 MiB (%d)", len(src), allocated, limit)
	}

	// Within the budget the schemas compile, and their mistakes show.
	findings, _ = run(costlySnapshot(`{"type": "objekt", "enum": `+numbers(20000)+`}`, `{"type": "objekt", "anyOf": `+anyOf(500)[len(`{"anyOf": `):]))
	errs := map[string]bool{}
	for _, f := range findings {
		if f.Severity == report.Error && strings.Contains(f.Message, "is not a valid JSON Schema") {
			errs[f.Rule] = true
		}
	}
	if !errs["entry-schemas"] || !errs["context-schema"] {
		t.Errorf("schemas within the budget: findings %+v, want both compiled and their \"objekt\" reported", findings)
	}
}

// A large but ordinary schema, 300 properties with a description each,
// far more than any in langs/, alone in a document, is compiled: its
// cost is a small part of the 6 MiB allowance. The schemas of the
// examples and fixtures are linted without this warning by the tests of
// their findings.
func TestSchemaCostOfRealSchemas(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type": "object", "required": ["p0"], "properties": {`)
	for i := range 300 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `": {"type": "string", "description": "a property of a large but ordinary tool", "maxLength": 80}`)
	}
	b.WriteString("}}")
	findings, err := lint.Run(All(), []*lint.Input{{File: "large.json", Src: costlySnapshot(b.String(), `{}`)}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings.Findings {
		if strings.Contains(f.Message, "too large to check offline") {
			t.Errorf("a 300-property schema: %+v", f)
		}
	}
}
