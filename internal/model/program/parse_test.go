package program_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// A member or argument written twice is a syntax diagnostic at the
// second name, and nothing of the program is checked further (issue 13
// item 9); before, the last was kept with a diagnostic of its own.
func TestDuplicateNameIsNotJSON(t *testing.T) {
	src := []byte(`{"steps": [{"id": "a", "call": "x", "with": {"n": "first", "n": "second"}}], "output": "one"}`)
	prog, diags, err := program.Parse(src, &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
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
	_, diags, err := program.Parse(steps(program.MaxDiagnostics, `{}`), &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) != program.MaxDiagnostics {
		t.Fatalf("%d empty steps: %d diagnostics, %v", program.MaxDiagnostics, len(diags), err)
	}
	want := `the program has more than 1000 diagnostics, the most one validation builds; the first, at "/steps/0": the step has no construct member; fix it where the program repeats it, then validate again`
	var le *program.LimitError
	if _, _, err := program.Parse(steps(program.MaxDiagnostics+1, `{}`), &language.DefaultGrammar, 8, language.DefaultLimits.Steps); !errors.As(err, &le) || le.Msg != want {
		t.Errorf("one more: %v, want %s", err, want)
	}
	prog, diags, err := program.Parse(steps(program.MaxDiagnostics+1, `{"id": "a", "call": "nothing"}`), &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) != 0 {
		t.Fatalf("%v %+v", err, diags)
	}
	if _, err := program.Check(prog, lampEnv(&language.DefaultGrammar)); !errors.As(err, &le) || !strings.HasPrefix(le.Msg, "the program has more than 1000 diagnostics") {
		t.Errorf("Check of %d unknown calls: %v", program.MaxDiagnostics+1, err)
	}
}

// A program holds at most maxSteps steps, nested ones counted (the
// Language's limits steps, §10.1): the step past it is a LimitError at
// its pointer, a resource_limit request error as the text form's is.
func TestStepsLimit(t *testing.T) {
	src := []byte(`{"steps": [{"id": "a", "call": "x"}, {"id": "b", "if": "true", "then": [{"id": "c", "call": "x"}], "else": [{"id": "d", "call": "x"}]}]}`)
	if _, diags, err := program.Parse(src, &language.DefaultGrammar, 8, 4); err != nil || len(diags) != 0 {
		t.Fatalf("four steps are within a limit of 4: %v %+v", err, diags)
	}
	want := "the program has more than 3 steps (at /steps/1/else/0), past limits steps, which bounds the steps a program writes, every arm of a branch counted; split the program, or raise the limit (limits { steps N } in the Language's PDL)"
	var le *program.LimitError
	if _, _, err := program.Parse(src, &language.DefaultGrammar, 8, 3); !errors.As(err, &le) || le.Msg != want || le.Pointer != "/steps/1/else/0" {
		t.Errorf("one over: %v, want %s", err, want)
	}
}

// TestWrongIDsPastTheCap: a program whose wrong step ids pass
// MaxDiagnostics is refused by Check for them, so Parse models it only
// up to the step whose id is one too many, in program order (a branch's
// steps before the steps after it), and Check refuses it all the same,
// naming the first; one of MaxDiagnostics wrong ids is modelled whole,
// and a syntax error after them is still the program's diagnostic.
func TestWrongIDsPastTheCap(t *testing.T) {
	as := func(n int) string { return strings.TrimSuffix(strings.Repeat(`{"id": "a", "call": "lamp"},`, n), ",") }
	program1 := func(inBranch, after int, tail string) []byte {
		return []byte(`{"steps": [{"id": "b", "if": "true", "then": [` + as(inBranch) + `], "else": []}, ` + as(after) + tail + `]}`)
	}
	g := &language.DefaultGrammar
	count := func(prog *program.Program) int {
		n := 0
		program.Walk(prog.Steps, func(*program.Step) { n++ })
		return n
	}
	prog, diags, err := program.Parse(program1(600, 2400, ""), g, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) > 0 {
		t.Fatalf("%v %+v", err, diags)
	}
	// b, the first a and the MaxDiagnostics+1 a's after it.
	if n := count(prog); n != program.MaxDiagnostics+3 {
		t.Errorf("%d steps modelled of 3,001, want %d", n, program.MaxDiagnostics+3)
	}
	want := `the program has more than 1000 diagnostics, the most one validation builds; the first, at "/steps/0/then/1/id": step id "a" is already used at /steps/0/then/0; fix it where the program repeats it, then validate again`
	var le *program.LimitError
	if _, err := program.Check(prog, lampEnv(g)); !errors.As(err, &le) || le.Msg != want {
		t.Errorf("Check: %v, want %s", err, want)
	}
	if prog, diags, err = program.Parse(program1(1, program.MaxDiagnostics, ""), g, 8, language.DefaultLimits.Steps); err != nil || len(diags) > 0 {
		t.Fatalf("%v %+v", err, diags)
	}
	if n := count(prog); n != program.MaxDiagnostics+2 {
		t.Errorf("%d wrong ids: %d steps modelled, want all %d", program.MaxDiagnostics, n, program.MaxDiagnostics+2)
	}
	if ck, err := program.Check(prog, lampEnv(g)); err != nil || len(ck.Diagnostics) != program.MaxDiagnostics {
		t.Errorf("Check of %d wrong ids: %v, %+v", program.MaxDiagnostics, err, ck)
	}
	_, diags, err = program.Parse(program1(600, 2400, `, {"id": "c"}`), g, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) != 1 || diags[0].Path.Pointer != "/steps/2401" {
		t.Errorf("a step without construct after them: %v %+v", err, diags)
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
		if _, _, err := program.Parse(src, &g, 100, language.DefaultLimits.Steps); err != nil {
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
		_, diags, err := program.Parse([]byte(src), &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
		if err != nil || len(diags) != 1 {
			t.Fatalf("%q: %v, %+v", src, err, diags)
		}
		if got := strings.Contains(diags[0].Hint, "no syntax of its own"); got != text {
			t.Errorf("%q: hint %q", src, diags[0].Hint)
		}
	}
}

// ParseHeld models a program as Parse does, its strings views of the
// caller's bytes where they are written without escapes; Parse's are
// copies, which outlive the bytes.
func TestParseHeldViewsTheSource(t *testing.T) {
	src := []byte(`{"steps": [{"id": "a", "call": "t.a", "with": {"n": "input.x"}},
		{"id": "b\u0041", "if": "steps.a.output.o == 'x'", "then": [{"id": "c", "call": "t.a", "with": {}}], "else": []}], "output": "1"}`)
	within := func(s string) bool {
		at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(unsafe.SliceData(src)))
		return at >= start && at < start+uintptr(len(src))
	}
	copied, diags, err := program.Parse(src, &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	held, diags, err := program.ParseHeld(src, &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	var a, b []string
	strs := func(prog *program.Program, out *[]string, view bool) {
		program.Walk(prog.Steps, func(s *program.Step) {
			ss := []string{s.ID, s.Target}
			for _, arg := range s.Args {
				ss = append(ss, arg.Name, arg.Expr.Src)
			}
			if s.Cond != nil {
				ss = append(ss, s.Cond.Src)
			}
			for _, x := range ss {
				if x != "" && x != "bA" && within(x) != view {
					t.Errorf("%q: a view of the source %v, want %v", x, within(x), view)
				}
			}
			*out = append(*out, ss...)
		})
	}
	strs(copied, &a, false)
	strs(held, &b, true)
	if strings.Join(a, "|") != strings.Join(b, "|") {
		t.Errorf("held %q, copied %q", b, a)
	}
}

// A message that names another place in the program names it as
// Env.Place says (a text program's line and column), and the pointer
// itself when Place is nil (a JSON program): a repeated id, and the
// first of more than MaxDiagnostics.
func TestMessagesPlace(t *testing.T) {
	steps := func(n int) []byte {
		return []byte(`{"steps": [` + strings.TrimSuffix(strings.Repeat(`{"id": "a", "call": "lamp"},`, n), ",") + `]}`)
	}
	prog, diags, err := program.Parse(steps(2), &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	env := lampEnv(&language.DefaultGrammar)
	ck, err := program.Check(prog, env)
	if err != nil || len(ck.Diagnostics) != 1 || ck.Diagnostics[0].Message != `step id "a" is already used at /steps/0` {
		t.Fatalf("JSON: %v %+v", err, ck)
	}
	env.Place = func(ptr string) string { return "line of " + ptr }
	if ck, err = program.Check(prog, env); err != nil || ck.Diagnostics[0].Message != `step id "a" is already used at line of /steps/0` {
		t.Fatalf("text: %v %+v", err, ck)
	}
	prog, _, _ = program.Parse(steps(program.MaxDiagnostics+2), &language.DefaultGrammar, 8, language.DefaultLimits.Steps)
	var le *program.LimitError
	want := `the first, at line of /steps/1/id: step id "a" is already used at line of /steps/0;`
	if _, err := program.Check(prog, env); !errors.As(err, &le) || !strings.Contains(le.Msg, want) {
		t.Errorf("more than %d: %v, want %s", program.MaxDiagnostics, err, want)
	}
}
