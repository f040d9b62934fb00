//go:build unix

package cmd_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// TestStoppedTestLeavesNoTemporaryFile: pilotage test -o writes its
// report as the cases run, into a temporary file beside the output; Ctrl-C
// midway removes it, ends the process by the signal, and leaves the
// earlier report as it was.
func TestStoppedTestLeavesNoTemporaryFile(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	pdl, err := filepath.Abs(filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	// Six files of 4,000 cases (a case file holds at most 1 MiB), some
	// seconds of work.
	report := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(report, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"test", "-o", report}
	for f := range 6 {
		cases := []byte("pdl: " + pdl + "\ncases:\n")
		for i := range 4_000 {
			cases = fmt.Appendf(cases, "  - name: case %d\n    principal: owner\n    program: {steps: [{id: add, call: todo.add, with: {item: input.item}}], output: steps.add.output}\n    input: {item: milk%d}\n    expect: {valid: true, status: success}\n", i, i)
		}
		name := filepath.Join(dir, fmt.Sprintf("many%d.yaml", f))
		if err := os.WriteFile(name, cases, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, name)
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	temporary := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, ".report.txt.*"))
		return m
	}
	for deadline := time.Now().Add(30 * time.Second); len(temporary()) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no temporary report appeared within 30 s")
		}
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Errorf("pilotage test ended with %v, want killed by SIGINT", err)
	}
	if m := temporary(); len(m) > 0 {
		t.Errorf("the stopped run left %v", m)
	}
	if b, _ := os.ReadFile(report); string(b) != "earlier\n" {
		t.Errorf("the stopped run left the report %.80q, want the earlier one", b)
	}
}

// TestStoppedBuildLeavesNoStagedFile: build stages each file it writes
// beside it (.pilotage-build-*) before lint judges the build; Ctrl-C
// while lint runs removes them, and the process ends by the signal.
func TestStoppedBuildLeavesNoStagedFile(t *testing.T) {
	bin, pdl, out := generatedBuild(t)
	staged := func() []string {
		var found []string
		filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".pilotage-build-") {
				found = append(found, p)
			}
			return nil
		})
		return found
	}
	cmd := exec.Command(bin, "build", "-o", out, pdl)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); len(staged()) == 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no staged file appeared within 60 s")
		}
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Skipf("build ended with %v before the signal came: nothing to check", err)
	}
	if m := staged(); len(m) > 0 {
		t.Errorf("the stopped build left %v", m)
	}
}

// TestIgnoredInterruptBuildFinishes: a build started with SIGINT ignored
// (a job a script starts with &) goes on through a SIGINT to the end, as
// its parent asked. The guard caught it anyway, removed the staged
// files, raised it again to end the process (which ignored it) and kept
// its lock: the build then waited on that lock for ever (review 16b).
func TestIgnoredInterruptBuildFinishes(t *testing.T) {
	bin, pdl, out := generatedBuild(t)
	cmd := exec.Command(bin, "build", "-o", out, pdl)
	// The child inherits an ignored signal's disposition.
	signal.Ignore(os.Interrupt)
	err := cmd.Start()
	signal.Reset(os.Interrupt)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(out, ".pilotage-build-*")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no staged file appeared within 60 s")
		}
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the build started with SIGINT ignored ended with %v, want it to finish", err)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the build started with SIGINT ignored hung after a SIGINT")
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Errorf("the build did not finish: %v", err)
	}
}

// generatedBuild is the pilotage binary, a generated Language of some MB
// that takes a build some time, and the build's output directory; the
// full suite's only.
func generatedBuild(t *testing.T) (bin, pdl, out string) {
	if testing.Short() {
		t.Skip("builds a generated Language of some MB")
	}
	bin = pilotageBinary(t)
	dir := t.TempDir()
	pdl, out = filepath.Join(dir, "gen.pdl"), filepath.Join(dir, "out")
	if err := os.WriteFile(pdl, pdltest.Generated(5000, 50, true), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, pdl, out
}
