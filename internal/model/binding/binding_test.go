package binding

import (
	"net/url"
	"testing"
)

// The naming rule of binding.md: every character outside [A-Za-z0-9_-]
// becomes '_', one for one, so distinct ids of equal length keep their
// positions and tool names stay readable.
func TestPrefix(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"workflow/v1", "workflow_v1"},
		{"sql/postgres-15", "sql_postgres-15"},
		{"automation/1", "automation_1"},
		{"a.b/c d", "a_b_c_d"},
		{"façade/v1", "fa_ade_v1"},
		{"", ""},
	} {
		if got := Prefix(c.id); got != c.want {
			t.Errorf("Prefix(%q) = %q, want %q", c.id, got, c.want)
		}
	}
	if got := Tool("workflow/v1", Validate); got != "workflow_v1_validate" {
		t.Errorf("Tool = %q", got)
	}
}

func TestGuideURIRoundTrips(t *testing.T) {
	u, err := url.Parse(GuideURI("workflow/v1", "core guide"))
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "pilotage" || u.Host != "guides" || u.EscapedPath() != "/workflow%2Fv1/core%20guide" {
		t.Fatalf("GuideURI parsed as scheme %q host %q path %q", u.Scheme, u.Host, u.EscapedPath())
	}
}

func TestExtensionSettings(t *testing.T) {
	s := ExtensionSettings()
	if s["version"] != "1.1" || s["discover"] != DiscoverTool {
		t.Fatalf("settings = %v", s)
	}
}
