package rules

import (
	"path/filepath"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/ruletest"
)

// TestRuleShape: every rule is found from its ID in one step: its file
// here, its page in docs/rules and its fixture in testdata.
func TestRuleShape(t *testing.T) { ruletest.RuleShape(t, filepath.Join("..", ".."), Registry) }
