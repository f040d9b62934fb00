package cmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/testverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/scaffold"
)

func test(p testverb.Params) verbtest.Result {
	if p.Format == "" {
		p.Format = report.Text
	}
	return verbtest.Call(func(s verb.Streams) error { return testverb.Test(context.Background(), p, s) })
}

// TestLangs: pilotage test langs/ passes, as CI runs it, and the
// coverage names every example Language.
func TestLangs(t *testing.T) {
	r := test(testverb.Params{Paths: []string{"../langs"}, Coverage: true})
	if r.Code != verb.ExitOK {
		t.Fatalf("exit %d:\n%s%s", r.Code, r.Out, r.Err)
	}
	for _, id := range []string{"calc/v1", "deploy/v1", "homeflow/v1", "ledger/v1", "notes/v1"} {
		if !strings.Contains(r.Out, "coverage of "+id+" ") {
			t.Errorf("no coverage of %s in:\n%s", id, r.Out)
		}
	}
}

// TestUpdateKeepsComments: --update fixes a failed expectation in place,
// keeping the comments and flow style around it, and the file passes.
func TestUpdateKeepsComments(t *testing.T) {
	dir := t.TempDir()
	if _, err := scaffold.Init(scaffold.Params{Dir: dir, Template: "json"}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "tests", "todo.yaml")
	src, _ := os.ReadFile(name)
	broken := strings.Replace(string(src), "output: [bread, eggs, milk]", "output: [tea] # the list", 1)
	if err := os.WriteFile(name, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := test(testverb.Params{Paths: []string{dir}}); r.Code != verb.ExitFindings {
		t.Fatalf("broken corpus: exit %d", r.Code)
	}
	if r := test(testverb.Params{Paths: []string{dir}, Update: true}); r.Code != verb.ExitOK {
		t.Fatalf("--update: exit %d\n%s", r.Code, r.Out)
	}
	got, _ := os.ReadFile(name)
	for _, want := range []string{"output: [bread, eggs, milk] # the list", "# A viewer sees todo.list only", "risks: {add: write, all: safe}"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("updated file lacks %q:\n%s", want, got)
		}
	}
	if r := test(testverb.Params{Paths: []string{dir}}); r.Code != verb.ExitOK {
		t.Fatalf("after --update: exit %d\n%s", r.Code, r.Out)
	}
}
