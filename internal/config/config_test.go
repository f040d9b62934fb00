package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// testRules stand for the registries cmd passes (lint, replay, conform,
// suppressions): a few IDs with their default severities.
var testRules = []report.RuleInfo{
	{ID: "core-guide-size", Severity: report.Warning},
	{ID: "guide-version-bump", Severity: report.Warning},
	{ID: "json-syntax", Severity: report.Error},
	{ID: "language-id", Severity: report.Error},
	{ID: "unused-suppression", Severity: report.Warning},
}

func testIDs() []string {
	ids := make([]string, len(testRules))
	for i, r := range testRules {
		ids[i] = r.ID
	}
	return ids
}

// Each testdata archive holds a pilotage.yaml and what reading it gives:
// its diagnostics, or the effective configuration `config show` prints.
func TestParse(t *testing.T) {
	golden.Archives(t, "testdata/*.txtar", func(t *testing.T, a *golden.Archive) {
		src, ok := a.File(FileName)
		if !ok {
			t.Fatal("no pilotage.yaml section")
		}
		var got bytes.Buffer
		cfg, err := Parse(FileName, src, testIDs()...)
		if err != nil {
			if _, ok := err.(Diagnostics); !ok {
				t.Fatalf("error of type %T, want Diagnostics: %v", err, err)
			}
			got.WriteString(err.Error() + "\n")
		} else if err := cfg.Effective(testRules, true).WriteText(&got); err != nil {
			t.Fatal(err)
		}
		a.Check(t, "want", got.Bytes())
	})
}

// Find walks up from a nested directory to the nearest pilotage.yaml,
// and Resolve names it relative to the working directory.
func TestFindAndResolve(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, FileName), []byte("defaults: {strict: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != filepath.Join(root, FileName) {
		t.Fatalf("Find = %q, %v; want %s", got, err, filepath.Join(root, FileName))
	}
	t.Chdir(deep)
	cfg, err := Resolve("", ".")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != filepath.Join("..", "..", FileName) || !cfg.Defaults.Strict.Value {
		t.Fatalf("Resolve read %q (strict %v)", cfg.File, cfg.Defaults.Strict.Value)
	}
	if cfg.Dir != root {
		t.Fatalf("patterns are relative to %s, want %s", cfg.Dir, root)
	}
	// --config names a file directly, found or not.
	if _, err := Resolve(filepath.Join(root, "nope.yaml"), "."); err == nil {
		t.Fatal("a missing --config file passed")
	}
	if _, err := Resolve(root, "."); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("--config DIR: %v", err)
	}
}

// The embedded schema is valid JSON Schema and says what the file is.
func TestSchemaCompiles(t *testing.T) {
	s, doc := schema()
	if s == nil || doc.(map[string]any)["title"] != FileName {
		t.Fatal("the schema did not compile or lost its title")
	}
}

// TestDiagnosticsCapped: every problem of the file is reported, up to
// MaxDiagnostics; past that one line counts the rest, so a file that is
// not pilotage.yaml at all cannot flood the terminal.
func TestDiagnosticsCapped(t *testing.T) {
	var src strings.Builder
	for i := range MaxDiagnostics + 5 {
		fmt.Fprintf(&src, "bogus%d: 1\n", i)
	}
	_, err := Parse("p.yaml", []byte(src.String()))
	msg := fmt.Sprint(err)
	if got := strings.Count(msg, `unknown key "bogus`); got != MaxDiagnostics {
		t.Errorf("%d problems printed, want %d:\n%s", got, MaxDiagnostics, msg)
	}
	if !strings.HasSuffix(msg, "\np.yaml: 5 more problems not shown") {
		t.Errorf("no count of the problems left out:\n%s", msg)
	}
}
