package compile

import (
	"strings"
	"testing"
)

// TestDurationHintsHold follows each "did you mean" a duration written
// another way gets, and compiles again: a hint that fails in turn
// (retention PT1.5H, which needs quotes) sends the writer round twice.
func TestDurationHintsHold(t *testing.T) {
	lang := func(retention, time string) []byte {
		return []byte(`language "a/v1" {
  retention ` + retention + `
  limits {
    time ` + time + `
  }
  capabilities {
    guides
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
		res := Source("lang.pdl", lang(c.retention, c.time), Options{})
		var hint string
		for _, f := range res.Findings {
			if strings.Contains(f.Message, "needs quotes") || strings.Contains(f.Message, "holds operators") {
				t.Errorf("retention %s, time %s: read as an expression: %s", c.retention, c.time, f.Message)
			}
			if h, ok := strings.CutPrefix(f.Hint, "did you mean retention "); ok {
				hint = strings.TrimSuffix(h, "?")
			}
		}
		if strings.HasPrefix(c.retention, "9999") && (len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Hint, "longer than")) {
			t.Errorf("retention %s: %v, want it said too long", c.retention, res.Findings)
		}
		if hint != c.hint {
			t.Errorf("retention %s: hint %q, want %q (%v)", c.retention, hint, c.hint, res.Findings)
		}
		if c.hint == "" {
			if c.time != "5s" && len(res.Findings) > 0 {
				t.Errorf("time %s: %v", c.time, res.Findings)
			}
			continue
		}
		if again := Source("lang.pdl", lang(hint, c.time), Options{}); len(again.Findings) > 0 {
			t.Errorf("retention %s, followed as %s: %v", c.retention, hint, again.Findings)
		}
	}
	for _, bad := range []string{"1e3ms", "0x10"} {
		res := Source("lang.pdl", lang("session", bad), Options{})
		if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "time must be a positive duration") {
			t.Errorf("time %s: %v", bad, res.Findings)
		}
	}
}
