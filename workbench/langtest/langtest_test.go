package langtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

func parse(t testing.TB, names ...string) []*testcase.File {
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

// TestTemplates: the corpus pilotage init writes passes against the PDL
// it writes beside it (issue 16 item 1), every case, no finding.
func TestTemplates(t *testing.T) {
	corpusPasses(t, "../scaffold/templates/*/tests/*.yaml", 2, "one per template")
}

// TestLangs: every example Language's corpus passes (issue 16 item 5;
// CI runs the same through pilotage test langs/).
func TestLangs(t *testing.T) {
	corpusPasses(t, "../../langs/*/tests/*.yaml", 5, "one per example Language")
}

// corpusPasses runs the case files matching glob, at least least of them
// (want says why), and fails on every finding and unmet expectation.
func corpusPasses(t *testing.T, glob string, least int, want string) {
	t.Helper()
	names, _ := filepath.Glob(glob)
	if len(names) < least {
		t.Fatalf("found %d corpora matching %s, want %s", len(names), glob, want)
	}
	for _, o := range Run(Params{Files: parse(t, names...)}) {
		for _, f := range append(o.Findings, o.Unmet...) {
			t.Errorf("%s:%d: %s\n%s", f.File, f.Line, f.Message, f.Hint)
		}
	}
}

// TestFailures: each kind of failure is a finding at the line of what
// failed, with the diff; golden in testdata/bad.golden.
func TestFailures(t *testing.T) {
	var b strings.Builder
	for _, o := range Run(Params{Files: parse(t, "testdata/bad/tests/bad.yaml")}) {
		fmt.Fprintf(&b, "== %s\n", o.Case.Name)
		if len(o.Findings)+len(o.Unmet) == 0 {
			t.Errorf("case %q passed", o.Case.Name)
		}
		for _, f := range append(o.Findings, o.Unmet...) {
			fmt.Fprintf(&b, "%d %s: %s\n%s", f.Line, f.Rule, f.Message, f.Hint)
			if f.Hint != "" && !strings.HasSuffix(f.Hint, "\n") {
				b.WriteString("\n")
			}
		}
	}
	// Run ids are random; the rest of each message is not.
	got := regexp.MustCompile(`run-[0-9a-f]{32}`).ReplaceAllString(b.String(), "run-ID")
	golden.Check(t, "testdata/bad.golden", []byte(got))
}

// TestRunSelects: --run's expression picks cases by name.
func TestRunSelects(t *testing.T) {
	out := Run(Params{Files: parse(t, "testdata/bad/tests/bad.yaml"), Run: regexp.MustCompile("^stub")})
	if len(out) != 2 || out[0].Case.Name != "stub of an unknown entry" || out[1].Case.Name != "stub never called" {
		t.Fatalf("got %d cases", len(out))
	}
}

// TestAnswersKeptOnlyWhenAsked: the engine's answers stay in an Outcome
// for --update and --coverage, and are dropped once checked otherwise;
// the findings are the same either way. A corpus of 1,000 cases of the
// init template's first shape held 27 MB over the baseline with every
// plan and trace kept (docs/performance.md, "Hostile inputs").
func TestAnswersKeptOnlyWhenAsked(t *testing.T) {
	files := parse(t, "testdata/bad/tests/bad.yaml")
	kept := Run(Params{Files: files, KeepAnswers: true})
	dropped := Run(Params{Files: files})
	if len(kept) == 0 || len(kept) != len(dropped) {
		t.Fatalf("%d and %d outcomes", len(kept), len(dropped))
	}
	ran := 0
	for i := range kept {
		if dropped[i].Got != nil {
			t.Errorf("case %q kept its answers unasked", dropped[i].Case.Name)
		}
		if kept[i].Got != nil {
			ran++
		}
		if a, b := len(kept[i].Findings)+len(kept[i].Unmet), len(dropped[i].Findings)+len(dropped[i].Unmet); a != b {
			t.Errorf("case %q: %d findings with its answers kept, %d without", kept[i].Case.Name, a, b)
		}
	}
	if ran == 0 {
		t.Error("no case kept its answers when asked")
	}
}
