package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// TestConfigDocExamples checks every yaml block of docs/config.md as a
// verb checks pilotage.yaml, rule IDs included, so the page never shows
// a file the tool refuses (it showed a rule renamed since).
func TestConfigDocExamples(t *testing.T) {
	for i, b := range golden.Blocks(t, filepath.Join("..", "docs", "config.md"), "yaml", 7) {
		if _, err := config.Parse("pilotage.yaml", []byte(b), ruleIDs()...); err != nil {
			t.Errorf("docs/config.md, yaml block %d:\n%s\n%v", i+1, b, err)
		}
	}
}

// TestTestDocCaseFile runs the case file docs/test.md opens with in the
// corpus `pilotage init todo` writes, where its comment puts it: a reader
// who copies it gets a passing case.
func TestTestDocCaseFile(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run([]string{"init", filepath.Join(dir, "todo")}, strings.NewReader(""), &out, &out); code != ExitOK {
		t.Fatalf("init: exit %d\n%s", code, out.String())
	}
	file := filepath.Join(dir, "todo", "tests", "doc.yaml")
	block := golden.Blocks(t, filepath.Join("..", "docs", "test.md"), "yaml", 5)[0]
	if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"test", file}, strings.NewReader(""), &out, &out); code != ExitOK {
		t.Errorf("docs/test.md's first case file fails in the init corpus: exit %d\n%s", code, out.String())
	}
}

// TestTestDocCoverage runs the coverage report docs/test.md shows, that
// of langs/homeflow's corpus, and checks the page shows what it prints.
func TestTestDocCoverage(t *testing.T) {
	t.Chdir("..")
	var out bytes.Buffer
	if code := run([]string{"test", "--coverage", "langs/homeflow"}, strings.NewReader(""), &out, &out); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	_, report, ok := strings.Cut(out.String(), "coverage of ")
	if !ok {
		t.Fatalf("no coverage report in\n%s", out.String())
	}
	doc, err := os.ReadFile(filepath.Join("docs", "test.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```\ncoverage of "+report+"```\n") {
		t.Errorf("docs/test.md does not show the coverage of langs/homeflow's corpus, which is:\ncoverage of %s", report)
	}
}

// TestConfigDocShow runs `pilotage config show` over the complete example
// of docs/config.md and checks the lines the page shows before its first
// "…", and the core-guide-size line, are what it prints.
func TestConfigDocShow(t *testing.T) {
	page := filepath.Join("..", "docs", "config.md")
	example := golden.Blocks(t, page, "yaml", 7)[0]
	doc, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, shown, _ := strings.Cut(string(doc), "$ pilotage config show\n")
	shown, _, _ = strings.Cut(shown, "```")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pilotage.yaml"), []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out bytes.Buffer
	if code := run([]string{"config", "show"}, strings.NewReader(""), &out, &out); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	for _, part := range strings.Split(shown, "  …\n") {
		if !strings.Contains(out.String(), part) {
			t.Errorf("docs/config.md shows, for its complete example,\n%s\nwhich config show does not print; it prints\n%s", part, out.String())
		}
	}
}
