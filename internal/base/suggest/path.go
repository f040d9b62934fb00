package suggest

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxListed bounds the names Path reads from one directory: a misspelt
// file name is looked for among a directory's first thousand entries,
// so a huge directory costs no more than that.
const maxListed = 1000

// Path returns the existing file a misspelt slash-separated name,
// relative to dir, most likely meant ("schemas/room.json" for
// "schemas/rom.json", "guides/core.md" for "guide/core.md"): each part
// that does not exist is replaced by the nearest name in its directory
// (Closest). "" when a part has no near name, or the name exists.
func Path(dir, name string) string {
	parts := strings.Split(path.Clean(name), "/")
	at, changed := dir, false
	for i, part := range parts {
		next := filepath.Join(at, part)
		if _, err := os.Stat(next); err == nil || part == ".." || part == "." {
			at = next
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		near := Closest(part, listDir(at))
		if near == "" {
			return ""
		}
		parts[i], at, changed = near, filepath.Join(at, near), true
	}
	if !changed {
		return ""
	}
	return strings.Join(parts, "/")
}

// listDir is the names of dir's first maxListed entries, none when it
// cannot be read.
func listDir(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxListed)
	return names
}
