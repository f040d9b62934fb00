package cmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/workbench/langtest"
)

// parseCases reads and parses the case files named.
func parseCases(t testing.TB, names ...string) []*testcase.File {
	t.Helper()
	var fs []*testcase.File
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := testcase.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// TestRunnerTemplates (workbench/langtest): the corpus pilotage init
// writes passes against the PDL it writes beside it (issue 16 item 1),
// every case, no finding.
func TestRunnerTemplates(t *testing.T) {
	corpusPasses(t, "../workbench/scaffold/templates/*/tests/*.yaml", 2, "one per template")
}

// corpusPasses runs the case files matching glob, at least least of them
// (want says why), and fails on every finding and unmet expectation.
func corpusPasses(t *testing.T, glob string, least int, want string) {
	t.Helper()
	names, _ := filepath.Glob(glob)
	if len(names) < least {
		t.Fatalf("found %d corpora matching %s, want %s", len(names), glob, want)
	}
	for _, o := range runCases(t, langtest.Params{}, parseCases(t, names...)) {
		for _, f := range append(o.Findings, o.Unmet...) {
			t.Errorf("%s:%d: %s\n%s", f.File, f.Line, f.Message, f.Hint)
		}
	}
}

// TestRunnerFailures (workbench/langtest): each kind of failure is a
// finding at the line and column of what failed, with the diff; golden in
// workbench/langtest/testdata/bad.golden.
func TestRunnerFailures(t *testing.T) {
	var b strings.Builder
	for _, o := range runCases(t, langtest.Params{}, parseCases(t, "../workbench/langtest/testdata/bad/tests/bad.yaml")) {
		fmt.Fprintf(&b, "== %s\n", o.Case.Name)
		if len(o.Findings)+len(o.Unmet) == 0 {
			t.Errorf("case %q passed", o.Case.Name)
		}
		for _, f := range append(o.Findings, o.Unmet...) {
			fmt.Fprintf(&b, "%d:%d %s: %s\n%s", f.Line, f.Column, f.Rule, f.Message, f.Hint)
			if f.Hint != "" && !strings.HasSuffix(f.Hint, "\n") {
				b.WriteString("\n")
			}
		}
	}
	// Run ids are random; the rest of each message is not.
	got := regexp.MustCompile(`run-[0-9a-f]{32}`).ReplaceAllString(b.String(), "run-ID")
	golden.Check(t, "../workbench/langtest/testdata/bad.golden", []byte(got))
}

// TestRunnerSelects (workbench/langtest): --run's expression picks
// cases by name.
func TestRunnerSelects(t *testing.T) {
	out := runCases(t, langtest.Params{Run: regexp.MustCompile("^stub")}, parseCases(t, "../workbench/langtest/testdata/bad/tests/bad.yaml"))
	if len(out) != 2 || out[0].Case.Name != "stub of an unknown entry" || out[1].Case.Name != "stub never called" {
		t.Fatalf("got %d cases", len(out))
	}
}

// TestRunHoldsOneCase: a Runner keeps nothing of a case once it has
// handed its Outcome over, and reads a file Read a case at a time so, so
// a run whose caller keeps only counts holds as much at its last case of
// 3,000 as of 300. Keeping every Outcome, as Run returned them before,
// holds 2.7 KB more a case of this shape, the first of init's, with its
// answers (docs/performance.md, "Hostile inputs").
func TestRunHoldsOneCase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 6,330 cases")
	}
	if !memtest.StoppedWorld(t) {
		return
	}
	dir := t.TempDir()
	// A case file's pdl: is relative to the file.
	abs, err := filepath.Abs(filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	pdl, err := filepath.Rel(dir, abs)
	if err != nil {
		t.Fatal(err)
	}
	liveAtLast := func(n int, keep bool) (live uint64, size int) {
		var b strings.Builder
		b.WriteString("pdl: " + pdl + "\ncases:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - name: case %d\n    principal: owner\n    program: {steps: [{id: add, call: todo.add, with: {item: input.item}}], output: steps.add.output}\n    input: {item: milk%d}\n    expect:\n      valid: true\n      status: success\n      trace:\n        - {id: add, status: success, calls: [todo.add]}\n", i, i)
		}
		src := []byte(b.String())
		base := memtest.Live()
		f, err := testcase.Read(filepath.Join(dir, "case.yaml"), src)
		if err != nil {
			t.Fatal(err)
		}
		r := langtest.NewRunner(langtest.Params{})
		defer r.Close()
		var kept []langtest.Outcome
		ran := 0
		e := r.File(f, func(o langtest.Outcome) {
			for _, x := range append(o.Findings, o.Unmet...) {
				t.Fatalf("%s:%d: %s", x.File, x.Line, x.Message)
			}
			if keep {
				kept = append(kept, o)
			}
			if ran++; ran == n {
				live = memtest.Live() - base
			}
		})
		if e != nil || ran != n {
			t.Fatalf("ran %d cases of %d: %v", ran, n, e)
		}
		runtime.KeepAlive(kept)
		return live, len(src)
	}
	liveAtLast(30, false) // what the first run of a process sets up once
	small, _ := liveAtLast(300, false)
	large, size := liveAtLast(3000, false)
	kept, _ := liveAtLast(3000, true)
	t.Logf("live at the last case: %d KB of 300 cases, %d KB of 3,000 (%d KB of case file), %d KB keeping every Outcome", small>>10, large>>10, size>>10, kept>>10)
	if large > small+uint64(size)/4 {
		t.Errorf("3,000 cases hold %d bytes at the last, 300 hold %d: more than a quarter of the %d-byte file apart", large, small, size)
	}
	if kept < large+3000<<10 {
		t.Errorf("keeping every Outcome holds %d bytes, not keeping them %d: the test no longer tells them apart", kept, large)
	}
}

// runCases runs the files' cases, keeping every Outcome.
func runCases(t testing.TB, p langtest.Params, files []*testcase.File) []langtest.Outcome {
	t.Helper()
	r := langtest.NewRunner(p)
	defer r.Close()
	var out []langtest.Outcome
	for _, f := range files {
		if e := r.File(f, func(o langtest.Outcome) { out = append(out, o) }); e != nil {
			t.Fatal(e)
		}
	}
	return out
}

// TestRunnerRunsWhatCasesExpect (workbench/langtest): a case runs its
// program only when what it states needs a Run (status, output, trace,
// narration, or nothing, which --update fills from the Run) or it sets
// one up (stubs, drift, a program reference, a test run). A case that
// expects only validate's answer is checked, not run: a Run of a large
// program took 0.5–0.85 s of CPU a case for nothing it checked.
func TestRunnerRunsWhatCasesExpect(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	prog := "program: {steps: [{id: all, call: todo.list, with: {}}], output: steps.all.output.items}"
	src := fmt.Sprintf(`pdl: %s
cases:
  - {name: valid, principal: owner, %[2]s, expect: {valid: true}}
  - {name: diagnostics, principal: owner, %[2]s, expect: {diagnostics: []}}
  - {name: plan, principal: owner, %[2]s, expect: {plan: {steps: [all]}}}
  - {name: status, principal: owner, %[2]s, expect: {valid: true, status: success}}
  - {name: output, principal: owner, %[2]s, expect: {output: [bread, eggs]}}
  - {name: trace, principal: owner, %[2]s, expect: {trace: [{id: all, status: success, calls: [todo.list]}]}}
  - {name: narration, principal: owner, %[2]s, expect: {narration: all}}
  - {name: blank status, principal: owner, %[2]s, expect: {valid: true, status: }}
  - {name: nothing, principal: owner, %[2]s}
  - {name: stubs, principal: owner, %[2]s, stubs: {todo.list: {returns: {items: []}}}, expect: {valid: true}}
`, abs, prog)
	f, err := testcase.Parse(filepath.Join(dir, "case.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{"valid": false, "diagnostics": false, "plan": false, "status": true, "output": true,
		"trace": true, "narration": true, "blank status": true, "nothing": true, "stubs": true}
	out := runCases(t, langtest.Params{}, []*testcase.File{f})
	if len(out) != len(ran) {
		t.Fatalf("%d outcomes, want %d", len(out), len(ran))
	}
	for _, o := range out {
		if got := o.Got.Execute != nil; got != ran[o.Case.Name] {
			t.Errorf("case %q: ran %t, want %t", o.Case.Name, got, ran[o.Case.Name])
		}
		if !o.Got.Validate.Valid {
			t.Errorf("case %q: not valid: %v", o.Case.Name, o.Got.Validate.Diagnostics)
		}
	}
}
