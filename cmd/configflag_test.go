package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestConfigFlagNeverIgnored: every verb either reads the file --config
// names (so a missing one is a usage error naming the flag) or refuses
// the flag; none silently ignores it. A new verb needs a row here.
func TestConfigFlagNeverIgnored(t *testing.T) {
	const missing = "/nonexistent/pilotage.yaml"
	args := map[string][]string{
		"version":  {"version"},
		"serve":    {"serve", "x.pdl"},
		"lsp":      {"lsp"},
		"init":     {"init", "x"},
		"lint":     {"lint", "x.pdl"},
		"replay":   {"replay", "t.json"},
		"build":    {"build", "x.pdl"},
		"fmt":      {"fmt", "x.pdl"},
		"conform":  {"conform", "--http", "http://127.0.0.1:1/mcp"},
		"config":   {"config", "show"},
		"test":     {"test", "x"},
		"validate": {"validate", "--lang", "x.pdl", "p.json"},
		"plan":     {"plan", "--lang", "x.pdl", "p.json"},
		"run":      {"run", "--lang", "x.pdl", "p.json"},
	}
	for _, c := range newRoot().Commands() {
		name := c.Name()
		if name == "help" || name == "completion" {
			continue // cobra's own
		}
		a, ok := args[name]
		if !ok {
			t.Errorf("%s has no row: say whether it reads --config", name)
			continue
		}
		var stdout, stderr bytes.Buffer
		code := run(append(a, "--config", missing), strings.NewReader(""), &stdout, &stderr)
		reads := strings.Contains(stderr.String(), "--config "+missing+": no such file")
		refuses := strings.Contains(stderr.String(), name+" reads no pilotage.yaml, so --config has nothing to set")
		if code != ExitUsage || reads == refuses {
			t.Errorf("%s --config %s: exit %d, stderr %q; want exit %d reading or refusing the flag", name, missing, code, stderr.String(), ExitUsage)
		}
	}
}
