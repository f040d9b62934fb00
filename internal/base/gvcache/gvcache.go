// Package gvcache keeps go-graphviz from panicking when another user's
// compilation cache is in the way: a package that imports go-graphviz
// imports this one, whose init runs first.
package gvcache

import (
	"os"
	"path/filepath"
	"strconv"
)

// go-graphviz compiles its WebAssembly Graphviz when a process starts
// (a package init) and keeps the result in $TMPDIR/go-graphviz, shared
// by every user of the machine; the first user to run it owns that
// directory, and for any other user the init panicked (open …:
// permission denied) before main ran, whatever the command. This init
// runs before it because the language orders package inits by import
// path among those whose imports are done, and this package imports
// only the standard library, where go-graphviz waits for wazero.
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
