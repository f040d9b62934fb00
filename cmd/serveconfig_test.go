package cmd

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeReloadRereadsConfig: serve --watch reads the file --config
// names again at each reload, so its conformance warning goes by the
// file's rules as they are then, as pilotage lint would: a rule turned
// off silences it, and a file broken since is warned of and set aside.
func TestServeReloadRereadsConfig(t *testing.T) {
	dir := t.TempDir()
	pdl, cfg := filepath.Join(dir, "floor.pdl"), filepath.Join(dir, "pilotage.yaml")
	const lang = `language "floor/v1" {
  capabilities {
    guides
    trace_fetch
  }
  guide core "Core" level=core {
    body "# Core"
  }
}
`
	// Each file is written whole at once (a rename), as an editor saves:
	// the watcher, polling every 20 ms, read a PDL written half-way
	// and reported errors the test did not expect.
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(name+".new", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(name+".new", name); err != nil {
			t.Fatal(err)
		}
	}
	write(pdl, lang)
	write(cfg, "rules:\n  core-guide-size: warning\n")
	stdin, feed := io.Pipe()
	errr, errw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--watch", "--watch-interval", "20ms", "--config", cfg, pdl}, stdin, io.Discard, errw)
		errw.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(errr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("serve ended early")
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatal("serve said nothing more")
			return ""
		}
	}
	warning := "pilotage serve: warning: floor/v1 does not conform to Part II: 2 lint errors (capability-floor, capability-dependencies); pilotage lint " + pdl + " lists them"
	if l := next(); l != warning {
		t.Fatalf("serve began with %q, want %q", l, warning)
	}
	next() // serving …
	// The PDL is rewritten with another size, so the reload is certain
	// whatever the file system's time granularity.
	write(cfg, "rules:\n  capability-floor: off\n  capability-dependencies: off\n")
	write(pdl, lang+"# quiet now\n")
	if l := next(); l != "pilotage serve: reloaded "+pdl {
		t.Fatalf("after the first reload: %q", l)
	}
	// No warning follows: the next line is the second reload's.
	write(cfg, "rules:\n  bogus-rule: off\n")
	write(pdl, lang+"# the configuration is broken now\n")
	for _, want := range []string{
		"pilotage serve: reloaded " + pdl,
		"pilotage serve: warning: " + cfg + ":2:3: unknown rule \"bogus-rule\"",
	} {
		if l := next(); l != want {
			t.Fatalf("got %q, want %q", l, want)
		}
	}
	for l := next(); l != warning; l = next() {
		if !strings.HasPrefix(l, " ") && !strings.Contains(l, "without its settings") {
			t.Fatalf("before the warning judged without the broken configuration: %q", l)
		}
	}
	feed.Close()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d", code)
	}
}
