package program_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// stepless is calc's grammar (langs/calc): input and no step construct.
var stepless = language.Grammar{Input: true}

// runsOnly has promoted runs and nothing else: no call construct.
var runsOnly = language.Grammar{Run: "run", RunArgs: "with", Input: true}

// emptyListing reports a hint that names a member or list the grammar
// left empty: a quoted empty name, or a list that ends after its colon.
func emptyListing(hint string) bool {
	return strings.Contains(hint, `""`) || strings.HasSuffix(strings.TrimSpace(hint), ":")
}

// lampEnv checks programs of grammar g against a catalog of one
// callable entry, lamp.
func lampEnv(g *language.Grammar) *program.Env {
	lamp := &pilotage.CatalogEntry{ID: "lamp", Kind: "device"}
	return &program.Env{
		Grammar: g,
		Limits:  expr.Limits{Depth: 8, Size: 1000, Cost: 1000},
		Lookup: func(id string) (program.Target, bool) {
			return program.Target{Entry: lamp, Callable: true}, id == lamp.ID
		},
		Visible: []string{lamp.ID},
		Code:    func(string) string { return pilotage.CodeConstraint },
	}
}

func parse(t *testing.T, src string, g *language.Grammar) (*program.Program, []pilotage.Diagnostic) {
	t.Helper()
	// Any number of steps: the steps bound is Parse's (TestStepsLimit),
	// and Check's tests hold programs of 20,000.
	prog, diags, err := program.Parse([]byte(src), g, 8, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return prog, diags
}

// In a grammar with no step construct a step is itself the error: one
// syntax diagnostic (the code for a program not well-formed for its
// grammar, §5.5) on the steps array, whatever the steps hold, instead of
// one per step with the hint "add one of: " and nothing after it.
func TestStepsInAStepless(t *testing.T) {
	for _, src := range []string{
		`{"steps": [{"id": "a", "call": "x"}], "output": "1"}`,
		`{"steps": [{}, 7, {"id": "b", "run": "p"}], "output": "1"}`,
	} {
		_, diags := parse(t, src, &stepless)
		if len(diags) != 1 {
			t.Fatalf("%s: want one diagnostic, got %+v", src, diags)
		}
		d := diags[0]
		if d.Code != pilotage.CodeSyntax || d.Path.Pointer != "/steps" || !strings.Contains(d.Message, "has no steps") ||
			!strings.Contains(d.Hint, `"steps": []`) || emptyListing(d.Hint) {
			t.Errorf("%s: got %+v", src, d)
		}
	}
	// The program calc's guide teaches stays valid.
	prog, diags := parse(t, `{"steps": [], "output": "input.price * (1.0 + input.vat)"}`, &stepless)
	if len(diags) != 0 || len(prog.Steps) != 0 || prog.Output == nil {
		t.Errorf("an empty steps list is the stepless program: %+v, %+v", prog, diags)
	}
}

// A grammar without a call construct gives hints that name the members it
// has: a step example with its run member, and no "call it with" an empty
// name when a run names an entry that is not a promoted program.
func TestHintsOfAGrammarWithoutCall(t *testing.T) {
	_, diags := parse(t, `{"steps": [7, {"id": "a"}]}`, &runsOnly)
	if len(diags) != 2 {
		t.Fatalf("want two diagnostics, got %+v", diags)
	}
	for _, d := range diags {
		if !strings.Contains(d.Hint, `"run"`) || emptyListing(d.Hint) {
			t.Errorf("%s: hint %q should name the run member", d.Message, d.Hint)
		}
	}

	prog, diags := parse(t, `{"steps": [{"id": "a", "run": "lamp"}]}`, &runsOnly)
	if len(diags) != 0 {
		t.Fatalf("%+v", diags)
	}
	ck, err := program.Check(prog, lampEnv(&runsOnly))
	if err != nil {
		t.Fatal(err)
	}
	if len(ck.Diagnostics) != 1 || ck.Diagnostics[0].Path.Pointer != "/steps/0/run" {
		t.Fatalf("want the run of a device refused, got %+v", ck.Diagnostics)
	}
	if h := ck.Diagnostics[0].Hint; h == "" || emptyListing(h) || strings.Contains(h, "call it with") {
		t.Errorf("hint %q names a call construct the grammar does not have", h)
	}
}

// An undeclared name costs the same however many steps the program has:
// its hint sorted every step id to look for a loop of that variable, and
// filtered every declared name for the unqualified ones, so 3,000 steps
// reading a bare word ("x" for 'x') took seconds to validate and 20,000
// text statements most of a minute. Bytes allocated are deterministic,
// time is not (the best of three runs is taken): 4x the steps may allocate
// at most 6x the bytes and take at most 10x the time (quadratic is 16x).
// The larger size stays within program.MaxDiagnostics.
func TestUndeclaredNamesLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times checks of 960 steps")
	}
	calls := language.Grammar{Call: "call", Args: "with", Input: true}
	env := lampEnv(&calls)
	type size struct {
		n     int
		prog  *program.Program
		bytes uint64
		best  time.Duration
	}
	small, large := &size{n: program.MaxDiagnostics / 4}, &size{n: program.MaxDiagnostics}
	for _, sz := range []*size{small, large} {
		steps := make([]string, sz.n)
		for i := range steps {
			steps[i] = fmt.Sprintf(`{"id": "s%d", "call": "lamp", "with": {"room": "x"}}`, i)
		}
		var diags []pilotage.Diagnostic
		sz.prog, diags = parse(t, `{"steps": [`+strings.Join(steps, ", ")+`]}`, &calls)
		if len(diags) != 0 {
			t.Fatal(diags)
		}
	}
	// The two sizes are checked in turn, five times each, and each keeps
	// its fastest: a burst of load on a shared machine then slows both
	// sizes' worst runs, not one size's only run.
	for range 5 {
		for _, sz := range []*size{small, large} {
			var (
				ck   *program.Checked
				err  error
				took time.Duration
			)
			sz.bytes = memtest.Allocated(func() {
				start := time.Now()
				ck, err = program.Check(sz.prog, env)
				took = time.Since(start)
			})
			if err != nil || len(ck.Diagnostics) != sz.n || !strings.Contains(ck.Diagnostics[0].Hint, "'x'") {
				t.Fatalf("want one undeclared x per step, hinted: %v %+v", err, ck.Diagnostics[:1])
			}
			if sz.best == 0 || took < sz.best {
				sz.best = took
			}
		}
	}
	smallB, smallT, largeB, largeT := small.bytes, small.best, large.bytes, large.best
	if largeB > 6*smallB {
		t.Errorf("4x the steps allocate %.1fx the bytes (%d then %d)", float64(largeB)/float64(smallB), smallB, largeB)
	}
	if largeT > 10*smallT {
		t.Errorf("4x the steps take %.1fx the time (%v then %v)", float64(largeT)/float64(smallT), smallT, largeT)
	}
}
