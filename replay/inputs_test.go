package replay

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInputs expands a directory as replay reads one: its *.json files in
// name order, symbolic links followed, the plan left out, - read from
// the given stdin; a directory with no trace and a dangling link are
// named errors.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"b.json": "b", "a.json": "a", "notes.txt": "not a trace", "plan.json": "plan"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan := filepath.Join(dir, "plan.json")
	if err := os.Mkdir(filepath.Join(dir, "sub.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.json", filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	inputs, err := Inputs([]string{dir, "-"}, []string{plan, "", "-"}, strings.NewReader("from stdin"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range inputs {
		rc, err := in.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		got = append(got, filepath.Base(in.File)+"="+string(b))
	}
	want := []string{"a.json=a", "b.json=b", "link.json=a", "-=from stdin"}
	if !slices.Equal(got, want) {
		t.Errorf("Inputs read %q, want %q", got, want)
	}

	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "readme.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	planOnly := t.TempDir()
	onlyPlan := filepath.Join(planOnly, "plan.json")
	if err := os.WriteFile(onlyPlan, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		args, exclude []string
		want          string
	}{
		{"no trace in a directory", []string{empty}, nil, empty + ": no trace files (*.json) in the directory"},
		{"only the plan in a directory", []string{planOnly}, []string{onlyPlan}, planOnly + ": no trace files (*.json) in the directory"},
		{"a missing file", []string{filepath.Join(empty, "nope.json")}, nil, filepath.Join(empty, "nope.json") + ": no such file or directory"},
	} {
		if _, err := Inputs(c.args, c.exclude, nil); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if err := os.Symlink("gone.json", filepath.Join(empty, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	_, err = Inputs([]string{empty}, nil, nil)
	if want := filepath.Join(empty, "dangling.json") + ": a symbolic link to gone.json, which cannot be followed: no such file or directory; restore its target or remove the link"; err == nil || err.Error() != want {
		t.Errorf("a dangling link: %v, want %q", err, want)
	}
}
