package replay

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInputs opens files as named and - from the given stdin, each only
// when read; a missing file fails when it is opened, naming it.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.json")
	inputs := Inputs([]string{a, "-", missing}, strings.NewReader("from stdin"))
	var got []string
	for _, in := range inputs[:2] {
		rc, err := in.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		got = append(got, filepath.Base(in.File)+"="+string(b))
	}
	if want := []string{"a.json=a", "-=from stdin"}; !slices.Equal(got, want) {
		t.Errorf("Inputs read %q, want %q", got, want)
	}
	if _, err := inputs[2].Open(); err == nil || err.Error() != missing+": no such file or directory" {
		t.Errorf("a missing file: %v", err)
	}
}
