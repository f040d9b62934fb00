package cmd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReplayInterruptWithProgress: Ctrl-C (SIGINT) ends a replay that is
// drawing its progress line at once, killed by the signal as it is
// without one, and the line is erased first. The trace comes from a pipe that never
// ends, so only the signal can end the run.
func TestReplayInterruptWithProgress(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(plan, []byte(`{"steps": [], "max_risk": "safe", "max_risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var stderr syncBuffer
	cmd := exec.Command(pilotageBinary(t), "replay", "-", "--plan", plan, "--progress", "always")
	cmd.Stdin, cmd.Stderr = r, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := w.WriteString(`{"run_id": "r", "steps": [` + strings.Repeat(`{"id": "x"}, `, 1000)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "steps"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no progress line; standard error %q", stderr.String())
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
			t.Errorf("replay ended with %v, want killed by SIGINT", err)
		}
		// The meter erased its line before the signal ended the process:
		// standard error ends with blanks and a carriage return.
		if out := stderr.String(); !strings.HasSuffix(out, " \r") {
			t.Errorf("the progress line was left on the terminal: standard error ends %q", out[max(0, len(out)-80):])
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("replay still runs 20 s after SIGINT")
	}
}
