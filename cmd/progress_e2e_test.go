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
// drawing its progress line at once, as it does without one: the meter's
// goroutine holds nothing up. The trace comes from a pipe that never
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
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("replay still runs 20 s after SIGINT")
	}
}
