package cmd_test

import (
	"bytes"
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// configTestRules stand for the registries cmd passes (lint, replay, conform,
// suppressions): a few IDs with their default severities.
var configTestRules = []report.RuleInfo{
	{ID: "core-guide-size", Severity: report.Warning},
	{ID: "guide-version-bump", Severity: report.Warning},
	{ID: "json-syntax", Severity: report.Error},
	{ID: "language-id", Severity: report.Error},
	{ID: "unused-suppression", Severity: report.Warning},
}

func configTestIDs() []string {
	ids := make([]string, len(configTestRules))
	for i, r := range configTestRules {
		ids[i] = r.ID
	}
	return ids
}

// Each testdata archive holds a pilotage.yaml and what reading it gives:
// its diagnostics, or the effective configuration `config show` prints.
func TestConfigParse(t *testing.T) {
	golden.Archives(t, "testdata/config/*.txtar", func(t *testing.T, a *golden.Archive) {
		src, ok := a.File(config.FileName)
		if !ok {
			t.Fatal("no pilotage.yaml section")
		}
		var got bytes.Buffer
		cfg, err := config.Parse(config.FileName, src, configTestIDs()...)
		if err != nil {
			if _, ok := err.(config.Diagnostics); !ok {
				t.Fatalf("error of type %T, want Diagnostics: %v", err, err)
			}
			got.WriteString(err.Error() + "\n")
		} else if err := cfg.Effective(configTestRules, true).WriteText(&got); err != nil {
			t.Fatal(err)
		}
		a.Check(t, "want", got.Bytes())
	})
}

// Find walks up from a nested directory to the nearest pilotage.yaml,
// and Resolve names it relative to the working directory.
func TestConfigFindAndResolve(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, config.FileName), []byte("defaults: {strict: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := config.Find(deep)
	if err != nil || got != filepath.Join(root, config.FileName) {
		t.Fatalf("Find = %q, %v; want %s", got, err, filepath.Join(root, config.FileName))
	}
	t.Chdir(deep)
	cfg, err := config.Resolve("", ".")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != filepath.Join("..", "..", config.FileName) || !cfg.Defaults.Strict.Value {
		t.Fatalf("Resolve read %q (strict %v)", cfg.File, cfg.Defaults.Strict.Value)
	}
	if cfg.Dir != root {
		t.Fatalf("patterns are relative to %s, want %s", cfg.Dir, root)
	}
	// --config names a file directly, found or not.
	if _, err := config.Resolve(filepath.Join(root, "nope.yaml"), "."); err == nil {
		t.Fatal("a missing --config file passed")
	}
	if _, err := config.Resolve(root, "."); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("--config DIR: %v", err)
	}
}

// The embedded schema is valid JSON Schema and says what the file is.
func TestConfigSchemaCompiles(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(config.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("pilotage.yaml.json", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("pilotage.yaml.json"); err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	if title := doc.(map[string]any)["title"]; title != config.FileName {
		t.Fatalf("the schema's title is %v, want %s", title, config.FileName)
	}
}

// TestConfigDiagnosticsCapped: every problem of the file is reported, up to
// MaxDiagnostics; past that one line counts the rest, so a file that is
// not pilotage.yaml at all cannot flood the terminal.
func TestConfigDiagnosticsCapped(t *testing.T) {
	var src strings.Builder
	for i := range config.MaxDiagnostics + 5 {
		fmt.Fprintf(&src, "bogus%d: 1\n", i)
	}
	_, err := config.Parse("p.yaml", []byte(src.String()))
	msg := fmt.Sprint(err)
	if got := strings.Count(msg, `unknown key "bogus`); got != config.MaxDiagnostics {
		t.Errorf("%d problems printed, want %d:\n%s", got, config.MaxDiagnostics, msg)
	}
	if !strings.HasSuffix(msg, "\np.yaml: 5 more problems not shown") {
		t.Errorf("no count of the problems left out:\n%s", msg)
	}
}
