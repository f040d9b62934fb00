//go:build unix

package inputs

import (
	"os"
	"syscall"
)

// fileID is what os.SameFile compares on Unix: the file's device and
// inode numbers.
func fileID(fi os.FileInfo) ([2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
