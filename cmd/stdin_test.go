package cmd

import (
	"bytes"
	"os"
	"testing"
)

// TestNullStdin: a command whose standard input is /dev/null (cron, CI,
// nohup) reads an empty input at once, so it must not tell the user to
// end the input with Ctrl-D, as it does at a terminal.
func TestNullStdin(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"lint", "-"}, null, &stdout, &stderr); code != ExitFindings {
		t.Fatalf("lint - </dev/null: exit %d, want %d (empty input is malformed JSON)\n%s", code, ExitFindings, stderr.String())
	}
	if bytes.Contains(stderr.Bytes(), []byte("Ctrl-D")) {
		t.Errorf("lint - </dev/null asked for Ctrl-D:\n%s", stderr.String())
	}
	if !bytes.Contains(stdout.Bytes(), []byte("-:1:1: error: malformed JSON")) {
		t.Errorf("lint - </dev/null did not report the empty input:\n%s", stdout.String())
	}
}
