package emit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestRemoveStaleLinear times RemoveStale after a build of n and of 4n
// guides, whose definition reads n and 4n files of its own: it looks each
// file up by its device and inode (fileSet), so four times the guides
// take about four times as long. Comparing every file listed with every
// file written and every source (os.SameFile) is square in the guides:
// 4n would take 10 to 12 times as long as n.
func TestRemoveStaleLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 15,000 files")
	}
	const n = 3000
	took := func(n int) time.Duration {
		dir := t.TempDir()
		files := make([]File, n)
		keep := make([]string, n)
		for i := range files {
			files[i] = File{Path: fmt.Sprintf("guides/a_v1/g%d.md", i), Data: []byte("# g")}
			keep[i] = filepath.Join(dir, "src", fmt.Sprintf("g%d.md", i))
		}
		if err := Write(dir, files, nil); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, k := range keep {
			if err := os.WriteFile(k, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var least time.Duration
		for try := range 3 {
			stale := filepath.Join(dir, "guides", "a_v1", "stale.md")
			if err := os.WriteFile(stale, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			st, err := RemoveStale(dir, files, keep)
			d := time.Since(start)
			if err != nil || len(st.Removed) != 1 || st.Removed[0] != "guides/a_v1/stale.md" {
				t.Fatalf("RemoveStale: %+v, %v; want guides/a_v1/stale.md removed", st, err)
			}
			if try == 0 || d < least {
				least = d
			}
		}
		return least
	}
	small, large := took(n), took(4*n)
	t.Logf("RemoveStale of %d guides %v, of %d %v: %.1f times", n, small, 4*n, large, float64(large)/float64(small))
	if large > 8*small {
		t.Errorf("RemoveStale of %d guides took %v, more than 8 times the %v of %d", 4*n, large, small, n)
	}
}

// A Write that fails leaves no directory it made: here a guide's
// directory name is longer than a file system allows (255 bytes), which
// os.MkdirAll finds out after it made guides/.
func TestWriteFailedLeavesNoDirectories(t *testing.T) {
	dir := t.TempDir()
	files := []File{{Path: "snapshot.json", Data: []byte("{}")}, {Path: "guides/" + strings.Repeat("g", 300) + "/core.md", Data: []byte("# g")}}
	if err := Write(dir, files, nil); err == nil {
		t.Fatal("Write succeeded with a 300-byte directory name")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s left by a failed Write", e.Name())
	}
}

// A staged file's temporary name is made from the Stage's tag and its
// index, not held; where another file has that name already (left by a
// build of the same tag), the staged file is written under another, and
// the file in the way is left as it was.
func TestStageAroundATakenName(t *testing.T) {
	dir := t.TempDir()
	const tag = 7
	inTheWay := filepath.Join(dir, "guides", "a_v1", tempName(tag, 1))
	if err := os.MkdirAll(filepath.Dir(inTheWay), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inTheWay, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Path: "snapshot.json", Data: []byte("snapshot")}, {Path: "guides/a_v1/core.md", text: "# core"}, {Path: "guides/a_v1/more.md", text: "# more"}}
	st, err := stage(dir, files, nil, tag)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.taken) != 1 || st.taken[1] == tempName(tag, 1) || !strings.HasPrefix(st.taken[1], tempPrefix) {
		t.Errorf("taken = %v, want the second file's name only, another than %s", st.taken, tempName(tag, 1))
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"snapshot.json": "snapshot", "guides/a_v1/core.md": "# core", "guides/a_v1/more.md": "# more",
		"guides/a_v1/" + tempName(tag, 1): "not ours"} {
		if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path))); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(inTheWay))
	if len(entries) != 3 {
		t.Errorf("%d files beside the guides, want 3 (the two and the one in the way): %v", len(entries), entries)
	}
}
