package program_test

import (
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// A member or argument written twice is a syntax diagnostic at the
// second name, and nothing of the program is checked further (issue 13
// item 9); before, the last was kept with a diagnostic of its own.
func TestDuplicateNameIsNotJSON(t *testing.T) {
	src := []byte(`{"steps": [{"id": "a", "call": "x", "with": {"n": "first", "n": "second"}}], "output": "one"}`)
	prog, diags, err := program.Parse(src, &language.DefaultGrammar, 8)
	if err != nil {
		t.Fatal(err)
	}
	// Readers differ in which of two members of one name counts, so the
	// program means nothing certain: a syntax diagnostic at the second
	// name, as every reader of the project reports it (docs/json.md).
	if prog != nil || len(diags) != 1 || diags[0].Code != "syntax" ||
		!strings.Contains(diags[0].Message, `1:60: duplicate member name "n"; a member name appears once in an object`) {
		t.Fatalf("want one syntax diagnostic at the second n, got %+v", diags)
	}
}
