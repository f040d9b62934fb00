package golden

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// npmInstalls holds one *npmInstalled per install directory.
var npmInstalls sync.Map

type npmInstalled struct {
	once       sync.Once
	prefix     string
	skip, fail string
}

// NPMInstall installs pkgs from the npm registry into dir, a directory of
// the user's cache directory, and returns that directory (the --prefix:
// the packages are under its node_modules, their commands under
// node_modules/.bin). It installs once per test binary, and a later run
// reuses the directory when it holds want (a path relative to it), so
// only the first run on a machine needs the registry. Without node or npm,
// or when the install fails (no network), the test is skipped, saying
// why: a test that needs a package is never passed silently. Under
// go test -short it is skipped at once. A new pin of a version needs a
// new dir.
func NPMInstall(t testing.TB, dir, want string, pkgs ...string) string {
	t.Helper()
	// What needs npm packages (the MCP Inspector, third-party servers)
	// runs them as child processes: end to end, for the full suite.
	if testing.Short() {
		t.Skip("runs npm packages as child processes; run without -short")
	}
	v, _ := npmInstalls.LoadOrStore(dir, &npmInstalled{})
	in := v.(*npmInstalled)
	in.once.Do(func() { in.prefix, in.skip, in.fail = npmInstall(dir, want, pkgs) })
	if in.fail != "" {
		t.Fatal(in.fail)
	}
	if in.skip != "" {
		t.Skip(in.skip)
	}
	return in.prefix
}

// npmInstall does NPMInstall's work: the prefix, or why the test is
// skipped or fails.
func npmInstall(dir, want string, pkgs []string) (prefix, skip, fail string) {
	why := "test skipped: npm install " + strings.Join(pkgs, " ")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", why + ": " + tool + " is not installed (install Node.js with npm to run it)", ""
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	prefix = filepath.Join(cache, "pilotage-tests", dir)
	if _, err := os.Stat(filepath.Join(prefix, want)); err == nil {
		return prefix, "", ""
	}
	// npm writes into its prefix file by file, so another test process
	// (go test runs packages in parallel, and two runs may share a cache)
	// could see want before the install is whole. Installing into a
	// directory of its own and renaming it into place makes the prefix
	// appear only when complete; the loser of a race uses the winner's.
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return "", why + ": " + err.Error(), ""
	}
	staging, err := os.MkdirTemp(filepath.Dir(prefix), filepath.Base(prefix)+".installing-")
	if err != nil {
		return "", why + ": " + err.Error(), ""
	}
	defer os.RemoveAll(staging)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--prefix", staging, "--no-audit", "--no-fund"}, pkgs...)
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("%s failed (registry unreachable?): %v\n%s", why, err, out), ""
	}
	if _, err := os.Stat(filepath.Join(staging, want)); err != nil {
		// Installed, yet without what the test needs: a wrong pin or
		// path, which a skip would hide.
		return "", "", fmt.Sprintf("npm install %s: %v", strings.Join(pkgs, " "), err)
	}
	if err := os.Rename(staging, prefix); err != nil {
		if _, werr := os.Stat(filepath.Join(prefix, want)); werr == nil {
			return prefix, "", "" // another process installed it first
		}
		// A prefix without want is what an install into it in place
		// (as this function did before) leaves when interrupted.
		if rerr := os.RemoveAll(prefix); rerr == nil {
			err = os.Rename(staging, prefix)
		}
		if _, werr := os.Stat(filepath.Join(prefix, want)); err != nil && werr != nil {
			return "", "", fmt.Sprintf("npm install %s: cannot move it into %s: %v", strings.Join(pkgs, " "), prefix, err)
		}
	}
	return prefix, "", ""
}
