package program_test

import (
	"errors"
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

// A program builds at most MaxDiagnostics diagnostics (§10.1): one more
// is a LimitError naming the first, for syntax (Parse stops reading
// steps) and for names and expressions (Check) alike.
func TestMaxDiagnostics(t *testing.T) {
	steps := func(n int, step string) []byte {
		return []byte(`{"steps": [` + strings.TrimSuffix(strings.Repeat(step+",", n), ",") + `]}`)
	}
	_, diags, err := program.Parse(steps(program.MaxDiagnostics, `{}`), &language.DefaultGrammar, 8)
	if err != nil || len(diags) != program.MaxDiagnostics {
		t.Fatalf("%d empty steps: %d diagnostics, %v", program.MaxDiagnostics, len(diags), err)
	}
	want := `the program has more than 1000 diagnostics, the most one validation builds; the first, at "/steps/0": the step has no construct member; fix it where the program repeats it, then validate again`
	var le *program.LimitError
	if _, _, err := program.Parse(steps(program.MaxDiagnostics+1, `{}`), &language.DefaultGrammar, 8); !errors.As(err, &le) || le.Msg != want {
		t.Errorf("one more: %v, want %s", err, want)
	}
	prog, diags, err := program.Parse(steps(program.MaxDiagnostics+1, `{"id": "a", "call": "nothing"}`), &language.DefaultGrammar, 8)
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v %+v", err, diags)
	}
	if _, err := program.Check(prog, lampEnv(&language.DefaultGrammar)); !errors.As(err, &le) || !strings.HasPrefix(le.Msg, "the program has more than 1000 diagnostics") {
		t.Errorf("Check of %d unknown calls: %v", program.MaxDiagnostics+1, err)
	}
}

// TestParseAllocationsPerStep holds reading a program of many steps to
// five allocations a step (the step, its pointer, its target's pointer,
// its members and its place in the tree): a map of its members and a set
// of the names allowed for each step would make six a step and 790 bytes,
// not 550, and serve holds the model of a 792 KB program of 36,000 steps
// while it checks it (docs/performance.md, "Hostile inputs").
func TestParseAllocationsPerStep(t *testing.T) {
	const n = 10000
	src := []byte(`{"steps": [` + strings.Repeat(`{"id": "a", "call": "x"}, `, n-1) + `{"id": "a", "call": "x"}], "output": "1"}`)
	g := language.DefaultGrammar
	allocs := testing.AllocsPerRun(3, func() {
		if _, _, err := program.Parse(src, &g, 100); err != nil {
			t.Fatal(err)
		}
	})
	if perStep := allocs / n; perStep > 5.2 {
		t.Errorf("Parse of %d steps: %.0f allocations, %.2f a step; want at most 5.2", n, allocs, perStep)
	}
}

// Text that starts with a word or a comment is a program written in
// some Language's syntax of its own: the syntax diagnostic's hint says
// this Language reads JSON objects, not to fix the JSON's syntax.
func TestTextIsNotJSON(t *testing.T) {
	for src, text := range map[string]bool{
		"hall = sensors.read(room: \"hall\")": true,
		"# a comment\n{}":                     true,
		"\ufeff  report x":                    true,
		"truex":                               true,
		"nul":                                 true,
		"true x":                              false,
		"null,":                               false,
		"{\"steps\": [":                       false,
		"[1, 2":                               false,
		"'steps'":                             false,
		"":                                    false,
	} {
		_, diags, err := program.Parse([]byte(src), &language.DefaultGrammar, 8)
		if err != nil || len(diags) != 1 {
			t.Fatalf("%q: %v, %+v", src, err, diags)
		}
		if got := strings.Contains(diags[0].Hint, "no syntax of its own"); got != text {
			t.Errorf("%q: hint %q", src, diags[0].Hint)
		}
	}
}
