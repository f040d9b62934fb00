//go:build unix

package cmd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnotherUsersGraphvizCache: pilotage draws an SVG for a user other
// than the one whose go-graphviz compilation cache is in $TMPDIR (a
// shared machine's /tmp). go-graphviz panicked when it started Graphviz
// (before main, when it did so in its init); internal/base/gvcache
// gives the process a temporary directory of its user's own first.
// Needs root, to run pilotage as nobody.
func TestAnotherUsersGraphvizCache(t *testing.T) {
	bin := pilotageBinary(t)
	runuser, err := exec.LookPath("runuser")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("runs pilotage as nobody: needs root and runuser")
	}
	// t.TempDir is dir/NNN, both private to root: open them to nobody.
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "pilotage")
	src, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, src, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	// root's cache, as go-graphviz leaves it: a directory for the wazero
	// version, neither writable by others.
	if err := os.MkdirAll(filepath.Join(tmp, "go-graphviz", "wazero-v1.10.1-amd64-linux"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "homeflow"), os.DirFS("../langs/homeflow")); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(runuser, "-u", "nobody", "--", "env", "TMPDIR="+tmp, exe,
		"plan", "--format", "svg", "--principal", "owner", "--lang", "homeflow/homeflow.pdl", "homeflow/programs/evening.json")
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "<?xml") {
		t.Fatalf("pilotage plan --format svg as nobody beside root's go-graphviz cache: %v\n%.600s", err, out)
	}
}
