package pdl

import (
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// TestStreamGivesTheSameTree reads every PDL file of the repository and
// of testdata with Stream, the broken ones included (their statements are
// those of the text Parse repaired), and wants Parse's findings and, from
// Statements, Parse's statements: the compiler reads a file with Stream,
// and its findings point into the statements it is given.
func TestStreamGivesTheSameTree(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.pdl")
	more, _ := filepath.Glob("../../langs/*/*.pdl")
	repaired := 0
	for _, name := range append(files, more...) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if problem := streamDiffers(name, src); problem != "" {
			t.Errorf("%s: %s", name, problem)
		}
		if f, fs := Parse(name, src); f != nil && len(fs) > 0 {
			repaired++
		}
		g, _ := Stream(name, src, false)
		if g == nil {
			continue
		}
		for s := range g.Statements() {
			if s != nil {
				break // a reader may stop early
			}
		}
	}
	if repaired == 0 {
		t.Error("no broken file was streamed")
	}
	hand := &File{Name: "hand.pdl", Body: []Node{&Comment{Text: "# c"}, &Stmt{Keyword: "server"}}}
	if got := slices.Collect(hand.Statements()); len(got) != 1 || got[0] != hand.Body[1] {
		t.Error("a tree built by hand does not yield its own statements")
	}
}

// streamDiffers says how Stream's reading of src differs from Parse's,
// or "" when it does not: the same findings, the same File without its
// body, and from Statements the statements of Parse's tree.
func streamDiffers(name string, src []byte) string {
	f, fs := Parse(name, src)
	g, gs := Stream(name, src, false)
	switch {
	case !reflect.DeepEqual(fs, gs):
		return "Stream's findings differ from Parse's"
	case (f == nil) != (g == nil):
		return fmt.Sprintf("Stream's tree is nil: %v, Parse's: %v", g == nil, f == nil)
	case f == nil:
		return ""
	case len(g.Body) > 0 || g.Name != f.Name || g.Pos != f.Pos || g.EndPos != f.EndPos:
		return "Stream's File is not Parse's without its body"
	case !reflect.DeepEqual(childrenRead(f, f.Statements()), childrenRead(g, g.Statements())):
		return "the statements read again differ"
	}
	for s := range g.Statements() {
		if s.Block != nil && s.Block.Unread != (s.Keyword == unreadBlocks) {
			return "the block of a top-level " + s.Keyword + " statement is unread: " + fmt.Sprint(s.Block.Unread)
		}
		if !maps.Equal(f.CountChildren(s), g.CountChildren(s)) {
			return "Stream's reading counts other statements"
		}
	}
	for _, kw := range []string{"entry", "language", "guide"} {
		var want []*Stmt
		for s := range f.Statements() {
			if s.Keyword == kw {
				want = append(want, s)
			}
		}
		read := childrenRead(f, slices.Values(want))
		if !reflect.DeepEqual(read, childrenRead(g, g.StatementsOf(kw))) || !reflect.DeepEqual(read, childrenRead(f, f.StatementsOf(kw))) {
			return "the statements of keyword " + kw + " read again differ"
		}
	}
	return ""
}

// childrenRead is statements, each with its block's body as
// f.Children reads it (statements alone) and not unread.
func childrenRead(f *File, statements iter.Seq[*Stmt]) []*Stmt {
	var out []*Stmt
	for s := range statements {
		if s.Block != nil {
			c, b := *s, *s.Block
			b.Body, b.Unread = nil, false
			for ch := range f.Children(s) {
				b.Body = append(b.Body, ch)
			}
			c.Block = &b
			s = &c
		}
		out = append(out, s)
	}
	return out
}

// TestStatementsOfBuildsTheirsAlone reads the entry of a Language of
// 2,000 guides again and wants what that allocates to be a small part of
// reading every statement again, the Language block's too: its tree was built a
// second time beside the one the compiler keeps, 34 MB for 60,000 guides
// (docs/performance.md, "Many small guides").
func TestStatementsOfBuildsTheirsAlone(t *testing.T) {
	src := pdltest.SmallGuides(2000)
	f, fs := Stream("g.pdl", src, true)
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	allocated := func(read func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		read()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	entries := 0
	of := allocated(func() {
		for range f.StatementsOf("entry") {
			entries++
		}
	})
	all := allocated(func() {
		for s := range f.Statements() {
			for range f.Children(s) {
			}
		}
	})
	if entries != 1 || of > all/20 {
		t.Errorf("%d entries read again allocated %d bytes, every statement %d", entries, of, all)
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

// TestStreamKeepsWhatItsReaderKeeps reads the large generated Language a
// statement at a time, keeping its first statements (the server, closed
// sets and the Language, as the compiler does), and wants the heap left
// to hold them and not the catalog's entries after them: slabs shared
// between statements kept, from block to block, the whole tree (4 bytes
// a byte of the file) behind one statement kept.
func TestStreamKeepsWhatItsReaderKeeps(t *testing.T) {
	src := pdltest.Generated(5000, 50, true)
	f, fs := Stream("gen.pdl", src, true)
	if f == nil || len(fs) > 0 {
		t.Fatalf("the generated Language does not read: %v", fs)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var kept []*Stmt
	n := 0
	for s := range f.Statements() {
		if n++; s.Keyword != "entry" {
			kept = append(kept, s)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(kept)
	t.Logf("%d statements, %d kept: %d bytes live after reading them", n, len(kept), live)
	if n < 5000 || len(kept) == 0 {
		t.Fatalf("read %d statements, kept %d", n, len(kept))
	}
	if live > int64(len(src)/4) {
		t.Errorf("%d bytes live after keeping %d statements, over a quarter byte a byte of the file", live, len(kept))
	}
}

// TestChildrenReadsAStatementAtATime reads the Language block of 15,000
// guides (5,000 in -short) with Children, keeping none, and wants the
// heap in the middle of the block to hold a small part of the block's
// tree, as Parse builds it:
// Stream read the block whole, and its tree was the peak of lint of
// such a file (docs/performance.md, "A Language block a statement at a
// time").
func TestChildrenReadsAStatementAtATime(t *testing.T) {
	size := 15000
	if testing.Short() {
		// The tree 3.6 MB, a twentieth of it 180 KB, the middle 34 KB.
		size = 5000
	}
	src := pdltest.SmallGuides(size)
	live := func(read func()) int64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		read()
		runtime.GC()
		runtime.ReadMemStats(&after)
		return int64(after.HeapAlloc) - int64(before.HeapAlloc)
	}
	var whole *File
	tree := live(func() { whole, _ = Parse("g.pdl", src) })
	runtime.KeepAlive(whole)
	f, fs := Stream("g.pdl", src, true)
	if len(fs) > 0 {
		t.Fatal(fs)
	}
	var lang *Stmt
	for s := range f.Statements() {
		if s.Keyword == "language" {
			lang = s
		}
	}
	if lang == nil || !lang.Block.Unread {
		t.Fatal("Stream read the Language block")
	}
	guides := f.CountChildren(lang)["guide"]
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before, middle := heap(), int64(0)
	n := 0
	for s := range f.Children(lang) {
		if s.Keyword == "guide" {
			if n++; n == guides/2 {
				middle = heap() - before
			}
		}
	}
	runtime.KeepAlive(lang)
	t.Logf("%d guides: the whole tree %d bytes, %d live in the middle of the block read a statement at a time", guides, tree, middle)
	want := 0
	for s := range whole.Statements() {
		if s.Keyword == "language" {
			want = whole.CountChildren(s)["guide"]
		}
	}
	if guides != want || n != guides || guides < size {
		t.Fatalf("counted %d guides, read %d", guides, n)
	}
	if middle > tree/20 {
		t.Errorf("%d bytes live in the middle of the block, over a twentieth of its tree (%d)", middle, tree)
	}
}
