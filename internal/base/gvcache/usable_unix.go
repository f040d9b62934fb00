//go:build unix

package gvcache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// usable reports whether go-graphviz may use dir as its cache: it does
// not exist yet (go-graphviz makes it, or does without a cache), or this
// user may write it and every directory in it.
func usable(dir string) bool {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || syscall.Access(dir, 2 /* W_OK */) != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() && syscall.Access(filepath.Join(dir, e.Name()), 2) != nil {
			return false
		}
	}
	return true
}
