package rules

import "testing"

// TestRiskLevelsDistinctMessages pins what risk-levels-distinct says of
// each failing fixture: the flags it offers depend on the hints
// (destructive or openWorld; openWorld or no readOnly for a read-only
// level; none for the riskiest triple, which can only be dropped).
func TestRiskLevelsDistinctMessages(t *testing.T) { fixtureMessages(t, riskLevelsDistinct) }
