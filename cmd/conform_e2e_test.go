package cmd_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConformSignalStopsChild: Ctrl-C (SIGINT), or SIGTERM, stops
// `pilotage conform` promptly, child server included, with the status a
// shell gives a command the signal killed (128 + its number). The child
// is the worst case: it ignores SIGTERM and SIGINT, never reads its
// standard input and never answers, so only SIGKILL (conform.StopGrace
// after SIGTERM) ends it; --timeout is far off, so only the signal can
// end the check.
//
// "Promptly" is under promptStop. It is tighter than this repository's
// usual hang bounds because it must tell conform's way of stopping (the
// signal sends SIGTERM at once, SIGKILL conform.StopGrace = 2 s later)
// from the go-sdk's alone, which takes at least 10 s: it closes the
// standard input, waits 5 s, sends SIGTERM and waits 5 s more.
func TestConformSignalStopsChild(t *testing.T) {
	const promptStop = 8 * time.Second
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "child.pid")
			var stderr syncBuffer
			cmd := exec.Command(pilotageBinary(t), "conform", "--save", filepath.Join(dir, "out"), "--timeout", "5m", "--",
				"sh", "-c", `trap "" TERM INT; echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 300`, pidFile)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var pid int
			for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the child server did not start; standard error %q", stderr.String())
				}
				if b, err := os.ReadFile(pidFile); err == nil {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
			}
			// The child must be gone whatever the test's outcome.
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
					t.Errorf("conform ended with %v, want exit status %d; standard error %q", err, 128+int(sig), stderr.String())
				}
			case <-time.After(25 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("conform still runs 25 s after %v; standard error %q", sig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "pilotage: conform stopped: "+sig.String()) {
				t.Errorf("standard error %q does not say conform was stopped", stderr.String())
			}
			// conform waits for its child before it exits, so the child is
			// gone (and reaped) by now.
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the child server %d survived conform (kill -0: %v)", pid, err)
			}
			if d := time.Since(start); d > promptStop {
				t.Errorf("conform and its child took %v to stop after %v; want under %v", d.Round(time.Millisecond), sig, promptStop)
			}
		})
	}
}
