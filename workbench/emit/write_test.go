package emit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A build that fails part way leaves the earlier build as it was: here
// the second guide cannot be written (its directory's name is taken by a
// file, which no permission bypasses), so snapshot.json, written first,
// must not have been replaced either, and no temporary file is left.
func TestWriteAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	old := []File{{Path: "snapshot.json", Data: []byte("old snapshot")}, {Path: "guides/a_v1/core.md", Data: []byte("# old")}}
	if err := Write(dir, old, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "guides", "b_v1"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	next := []File{{Path: "snapshot.json", Data: []byte("new snapshot")}, {Path: "guides/a_v1/core.md", Data: []byte("# new")}, {Path: "guides/b_v1/core.md", Data: []byte("# b")}}
	err := Write(dir, next, nil)
	if err == nil {
		t.Fatal("Write succeeded with guides/b_v1 a file")
	}
	for _, f := range old {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("%s after a failed Write: %q, %v; want %q", f.Path, got, err, f.Data)
		}
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".pilotage-build-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})

	// A directory where a file goes is refused before anything is written,
	// with its name.
	os.Remove(filepath.Join(dir, "guides", "b_v1"))
	if err := os.MkdirAll(filepath.Join(dir, "guides", "b_v1", "core.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = Write(dir, next, nil)
	if err == nil || !strings.Contains(err.Error(), "guides/b_v1/core.md is a directory") {
		t.Errorf("Write over a directory: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "snapshot.json")); string(got) != "old snapshot" {
		t.Errorf("snapshot.json after a refused Write: %q", got)
	}

	// Once nothing is in the way, every file is replaced, readable by all.
	os.Remove(filepath.Join(dir, "guides", "b_v1", "core.md"))
	if err := Write(dir, next, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range next {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		got, err := os.ReadFile(p)
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("%s: %q, %v; want %q", f.Path, got, err, f.Data)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s is not readable by all: %v %v", f.Path, fi.Mode(), err)
		}
	}
}
