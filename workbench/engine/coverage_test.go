package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// coverageDoc is the engine's coverage table, relative to this package.
const coverageDoc = "../../docs/coverage/engine.md"

// untestable marks a row that cites no test; it must say why.
const untestable = "cannot be tested here:"

// funcDecl matches a function declaration and captures its name.
var funcDecl = regexp.MustCompile(`(?m)^func (\w+)\(`)

// coverageProblems checks every row of a coverage table: each cited
// `package: TestName, …` group names a test function that exists in that
// package's _test.go files (and a golden case, for TestX/case, that exists
// under its testdata), and a row without tests says why it cannot be
// tested here. root is the repository root.
func coverageProblems(root, table string) []string {
	var out []string
	// funcs holds, per package, the names of the functions its _test.go
	// files declare, read once: the table cites hundreds of tests.
	funcs := map[string]map[string]bool{}
	declares := func(pkg, fn string) bool {
		if funcs[pkg] == nil {
			funcs[pkg] = map[string]bool{}
			files, _ := filepath.Glob(filepath.Join(root, pkg, "*_test.go"))
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					continue
				}
				for _, m := range funcDecl.FindAllSubmatch(data, -1) {
					funcs[pkg][string(m[1])] = true
				}
			}
		}
		return funcs[pkg][fn]
	}
	rows := 0
	for i, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(line, "|") || len(cells) != 3 || strings.TrimSpace(cells[0]) == "§" || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		rows++
		at := fmt.Sprintf("line %d", i+1)
		tests := strings.TrimSpace(cells[2])
		if strings.Contains(tests, "NOT TESTED") || strings.Contains(tests, "NOT IMPLEMENTED") || tests == "" {
			if !strings.Contains(tests, untestable) {
				out = append(out, fmt.Sprintf("%s: %q cites no test and does not say why it %s", at, tests, untestable[:len(untestable)-1]))
			}
			continue
		}
		for _, group := range strings.Split(tests, ";") {
			pkg, names, ok := strings.Cut(strings.TrimSpace(group), ": ")
			if !ok {
				out = append(out, fmt.Sprintf("%s: %q is not \"package: TestName, …\"", at, group))
				continue
			}
			for _, name := range strings.Split(names, ",") {
				fn, sub, _ := strings.Cut(strings.TrimSpace(name), "/")
				if !declares(pkg, fn) {
					out = append(out, fmt.Sprintf("%s: %s has no func %s in its _test.go files", at, pkg, fn))
				}
				if sub != "" {
					if m, _ := filepath.Glob(filepath.Join(root, pkg, "testdata", "*", sub+".txtar")); len(m) == 0 {
						out = append(out, fmt.Sprintf("%s: %s has no golden case testdata/*/%s.txtar", at, pkg, sub))
					}
				}
			}
		}
	}
	if rows == 0 {
		out = append(out, "the table has no rows")
	}
	return out
}

// TestCoverageTable keeps docs/coverage/engine.md honest: every test it
// cites exists, and no row is left untested without a reason.
func TestCoverageTable(t *testing.T) {
	table, err := os.ReadFile(coverageDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range coverageProblems("../..", string(table)) {
		t.Error(p)
	}
}

// TestCoverageTableCheckCanFail: the check reports a cited test that does
// not exist, a missing golden case, a malformed group and an unexplained
// NOT TESTED row, and accepts an explained one.
func TestCoverageTableCheckCanFail(t *testing.T) {
	table := `| § | requirement | tests |
|---|---|---|
| §1 | a | workbench/engine: TestNoSuchTest |
| §2 | b | workbench/engine: TestExecuteGolden/no_such_case |
| §3 | c | TestLearn |
| §4 | d | NOT TESTED |
| §5 | e | NOT TESTED (cannot be tested here: needs a second machine) |
| §6 | f | workbench/engine: TestLearn, TestExecuteGolden/level_none |
`
	got := coverageProblems("../..", table)
	want := []string{"line 3: workbench/engine has no func TestNoSuchTest", "line 4: workbench/engine has no golden case", "line 5:", "line 6:"}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want it to start %q", i, got[i], want[i])
		}
	}
}
