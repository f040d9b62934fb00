package golden

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Generated compares got with the part of the file at path between the
// lines `<!-- begin NAME -->` and `<!-- end NAME -->` (a list generated
// from the code inside a page written by hand); with -update it puts got
// there instead.
func Generated(t testing.TB, path, name string, got []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := fmt.Sprintf("<!-- begin %s -->\n", name), fmt.Sprintf("<!-- end %s -->\n", name)
	i, j := bytes.Index(src, []byte(begin)), bytes.Index(src, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q lines to hold the generated %s", path, strings.TrimSpace(begin), strings.TrimSpace(end), name)
	}
	i += len(begin)
	if *update {
		out := append(append(append([]byte(nil), src[:i]...), got...), src[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := src[i:j]; !bytes.Equal(got, want) {
		t.Errorf("%s: the generated %s differs (go test -update rewrites it):\n%s", path, name, diff(got, want))
	}
}
