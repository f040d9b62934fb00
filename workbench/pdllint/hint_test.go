package pdllint

import (
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// lintSource lints src, the PDL file lang.pdl, with every rule.
func lintSource(t *testing.T, src []byte) []report.Finding {
	t.Helper()
	rep, err := Run(rules.All(), []*lint.Input{{File: "lang.pdl", Src: src}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Findings
}

// TestDurationHintsHold follows each "did you mean" a duration written
// another way gets, and lints again with every rule: a hint that fails
// in turn (retention PT1.5H, which needs quotes) sends the writer round
// twice.
func TestDurationHintsHold(t *testing.T) {
	lang := func(retention, time string) []byte {
		return []byte(`language "a/v1" {
  retention ` + retention + `
  limits {
    time ` + time + `
  }
  capabilities {
    guides
    validate
    execute
  }
  guide core "G" level=core {
    body "# G"
  }
}
`)
	}
	for _, c := range []struct{ retention, time, hint string }{
		{"7days", "5s", "P7D"},
		{"90min", "5s", "PT90M"},
		{"1.5h", "5s", "PT1H30M"},
		{"1h30m", "5s", "PT1H30M"},
		{"1.5days", "5s", "P1DT12H"},
		{"1.5w", "5s", "P1W3DT12H"},
		{"0.5s", "5s", `"PT0.5S"`},
		{"0days", "5s", "none"},
		{"99999999999999999999days", "5s", ""},
		{"1h1h", "5s", ""},
		{"1.5y", "5s", ""},
		{"session", "1m30s", ""},
	} {
		findings := lintSource(t, lang(c.retention, c.time))
		var hint string
		for _, f := range findings {
			if strings.Contains(f.Message, "needs quotes") || strings.Contains(f.Message, "holds operators") {
				t.Errorf("retention %s, time %s: read as an expression: %s", c.retention, c.time, f.Message)
			}
			if h, ok := strings.CutPrefix(f.Hint, "did you mean retention "); ok {
				hint = strings.TrimSuffix(h, "?")
			}
		}
		if strings.HasPrefix(c.retention, "9999") && (len(findings) != 1 || !strings.Contains(findings[0].Hint, "longer than")) {
			t.Errorf("retention %s: %v, want it said too long", c.retention, findings)
		}
		if hint != c.hint {
			t.Errorf("retention %s: hint %q, want %q (%v)", c.retention, hint, c.hint, findings)
		}
		if c.hint == "" {
			if c.time != "5s" && len(findings) > 0 {
				t.Errorf("time %s: %v", c.time, findings)
			}
			continue
		}
		if again := lintSource(t, lang(hint, c.time)); len(again) > 0 {
			t.Errorf("retention %s, followed as %s: %v", c.retention, hint, again)
		}
	}
	for _, bad := range []string{"1e3ms", "0x10"} {
		findings := lintSource(t, lang("session", bad))
		if len(findings) != 1 || !strings.Contains(findings[0].Message, "time must be a positive duration") {
			t.Errorf("time %s: %v", bad, findings)
		}
	}
}
