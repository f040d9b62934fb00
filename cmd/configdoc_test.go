package cmd

import (
	"path/filepath"
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
