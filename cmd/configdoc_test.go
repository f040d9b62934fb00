package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/config"
)

// TestConfigDocExamples checks every yaml block of docs/config.md as a
// verb checks pilotage.yaml, rule IDs included, so the page never shows
// a file the tool refuses (it showed a rule renamed since).
func TestConfigDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 7 {
		t.Fatalf("found %d yaml blocks in docs/config.md; the extraction is broken", len(blocks))
	}
	for i, b := range blocks {
		cfg, err := config.Parse("pilotage.yaml", []byte(b[1]))
		if err == nil {
			err = cfg.CheckRules(ruleIDs())
		}
		if err != nil {
			t.Errorf("docs/config.md, yaml block %d:\n%s\n%v", i+1, b[1], err)
		}
	}
}
