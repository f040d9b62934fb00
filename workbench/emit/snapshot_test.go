package emit

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// TestIndentedLen: indentedLen counts what json.Indent writes, at an
// item's indentation and at none (IndentedLen), for every
// item of the generated Language's catalog and for the shapes it
// formats apart (empty objects and arrays, brackets, colons, commas and
// escaped quotes inside strings), so the snapshot's buffer is allocated
// once at its size.
func TestIndentedLen(t *testing.T) {
	cases := []string{`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[1,2,{}]}`, `[[[]],[{}]]`, `"{[,:]}"`, `{"a\"{":"b\\","c":"\"]"}`, `1`, `null`}
	res := compile.Source("bench.pdl", pdltest.Generated(200, 2, true), compile.Options{})
	if !res.OK() {
		t.Fatalf("the generated Language does not compile: %v", res.Findings[0])
	}
	for _, e := range res.Server.Catalog {
		b, err := json.Marshal(e.CatalogEntry)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(c), itemIndent, indentUnit); err != nil {
			t.Fatal(err)
		}
		if got := indentedLen([]byte(c), itemIndent); got != want.Len() {
			t.Errorf("indentedLen(%s) = %d, json.Indent writes %d", c, got, want.Len())
		}
		want.Reset()
		if err := json.Indent(&want, []byte(c), "", indentUnit); err != nil {
			t.Fatal(err)
		}
		if got := IndentedLen([]byte(c)); got != want.Len() {
			t.Errorf("IndentedLen(%s) = %d, json.Indent writes %d", c, got, want.Len())
		}
	}
}
