package cmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/reload"
)

// logLines is a log the watcher writes while the test reads it: one
// write, one line.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	l <- string(p)
	return len(p), nil
}

// waitFor reads the log until what it has read holds want, or fails
// after a while.
func waitFor(t *testing.T, log logLines, want string) {
	t.Helper()
	var read strings.Builder
	timeout := time.After(5 * time.Second)
	for !strings.Contains(read.String(), want) {
		select {
		case line := <-log:
			read.WriteString(line)
		case <-timeout:
			t.Fatalf("the log never said %q:\n%s", want, read.String())
		}
	}
}

// TestReloadWatch edits a real PDL file under reload.Watch (serve
// --watch): a change that compiles is swapped in with its notices
// logged, one with errors is printed and kept out, and a file that
// cannot be read keeps the old definition too.
func TestReloadWatch(t *testing.T) {
	src, err := os.ReadFile("../langs/calc/calc.pdl")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "calc.pdl")
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _, err := compile.Load(name, report.DefaultMaxPerRule)
	if err != nil || !res.OK() {
		t.Fatalf("calc.pdl does not compile: %v %v", err, res.Findings)
	}
	log := make(logLines, 64)
	swapped := make(chan *compile.Result, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := reload.Watch(ctx, name, res, reload.Options{Every: 5 * time.Millisecond, Log: log, Swap: func(r *compile.Result) ([]string, error) {
		swapped <- r
		return []string{"a notice"}, nil
	}})
	defer func() { cancel(); <-done }()

	edited := bytes.Replace(src, []byte(`title "Calculator"`), []byte(`title "Calculator, edited"`), 1)
	if err := os.WriteFile(name, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, log, "pilotage serve: reloaded "+name+"\npilotage serve: a notice\n")
	if got := (<-swapped).Server.Languages[0].Title; got != "Calculator, edited" {
		t.Errorf("the swapped definition has title %q", got)
	}

	if err := os.WriteFile(name, append(edited, "language {\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, log, "pilotage serve: reload: the PDL has errors; keeping the previous definition\n")
	waitFor(t, log, name+":")

	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	waitFor(t, log, "pilotage serve: reload: "+name+": no such file or directory; keeping the previous definition\n")
	select {
	case r := <-swapped:
		t.Errorf("a definition that did not compile was swapped in: %+v", r.Findings)
	default:
	}
}
