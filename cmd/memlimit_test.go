package cmd

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestLimitMemory: the soft limit is the runtime's memory at the start
// plus memSlack plus memPerByte (progMemPerByte for validate, plan and
// run) a byte of the files, a directory's summed; restoring gives back
// the limit before; standard input, whose size is unknown, and a lower
// GOMEMLIMIT leave the limit as it was.
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
	for _, perByte := range []int64{memPerByte, progMemPerByte} {
		l := limitMemoryPer(perByte, []string{filepath.Join(dir, "a.pdl"), filepath.Join(dir, "sub"), "", "missing.pdl"})
		got := debug.SetMemoryLimit(-1)
		l.restore()
		if after := debug.SetMemoryLimit(-1); after != before {
			t.Errorf("restored %d, want %d", after, before)
		}
		least := memSlack + perByte*2<<20
		if got < least || got > least+512<<20 {
			t.Errorf("limit %d for 2 MiB of files at %d a byte; want %d plus the runtime's memory", got, perByte, least)
		}
	}
	for _, args := range [][]string{{"-"}, {filepath.Join(dir, "a.pdl"), "-"}} {
		l := limitMemory(args)
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("%q: limit %d, want none set (%d)", args, got, before)
		}
		l.restore()
	}
	debug.SetMemoryLimit(1 << 20)
	defer debug.SetMemoryLimit(before)
	l := limitMemory([]string{filepath.Join(dir, "a.pdl")})
	if got := debug.SetMemoryLimit(-1); got != 1<<20 {
		t.Errorf("a lower limit was raised to %d", got)
	}
	l.restore()
}

// TestMemLimitKeep: what keep's start takes (Graphviz's start) it takes
// without the limit, and is then counted as held: the limit rises by it.
// Without a limit (standard input) start just runs.
func TestMemLimitKeep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.pdl")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	before := debug.SetMemoryLimit(-1)
	l := limitMemory([]string{path})
	defer l.restore()
	limit := debug.SetMemoryLimit(-1)
	var held []byte
	debug.FreeOSMemory() // so that what start takes is new to the runtime
	l.keep(func() {
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("limit %d while starting, want none (%d)", got, before)
		}
		held = make([]byte, 32<<20)
		for i := range held {
			held[i] = 1
		}
	})
	// About 32 MiB more: the runtime may release memory meanwhile, so
	// only roughly.
	if got := debug.SetMemoryLimit(-1); got < limit+16<<20 || got > limit+64<<20 {
		t.Errorf("limit %d after keeping 32 MiB, want about %d", got, limit+32<<20)
	}
	ran := false
	limitMemory([]string{"-"}).keep(func() { ran = true })
	if !ran {
		t.Error("keep without a limit did not run start")
	}
}

// TestLSPMemory: the language server's limit is set while documents of
// lspLimitFrom bytes or more in all are analysed, at memPerByte a byte
// of them over what it held (after a collection) and memSlack, follows
// the bytes as analyses start and end, and is given back once none
// runs; a small document's analysis sets none.
func TestLSPMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	var m lspMemory
	m.analysing(lspLimitFrom - 1)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d for a small document, want none (%d)", got, before)
	}
	held := heldMemory()
	m.analysing(4 << 20)
	one := debug.SetMemoryLimit(-1)
	if least := int64(memSlack + memPerByte*4<<20); one < least || one > least+held+64<<20 {
		t.Errorf("limit %d for 4 MiB, want %d plus what the server holds (about %d)", one, least, held)
	}
	m.analysing(6 << 20)
	if got := debug.SetMemoryLimit(-1); got != one+memPerByte*2<<20 {
		t.Errorf("limit %d for 6 MiB, want %d", got, one+memPerByte*2<<20)
	}
	m.analysing(0)
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit %d after the analyses, want %d", got, before)
	}
}
