package program_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/cel-go/cel"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// A step's output is declared, with its schema's types, for the steps
// whose expressions address it, a chunk of a sequence at a time: an
// expression far from the step it addresses, in a later chunk or inside
// a branch, still gets the output's types, and so does the program's
// output.
func TestOutputsDeclaredWhereAddressed(t *testing.T) {
	echo := &pilotage.CatalogEntry{ID: "t.a", Kind: "action",
		InputSchema:  []byte(`{"type": "object", "properties": {"i": {"type": "string"}}, "required": ["i"]}`),
		OutputSchema: []byte(`{"type": "object", "properties": {"o": {"type": "string"}}, "required": ["o"]}`)}
	env := &program.Env{
		Grammar: &language.Grammar{Call: "c", Args: "w", Branch: "if", Arms: []string{"then", "else"}},
		Limits:  expr.Limits{Depth: 8, Size: 1 << 20, Cost: 1000},
		Lookup: func(id string) (program.Target, bool) {
			return program.Target{Entry: echo, Callable: true}, id == echo.ID
		},
		Visible: []string{echo.ID},
		Code:    func(string) string { return pilotage.CodeConstraint },
	}
	var steps []string
	for i := range 150 {
		steps = append(steps, fmt.Sprintf(`{"id": "q%d", "c": "t.a", "w": {"i": "'x'"}}`, i))
	}
	// The last step of the third chunk adds a number to the first
	// step's string, and so does a step in a branch's arm.
	steps[149] = `{"id": "q149", "c": "t.a", "w": {"i": "steps.q0.output.o + 1"}}`
	steps = append(steps, `{"id": "b", "if": "steps.q1.output.o == 'x'", "then": [{"id": "inner", "c": "t.a", "w": {"i": "steps.q2.output.o + 1"}}], "else": []}`)
	prog, diags := parse(t, `{"steps": [`+strings.Join(steps, ",")+`], "output": "steps.q148.output.o"}`, env.Grammar)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	ck, err := program.Check(prog, env)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for _, d := range ck.Diagnostics {
		if !strings.Contains(d.Message, "does not apply to (string, int)") {
			t.Errorf("%s: %s, want only the two type errors", d.Path.Pointer, d.Message)
		}
		at = append(at, d.Path.Pointer)
	}
	if want := []string{"/steps/149/w/i", "/steps/150/then/0/w/i"}; strings.Join(at, " ") != strings.Join(want, " ") {
		t.Errorf("type errors at %v, want %v", at, want)
	}
	if x := prog.Output.X; x == nil || x.Type != cel.StringType {
		t.Errorf("the output %q is not typed string: %v", prog.Output.Src, x)
	}
}

// A Run's check says after which step of its sequence each output is
// addressed no more (Step.ReleaseAfter): after the last step that, or a step
// inside which, addresses it; at once when nothing does; never when the
// program's output does. A check for validate says nothing.
func TestReleaseAfterLastAddress(t *testing.T) {
	echo := &pilotage.CatalogEntry{ID: "t.a", Kind: "action",
		InputSchema:  []byte(`{"type": "object", "properties": {"i": {}}}`),
		OutputSchema: []byte(`{"type": "object", "properties": {"o": {"type": "string"}}, "required": ["o"]}`)}
	env := &program.Env{
		Grammar: &language.Grammar{Call: "c", Args: "w", Branch: "if", Arms: []string{"then", "else"}, Loop: "for", Item: "as", Body: "do"},
		Limits:  expr.Limits{Depth: 8, Size: 1 << 20, Cost: 1000},
		Lookup: func(id string) (program.Target, bool) {
			return program.Target{Entry: echo, Callable: true}, id == echo.ID
		},
		Visible: []string{echo.ID},
		Code:    func(string) string { return pilotage.CodeConstraint },
	}
	src := `{"steps": [
		{"id": "a", "c": "t.a", "w": {"i": "1"}},
		{"id": "b", "c": "t.a", "w": {"i": "steps.a.output.o"}},
		{"id": "c", "c": "t.a", "w": {"i": "steps.a.output.o"}},
		{"id": "l", "for": "[1, 2]", "as": "x", "do": [
			{"id": "in1", "c": "t.a", "w": {"i": "steps.b.output.o"}},
			{"id": "in2", "c": "t.a", "w": {"i": "steps.in1.output.o + steps.b.output.o"}},
			{"id": "in3", "c": "t.a", "w": {"i": "x"}}
		]},
		{"id": "br", "if": "steps.l.output == []", "then": [{"id": "t1", "c": "t.a", "w": {"i": "steps.c.output.o"}}], "else": []},
		{"id": "e", "c": "t.a", "w": {"i": "1"}}
	], "output": "steps.c.output.o"}`
	for _, run := range []bool{true, false} {
		prog, diags := parse(t, src, env.Grammar)
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		env.TypesOnly = !run
		ck, err := program.Check(prog, env)
		if err != nil || len(ck.Diagnostics) > 0 {
			t.Fatal(err, ck.Diagnostics)
		}
		got := map[string]string{}
		program.Walk(prog.Steps, func(s *program.Step) {
			if u := s.ReleaseAfter; u != nil {
				got[u.ID] = strings.TrimSpace(got[u.ID] + " " + s.ID)
			}
		})
		want := map[string]string{"c": "a", "l": "b", "in2": "in1 in2", "in3": "in3", "br": "l br", "t1": "t1", "e": "e"}
		if !run {
			want = map[string]string{}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("run %v: released %v, want %v", run, got, want)
		}
	}
}

// A step is 96 bytes: serve holds the model of a program of 36,000
// steps while it checks it, and a size class more would be 16 bytes a
// step (docs/performance.md, "A large valid program").
func TestStepSize(t *testing.T) {
	if n := unsafe.Sizeof(program.Step{}); n > 96 {
		t.Errorf("a Step is %d bytes, more than 96", n)
	}
}

// A near-miss hint compares the id written with every id addressable
// there: 1,000 misspelt references at the end of 19,000 steps compared
// 19 million pairs (90 s under load). The comparisons one check makes
// are bounded, so such a program costs about what the same program
// with its references right does (an undeclared name's diagnostic costs
// more than a step's check): the first of its diagnostics keep their
// hints, the rest go without.
func TestNearMissHintsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("checks three programs of 20,000 steps; run without -short")
	}
	echo := &pilotage.CatalogEntry{ID: "t.a", Kind: "action",
		InputSchema:  []byte(`{"type": "object", "properties": {"i": {"type": "string"}}, "required": ["i"]}`),
		OutputSchema: []byte(`{"type": "object", "properties": {"o": {"type": "string"}}, "required": ["o"]}`)}
	env := &program.Env{
		Grammar: &language.Grammar{Call: "c", Args: "w"},
		Limits:  expr.Limits{Depth: 8, Size: 1 << 20, Cost: 1000},
		Lookup: func(id string) (program.Target, bool) {
			return program.Target{Entry: echo, Callable: true}, id == echo.ID
		},
		Visible: []string{echo.ID},
		Code:    func(string) string { return pilotage.CodeConstraint },
	}
	build := func(ref string) *program.Program {
		var steps []string
		for i := range 19000 {
			steps = append(steps, fmt.Sprintf(`{"id": "q%d", "c": "t.a", "w": {"i": "'x'"}}`, i))
		}
		for i := range 1000 {
			steps = append(steps, fmt.Sprintf(`{"id": "r%d", "c": "t.a", "w": {"i": "`+ref+`"}}`, i, i))
		}
		prog, diags := parse(t, `{"steps": [`+strings.Join(steps, ",")+`]}`, env.Grammar)
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		return prog
	}
	right, wrong, bare := build("steps.q%d.output.o"), build("steps.qq%d.output.o"), build("qq%d.output.o")
	var ck *program.Checked
	base := memtest.Allocated(func() { ck, _ = program.Check(right, env) })
	if len(ck.Diagnostics) != 0 {
		t.Fatalf("the right program: %v", ck.Diagnostics[:1])
	}
	for name, prog := range map[string]*program.Program{"steps.qqN": wrong, "qqN": bare} {
		var err error
		got := memtest.Allocated(func() { ck, err = program.Check(prog, env) })
		if err != nil || len(ck.Diagnostics) != 1000 || !strings.Contains(ck.Diagnostics[0].Hint, "did you mean steps.q0.output.o?") {
			t.Fatalf("%s: want 1,000 diagnostics, the first hinted: %v %+v", name, err, ck.Diagnostics[:1])
		}
		t.Logf("%s: %.1fx the right program's allocations", name, float64(got)/float64(base))
		if got > 3*base {
			t.Errorf("%s: checking 1,000 misspelt references allocated %d bytes, %.1fx the right program's %d", name, got, float64(got)/float64(base), base)
		}
	}
}

// PlanLast makes Plan's plan, every step in program order with its arm
// or loop, and leaves the program without steps, which it let go of as
// it planned them.
func TestPlanLastIsPlan(t *testing.T) {
	g := &language.Grammar{Call: "c", Args: "w", Branch: "if", Arms: []string{"then", "else"}, Loop: "for", Item: "as", Body: "do"}
	src := `{"steps": [
		{"id": "a", "c": "t.a", "w": {"i": "1"}},
		{"id": "l", "for": "[1, 2]", "as": "x", "do": [{"id": "in1", "c": "t.a", "w": {}}]},
		{"id": "br", "if": "true", "then": [{"id": "t1", "c": "t.b"}], "else": [{"id": "e1", "c": "t.a"}]},
		{"id": "e", "c": "t.a"}
	], "output": "1"}`
	levels := []pilotage.RiskLevel{{Name: "none", Hints: pilotage.NoRisk}}
	prog, diags := parse(t, src, g)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	want, err := program.Plan(prog, g.Arms, levels)
	if err != nil {
		t.Fatal(err)
	}
	got, err := program.PlanLast(prog, g.Arms, levels)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) || len(got.Steps) != 7 {
		t.Errorf("PlanLast made %s, Plan %s", a, b)
	}
	if prog.Steps != nil {
		t.Errorf("the program keeps %d steps after PlanLast", len(prog.Steps))
	}
}
