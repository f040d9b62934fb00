package pilotage_test

import (
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// §3.3: a Language identifier is `family/version`; data-model.md §5.1: both
// parts non-empty and without '/'.
func TestParseLanguageID(t *testing.T) {
	valid := []struct {
		in, family, version string
	}{
		{"workflow/v1", "workflow", "v1"},
		{"sql/postgres-15", "sql", "postgres-15"},
		{"automation/1", "automation", "1"},
		{"a/b", "a", "b"},
		{"ünïcode/β", "ünïcode", "β"},
		{"with space/1.0", "with space", "1.0"},
	}
	for _, tt := range valid {
		id, err := pilotage.ParseLanguageID(tt.in)
		if err != nil || id.Family != tt.family || id.Version != tt.version {
			t.Errorf("ParseLanguageID(%q) = %+v, %v; want %s / %s", tt.in, id, err, tt.family, tt.version)
			continue
		}
		if id.String() != tt.in {
			t.Errorf("String() = %q, want %q", id.String(), tt.in)
		}
	}
	invalid := []rejectCase{
		{"", "no '/'"},
		{"workflow", "no '/'"},
		{"/v1", "empty family"},
		{"workflow/", "empty version"},
		{"/", "empty family"},
		{"a/b/c", "more than one '/'"},
		{"a//b", "more than one '/'"},
	}
	checkRejects(t, "ParseLanguageID", pilotage.ParseLanguageID, invalid)
}
