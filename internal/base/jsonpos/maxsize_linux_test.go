//go:build linux

package jsonpos

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// An input larger than MaxSize is refused, not parsed with offsets that
// wrap around. The input is a mapping of MaxSize+1 bytes that may not be
// read (PROT_NONE): it costs no memory, and a parser that read any of it
// before checking the size would crash the test.
func TestMaxSize(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("no slice can be longer than MaxSize with 32-bit ints")
	}
	size := MaxSize + 1
	huge, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Fatalf("mapping %d bytes of address space: %v", size, err)
	}
	defer syscall.Munmap(huge)
	for _, parse := range []func([]byte) (*Doc, error){Parse, ParseShared} {
		doc, err := parse(huge)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Pos.String() != "1:1" || !strings.Contains(se.Msg, "at most 4294967295 bytes") || doc.Root.Exists() {
			t.Errorf("parsing %d bytes: %v", len(huge), err)
		}
	}
}
