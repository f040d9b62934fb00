package pdl

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
