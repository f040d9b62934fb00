//go:build unix

package cmd_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// TestEndlessInputs runs every verb that reads a file, standard input or
// device whole on one that never ends (/dev/zero, an endless pipe): each
// must stop at the bound of what it reads (docs/json.md, "Sizes") and
// exit 2 naming the input and its limit, in seconds. Before, each grew
// to gigabytes until it was killed (replay --trace-only -f html stayed
// small but never ended). The verbs run two at a time, as each waits
// on its own reads; the largest bound, 256 MiB, is read for lint alone
// (0.3 s of CPU each, most of this test).
func TestEndlessInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads endless inputs to each verb's bound, up to 256 MiB; run without -short")
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	bin, err := exec.LookPath("pilotage") // the test binary, as TestMain sets it up
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(t *testing.T, stdin bool, args ...string) (string, int, time.Duration) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, bin, args...)
		c.Dir = dir
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if stdin {
			c.Stdin = memtest.Endless{}
		}
		start := time.Now()
		err := c.Run()
		if c.ProcessState == nil {
			t.Fatalf("%v: %v", args, err)
		}
		return stderr.String(), c.ProcessState.ExitCode(), time.Since(start)
	}
	if out, code, _ := run(t, false, "init", "todo"); code != 0 {
		t.Fatalf("init todo: exit %d\n%s", code, out)
	}
	plan := filepath.Join(dir, "plan.json")
	c := exec.Command(bin, "plan", "-f", "json", "--principal", "owner", "--lang", "todo/todo.pdl", "todo/programs/shopping.json")
	c.Dir = dir
	if b, err := c.Output(); err != nil {
		t.Fatalf("plan: %v", err)
	} else if err := os.WriteFile(plan, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "T.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	ledger, err := filepath.Abs("../langs/ledger/ledger.pdl")
	if err != nil {
		t.Fatal(err)
	}
	const (
		program  = "is larger than 1 MiB (the Language's limits program); give a smaller program, or raise limits program"
		input    = "is larger than 16 MiB (the Language's limits memory); give a smaller input"
		pdl      = "is larger than 32 MiB (the most a PDL file or a file it names may hold)"
		artifact = "is larger than 256 MiB (the most pilotage reads of one JSON file)"
	)
	deep := []string{"replay", "--plan", "plan.json", "--deep", "--lang", "todo/todo.pdl"}
	// A FIFO that ends is read as a file is: inputs are bounded, not
	// refused for not being regular files.
	fifo := filepath.Join(dir, "prog.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	shopping, err := os.ReadFile(filepath.Join(dir, "todo/programs/shopping.json"))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = f.Write(shopping)
			f.Close()
		}
	}()
	if out, code, _ := run(t, false, "validate", "--principal", "owner", "--lang", "todo/todo.pdl", fifo); code != 0 {
		t.Errorf("validate of a FIFO that ends: exit %d\n%s", code, out)
	}
	for _, tc := range []struct {
		args  []string
		stdin bool
		want  string
	}{
		{[]string{"validate", "--lang", "todo/todo.pdl", "/dev/zero"}, false, "/dev/zero " + program},
		{[]string{"validate", "--lang", "/dev/zero", "todo/programs/shopping.json"}, false, "/dev/zero " + pdl},
		{[]string{"run", "--principal", "owner", "--lang", "todo/todo.pdl", "--input", "/dev/zero", "todo/programs/shopping.json"}, false, "/dev/zero " + input},
		{[]string{"validate", "--principal", "owner", "--lang", "todo/todo.pdl", "--context", "/dev/zero", "todo/programs/shopping.json"}, false,
			"/dev/zero is larger than 1 MiB (the Language's limits program); give a smaller context"},
		{[]string{"lint", "/dev/zero"}, false, "/dev/zero " + artifact},
		{[]string{"lint", "--baseline", "/dev/zero", "todo/todo.pdl"}, false, "baseline /dev/zero " + artifact},
		{[]string{"build", "-o", "zo", "/dev/zero"}, false, "/dev/zero " + pdl},
		{[]string{"replay", "--plan", "/dev/zero", "T.json"}, false, "/dev/zero " + artifact},
		{append(deep, "--program", "/dev/zero", "T.json"), false, "/dev/zero " + program},
		{append(deep, "--program", "todo/programs/shopping.json", "--input", "/dev/zero", "T.json"), false, "/dev/zero " + input},
		{[]string{"replay", "--trace-only", "-f", "html", "/dev/zero"}, false, `/dev/zero:1:1: malformed JSON: unexpected '\x00'`},
		{[]string{"fmt", "--lang", ledger, "/dev/zero"}, false, "/dev/zero " + program},
		{[]string{"test", "/dev/zero"}, false, "/dev/zero is larger than 1 MiB (the most a case file may hold); split it into several files"},
		{[]string{"serve", "/dev/zero"}, false, "/dev/zero " + pdl},
		{[]string{"conform", "--program", "/dev/zero", "--", "true"}, false, "/dev/zero " + artifact},
		{[]string{"lint", "-"}, true, "standard input " + artifact},
		{[]string{"validate", "--principal", "owner", "--lang", "todo/todo.pdl", "-"}, true, "standard input " + program},
		{[]string{"fmt", "-"}, true, "standard input " + pdl},
	} {
		name := strings.Join(tc.args, " ")
		if tc.stdin {
			name = "cat /dev/zero | pilotage " + name
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, code, took := run(t, tc.stdin, tc.args...)
			if code != 2 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d after %v, want 2 and %q:\n%s", code, took, tc.want, out)
			}
			// The largest bound, 256 MiB, reads in about 0.3 s.
			if took > 10*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}
