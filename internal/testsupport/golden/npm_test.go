package golden

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeNPM puts node and an npm on PATH that installs pkg into its
// --prefix slowly, file by file, as the real one does (the file a test
// looks for first, the rest later), and points the user cache directory at
// a fresh one.
func fakeNPM(t *testing.T) (cache string) {
	t.Helper()
	bin := t.TempDir()
	script := `#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done
mkdir -p "$prefix/node_modules/pkg"
echo > "$prefix/node_modules/pkg/ready.js"
sleep 0.3
echo > "$prefix/node_modules/pkg/rest.js"
`
	for name, body := range map[string]string{"npm": script, "node": "#!/bin/sh\n"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cache = t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	return cache
}

// skipShort skips an install test under go test -short, as NPMInstall
// skips every test that would install: they wait on fakeNPM's slow
// install, for a path -short never takes.
func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("NPMInstall is skipped under -short; run without -short")
	}
}

const fakeWant = "node_modules/pkg/ready.js"

// fakeWhole is the file fakeNPM writes last.
const fakeWhole = "node_modules/pkg/rest.js"

// Two test processes installing the same pin at once (go test runs
// packages in parallel) must each get a whole install, and never see the
// other's half-written one.
func TestNPMInstallRace(t *testing.T) {
	skipShort(t)
	cache := fakeNPM(t)
	var wg sync.WaitGroup
	errs := make([]string, 4)
	for i := range errs {
		if i == 1 {
			// The others start while the first is mid-install.
			time.Sleep(100 * time.Millisecond)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, skip, fail := npmInstall("race", fakeWant, []string{"pkg"})
			switch _, err := os.Stat(filepath.Join(p, fakeWhole)); {
			case skip != "" || fail != "":
				errs[i] = "skip " + skip + ", fail " + fail
			case err != nil:
				errs[i] = "the prefix was returned before its install was whole: " + err.Error()
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	left, _ := filepath.Glob(filepath.Join(cache, "pilotage-tests", "race.installing-*"))
	if len(left) > 0 {
		t.Errorf("staging directories left behind: %v", left)
	}
}

// An install interrupted in place by an earlier version left a prefix
// without what the test needs; it is replaced, not failed on.
func TestNPMInstallReplacesAnInterruptedInstall(t *testing.T) {
	skipShort(t)
	cache := fakeNPM(t)
	stale := filepath.Join(cache, "pilotage-tests", "stale", "node_modules", "pkg")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	p, skip, fail := npmInstall("stale", fakeWant, []string{"pkg"})
	if skip != "" || fail != "" {
		t.Fatalf("install: skip %q, fail %q", skip, fail)
	}
	if _, err := os.Stat(filepath.Join(p, fakeWant)); err != nil {
		t.Fatal(err)
	}
}
