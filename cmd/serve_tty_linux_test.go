package cmd

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestServeAtTerminal: serve started by hand at a terminal reads
// JSON-RPC no person types, so it says who talks to it, and Ctrl-D ends
// it as it ends any input typed there. Standard input is a real
// pseudo-terminal, as a shell gives.
func TestServeAtTerminal(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	defer slave.Close()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "../langs/homeflow/homeflow.pdl", "--principal", "owner"}, slave, &stdout, &stderr)
	}()
	// Ctrl-D at the start of a line is the end of input in the
	// terminal's line discipline, which holds it until serve reads.
	if _, err := master.Write([]byte{4}); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve ended with exit %d at Ctrl-D, want 0\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not end at Ctrl-D")
	}
	if want := "pilotage serve: standard input is a terminal; an MCP client starts this command"; !strings.Contains(stderr.String(), want) {
		t.Errorf("serve at a terminal did not say who talks to it:\n%s", stderr.String())
	}
}

// openPTY opens a pseudo-terminal pair through /dev/ptmx.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}
