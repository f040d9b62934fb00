package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/termshot"
)

// shotCols and shotRows are the terminal the screenshot is taken in.
const shotCols, shotRows = 120, 30

// TestScreenshot regenerates the Neovim picture of docs/editors.md:
// Neovim, in a tmux pane of a fixed size, runs testdata/shot.lua on
// homeflow.pdl with a misspelled risk; once the diagnostic is on screen
// the pane is captured with its colours and drawn as SVG. Without
// -update the picture must be unchanged. CI installs tmux and neovim
// (.ci/run); elsewhere the test skips without them.
func TestScreenshot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts Neovim in tmux")
	}
	var paths []string
	for _, name := range []string{"nvim", "tmux"} {
		p, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI needs %s (.ci/run installs it)", name)
			}
			t.Skipf("%s is not installed", name)
		}
		paths = append(paths, p)
	}
	nvim, tmux := paths[0], paths[1]
	dir := t.TempDir()
	bin := buildPilotage(t, dir)
	// The pane opens the file from its own directory, so the screen
	// shows no path; the edit is never saved.
	langDir, _ := filepath.Abs(filepath.Dir(homeflow))
	script, _ := filepath.Abs("testdata/shot.lua")
	ready := filepath.Join(dir, "ready")
	socket := filepath.Join(dir, "tmux.sock")
	run := func(args ...string) ([]byte, error) {
		return exec.Command(tmux, append([]string{"-S", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	}
	t.Cleanup(func() { run("kill-server") })
	if out, err := run("new-session", "-d", "-s", "shot", "-x", fmt.Sprint(shotCols), "-y", fmt.Sprint(shotRows), "-c", langDir,
		"-e", "PILOTAGE_BIN="+bin, "-e", "SHOT_READY="+ready, "-e", "XDG_STATE_HOME="+dir, "-e", "XDG_CACHE_HOME="+dir,
		nvim, "--clean", "-n", "homeflow.pdl", "-c", "luafile "+script); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			out, _ := run("capture-pane", "-p", "-t", "shot")
			t.Fatalf("the diagnostic never showed; the screen:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // tmux draws what nvim wrote
	screen, err := run("capture-pane", "-p", "-e", "-t", "shot")
	if err != nil {
		t.Fatalf("capture: %v\n%s", err, screen)
	}
	golden.Check(t, "../../docs/pictures/nvim-diagnostics.svg", termshot.SVG(string(screen), shotCols, shotRows))
}
