package pdl

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// TestRereaderGivesTheSameTree reads every PDL file of the repository and
// of testdata again through Rereader, the broken ones included (their
// tree is that of the text Parse repaired), and wants the same tree: the
// compiler drops a tree and reads it again, and its findings point into
// the tree it read again.
func TestRereaderGivesTheSameTree(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.pdl")
	more, _ := filepath.Glob("../../langs/*/*.pdl")
	repaired := 0
	for _, name := range append(files, more...) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, fs := Parse(name, src)
		if f == nil {
			continue
		}
		if len(fs) > 0 {
			repaired++
		}
		if g := f.Rereader()(); !reflect.DeepEqual(f, g) {
			t.Errorf("%s: the tree read again differs", name)
		}
	}
	if repaired == 0 {
		t.Error("no broken file was read again")
	}
	hand := &File{Name: "hand.pdl", Body: []Node{&Stmt{Keyword: "server"}}}
	if hand.Rereader()() != hand {
		t.Error("a tree built by hand is not its own reading")
	}
}

// TestParseSharedReadsInPlace wants ParseShared's tree to be Parse's, with
// its strings slices of the caller's bytes, not of a copy; a file Parse
// repaired is read from its repaired copy either way.
func TestParseSharedReadsInPlace(t *testing.T) {
	src := []byte("server \"s\" version=\"1\"\nlanguage \"a/v1\" {\n  title \"T\"\n}\n")
	f, _ := Parse("a.pdl", src)
	g, fs := ParseShared("a.pdl", src)
	if len(fs) > 0 || !reflect.DeepEqual(f, g) {
		t.Fatalf("ParseShared's tree is not Parse's: %v", fs)
	}
	in := func(s string, b []byte) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&b[0]))
		return start <= p && p < start+uintptr(len(b))
	}
	if !in(g.Body[0].(*Stmt).Keyword, src) || in(f.Body[0].(*Stmt).Keyword, src) {
		t.Errorf("ParseShared's strings are not slices of the source, or Parse's are")
	}
	broken := []byte("server \"s\nlanguage \"a/v1\" {}\n")
	b, fs := ParseShared("b.pdl", broken)
	if len(fs) == 0 || b == nil || len(b.Body) == 0 {
		t.Fatalf("the broken file gave no finding or no tree: %v", fs)
	}
	if in(b.Body[0].(*Stmt).Keyword, broken) {
		t.Errorf("a repaired file's tree is read from the caller's bytes")
	}
}
