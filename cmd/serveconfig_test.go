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

// TestServeReloadRereadsConfig: serve --watch watches the file --config
// names and reads it again at each reload, so its conformance warning
// goes by the file's rules as they are then, as pilotage lint would: a
// rule turned off silences it, and a file broken since is warned of and
// set aside. An edit of the configuration alone reloads, saying so.
func TestServeReloadRereadsConfig(t *testing.T) {
	dir := t.TempDir()
	pdl, cfg := filepath.Join(dir, "floor.pdl"), filepath.Join(dir, "pilotage.yaml")
	writeWhole(t, cfg, "rules:\n  core-guide-size: warning\n")
	next, stop := watchFloor(t, pdl, "--config", cfg)
	defer stop()
	write := func(name, text string) { writeWhole(t, name, text) }
	warning := floorWarning(pdl)
	// Each file is rewritten with another size, so the reload is
	// certain whatever the file system's time granularity.
	write(cfg, "rules:\n  capability-floor: off\n  capability-dependencies: off\n")
	if l, want := next(), "pilotage serve: reloaded "+pdl+" ("+cfg+" changed)"; l != want {
		t.Fatalf("after the configuration alone changed: %q, want %q", l, want)
	}
	// No warning follows: the next line is the second reload's.
	write(cfg, "rules:\n  bogus-rule: off\n")
	brokenReload := func(first string) {
		t.Helper()
		for _, want := range []string{
			first,
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
	}
	brokenReload("pilotage serve: reloaded " + pdl + " (" + cfg + " changed)")
	// An edit of the PDL reads the configuration, still broken, again.
	write(pdl, floorLang+"# the configuration is still broken\n")
	brokenReload("pilotage serve: reloaded " + pdl)
}

// TestServeWatchesFoundConfig: without --config, serve --watch watches
// pilotage.yaml where it would be found (the working directory and its
// parents), so one created, edited or removed reloads, as an edit of the
// PDL does.
func TestServeWatchesFoundConfig(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	next, stop := watchFloor(t, "floor.pdl")
	defer stop()
	writeWhole(t, "pilotage.yaml", "rules:\n  capability-floor: off\n  capability-dependencies: off\n")
	if l, want := next(), "pilotage serve: reloaded floor.pdl (pilotage.yaml changed)"; l != want {
		t.Fatalf("after pilotage.yaml was created: %q, want %q", l, want)
	}
	if err := os.Remove("pilotage.yaml"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pilotage serve: reloaded floor.pdl (pilotage.yaml changed)", floorWarning("floor.pdl")} {
		if l := next(); l != want {
			t.Fatalf("after pilotage.yaml was removed: %q, want %q", l, want)
		}
	}
}

// floorLang is a Language lint finds two errors in (capability-floor,
// capability-dependencies), which pilotage.yaml can turn off.
const floorLang = `language "floor/v1" {
  capabilities {
    guides
    trace_fetch
  }
  guide core "Core" level=core {
    body "# Core"
  }
}
`

// floorWarning is serve's conformance warning of floorLang at pdl.
func floorWarning(pdl string) string {
	return "pilotage serve: warning: floor/v1 does not conform to Part II: 2 lint errors (capability-floor, capability-dependencies); pilotage lint " + pdl + " lists them"
}

// writeWhole writes the file whole at once (a rename), as an editor
// saves: the watcher, polling every 20 ms, read a PDL written half-way
// and reported errors the test did not expect.
func writeWhole(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name+".new", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(name+".new", name); err != nil {
		t.Fatal(err)
	}
}

// watchFloor writes floorLang to pdl and serves it with --watch and
// args, reading serve's stderr past its start-up lines; next returns
// serve's next line, stop ends serve and checks it exited 0.
func watchFloor(t *testing.T, pdl string, args ...string) (next func() string, stop func()) {
	t.Helper()
	writeWhole(t, pdl, floorLang)
	stdin, feed := io.Pipe()
	errr, errw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(append(append([]string{"serve", "--watch", "--watch-interval", "20ms"}, args...), pdl), stdin, io.Discard, errw)
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
	next = func() string {
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
	for l := next(); !strings.HasPrefix(l, "pilotage serve: serving "); l = next() {
	}
	return next, func() {
		feed.Close()
		if code := <-done; code != 0 {
			t.Fatalf("serve exited %d", code)
		}
	}
}
