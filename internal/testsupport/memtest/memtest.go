// Package memtest runs the tests that bound what code holds per byte of
// its input under collections that stop the world, so what they sample
// does not move with the machine's load.
package memtest

import (
	"os"
	"os/exec"
	"testing"
)

// StoppedWorld reports whether the test runs with collections that stop
// it (GODEBUG=gcstoptheworld=1). When it does not, StoppedWorld runs the
// test again so in a child process, logs its output, fails with it, and
// returns false: the caller returns. A concurrent collection counts what
// is allocated while it marks as live, so the live heap and the goal it
// sets would vary by several times a small input's size.
func StoppedWorld(t *testing.T) bool {
	t.Helper()
	if os.Getenv("GODEBUG") == "gcstoptheworld=1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG=gcstoptheworld=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
	return false
}
