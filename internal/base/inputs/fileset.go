package inputs

import (
	"os"
	"slices"
)

// FileSet answers whether a file is one of a set (os.SameFile) by its
// device and inode where the system gives them (fileID), and elsewhere
// by comparing it with each. Comparing each file with each would make
// emit's Write and RemoveStale square in the number of guides, and a
// Language may have tens of thousands (docs/performance.md, "Many small
// guides"). The zero FileSet is empty.
type FileSet struct {
	ids   map[[2]uint64]bool
	other []os.FileInfo
}

// Add puts fi in the set.
func (s *FileSet) Add(fi os.FileInfo) {
	if id, ok := fileID(fi); ok {
		if s.ids == nil {
			s.ids = map[[2]uint64]bool{}
		}
		s.ids[id] = true
		return
	}
	s.other = append(s.other, fi)
}

// Has reports whether fi is the same file as one of the set.
func (s *FileSet) Has(fi os.FileInfo) bool {
	if id, ok := fileID(fi); ok && s.ids[id] {
		return true
	}
	return slices.ContainsFunc(s.other, func(o os.FileInfo) bool { return os.SameFile(fi, o) })
}
