package cmd

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestLimitMemory: the soft limit is the runtime's memory at the start
// plus memSlack plus memPerByte a byte of the files, a directory's summed;
// restoring gives back the limit before; standard input, whose size is
// unknown, and a lower GOMEMLIMIT leave the limit as it was.
func TestLimitMemory(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"a.pdl": 1 << 20, "sub/b.json": 1 << 20} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := debug.SetMemoryLimit(-1)
	restore := limitMemory([]string{filepath.Join(dir, "a.pdl"), filepath.Join(dir, "sub"), "", "missing.pdl"})
	got := debug.SetMemoryLimit(-1)
	restore()
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("restored %d, want %d", after, before)
	}
	least := int64(memSlack + memPerByte*2<<20)
	if got < least || got > least+512<<20 {
		t.Errorf("limit %d for 2 MiB of files; want %d plus the runtime's memory", got, least)
	}
	for _, args := range [][]string{{"-"}, {filepath.Join(dir, "a.pdl"), "-"}} {
		restore := limitMemory(args)
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("%q: limit %d, want none set (%d)", args, got, before)
		}
		restore()
	}
	debug.SetMemoryLimit(1 << 20)
	defer debug.SetMemoryLimit(before)
	restore = limitMemory([]string{filepath.Join(dir, "a.pdl")})
	if got := debug.SetMemoryLimit(-1); got != 1<<20 {
		t.Errorf("a lower limit was raised to %d", got)
	}
	restore()
}
