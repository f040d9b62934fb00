package cmd_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHostilePDLPeakRSS runs the PDL verbs as the user does, as child
// processes, on files of one-byte tokens (issue 13, item 8: any verb on
// any input within 10 times its size in memory): half a million blank
// lines, and 2 MB of one-letter statements and of one statement's
// one-letter values. Each verb's peak RSS beyond its own on a one-line
// file must stay within 10 bytes a byte of input, plus the 4 MiB a PDL
// syntax tree is allowed whatever the file's size (docs/pdl.md, "The
// file"). Before, lint took 270 MB on the blank lines (500 KB) and 357
// MB on 520 KB of statements.
func TestHostilePDLPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.json")
	files := map[string][]byte{
		"tiny":  []byte("\n"),
		"blank": bytes.Repeat([]byte("\n"), 500_000),
		"stmts": bytes.Repeat([]byte("a;"), 1_000_000),
		"args":  append(append([]byte("s"), bytes.Repeat([]byte(" a"), 1_000_000)...), '\n'),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name+".pdl"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(prog, []byte(`{"steps": [], "output": "1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	verbs := map[string]func(file string) []string{
		"fmt":      func(f string) []string { return []string{"fmt", f} },
		"lint":     func(f string) []string { return []string{"lint", f} },
		"build":    func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), f} },
		"validate": func(f string) []string { return []string{"validate", "--lang", f, prog} },
	}
	for verb, args := range verbs {
		t.Run(verb, func(t *testing.T) {
			base := peakRSS(t, bin, args(filepath.Join(dir, "tiny.pdl")))
			for _, name := range []string{"blank", "stmts", "args"} {
				size := len(files[name])
				rss := peakRSS(t, bin, args(filepath.Join(dir, name+".pdl")))
				t.Logf("%s %s (%d bytes): peak RSS %d KiB, %d KiB over a one-line file's", verb, name, size, rss>>10, (rss-base)>>10)
				if limit := 10*int64(size) + 4<<20; rss-base > limit {
					t.Errorf("%s of %s: peak RSS %d bytes over a one-line file's, more than 10 a byte plus 4 MiB (%d)", verb, name, rss-base, limit)
				}
			}
		})
	}
}

// peakRSS runs the binary and returns its peak resident set in bytes.
func peakRSS(t *testing.T, bin string, args []string) int64 {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%v: %v", args, err)
	}
	if code := cmd.ProcessState.ExitCode(); code > 2 || code < 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr.Bytes())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatalf("no rusage for %v", args)
	}
	return ru.Maxrss << 10 // kilobytes on Linux
}
