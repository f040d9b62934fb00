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
		cfg, err := config.Parse("pilotage.yaml", []byte(b))
		if err == nil {
			err = cfg.CheckRules(ruleIDs())
		}
		if err != nil {
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
