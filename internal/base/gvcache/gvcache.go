// Package gvcache keeps go-graphviz from panicking when another user's
// compilation cache is in the way: a package that imports go-graphviz
// imports this one, whose init points the process at a cache it may
// write.
package gvcache

import (
	"os"
	"path/filepath"
	"strconv"
)

// go-graphviz compiles its WebAssembly Graphviz when a process first
// draws (our fork, internal/third_party/go-graphviz; upstream did it in a package
// init, before main) and keeps the result in $TMPDIR/go-graphviz, shared
// by every user of the machine; the first user to draw owns that
// directory, and for any other user go-graphviz panics (open …:
// permission denied). An init sets TMPDIR before anything draws.
func init() {
	dir := filepath.Join(os.TempDir(), "go-graphviz")
	if usable(dir) {
		return
	}
	// A temporary directory of this user's own, for every temporary
	// file of the process and the processes it starts.
	own := filepath.Join(os.TempDir(), "pilotage-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(own, 0o700); err != nil || !usable(filepath.Join(own, "go-graphviz")) {
		return // go-graphviz says what it meets
	}
	os.Setenv("TMPDIR", own)
}
