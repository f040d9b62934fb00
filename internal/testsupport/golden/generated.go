package golden

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
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

// Blocks returns the bodies of the ```lang fenced blocks of the page at
// path, for tests that hold a page's examples to the tool; fewer than min
// means the extraction, or the page, is broken.
func Blocks(t testing.TB, path, lang string, min int) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+regexp.QuoteMeta(lang)+"\n(.*?)```").FindAllStringSubmatch(string(src), -1) {
		out = append(out, m[1])
	}
	if len(out) < min {
		t.Fatalf("found %d %s blocks in %s, fewer than %d; the extraction is broken", len(out), lang, path, min)
	}
	return out
}
