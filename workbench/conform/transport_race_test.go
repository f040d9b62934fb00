package conform

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A child that prints a line and exits at once is reported by that line,
// never as "ended" without it, however its exit, conform's write of
// initialize and the read of its output interleave. The race is rare, so
// the case runs many times, bounded in time.
func TestLineBeforeExitIsNeverLost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts up to 300 child processes; run without -short")
	}
	const want = `connecting: the server wrote "hello" on its standard output before answering server/discover`
	deadline := time.Now().Add(20 * time.Second)
	runs := 0
	for ; runs < 300 && time.Now().Before(deadline); runs++ {
		got := connectFailure(t, Command(context.Background(), "sh", []string{"-c", "echo hello; exit 0"}, io.Discard))
		if !strings.HasPrefix(got, want) {
			t.Fatalf("run %d: got %s\nwant %s…", runs+1, got, want)
		}
	}
	t.Logf("%d runs", runs)
}

// A process the child started that keeps the child's output open (a
// daemon it forked) neither hides the line nor holds conform: it gets
// StopGrace, then conform stops reading.
func TestOutputHeldByGrandchild(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a grandchild process; run without -short")
	}
	t.Parallel() // it waits out StopGrace; TestStdioServerFailsBeforeInitialize does too, meanwhile
	start := time.Now()
	got := connectFailure(t, Command(context.Background(), "sh", []string{"-c", "(sleep 5 &); echo hello; exit 0"}, io.Discard))
	if want := `connecting: the server wrote "hello" on its standard output`; !strings.HasPrefix(got, want) {
		t.Errorf("got %s\nwant %s…", got, want)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}
