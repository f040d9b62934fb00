package testcase

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestRefsReadOnce reads a case file whose cases name one program and one
// input, a case at a time and whole (--update), and holds each case to
// the same bytes of each file: read once for the run, which the engine
// then checks once (Refs). Read without Refs, each case has a copy.
func TestRefsReadOnce(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"prog.json":  `{"steps": [], "output": "input.x"}`,
		"input.json": `{"x": 1}`,
		"prog.txt":   "output input.x\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(dir, "cases.yaml")
	src := []byte("pdl: calc.pdl\ncases:\n")
	for _, c := range []string{"a", "b", "c"} {
		src = append(src, "  - name: "+c+"\n    program: prog.json\n    input: input.json\n  - name: "+c+"-text\n    program: prog.txt\n"...)
	}
	shared := func(cases []*Case) bool {
		json, text := cases[0], cases[1]
		for _, c := range cases[2:] {
			if c.Text && unsafe.StringData(c.ProgramText) != unsafe.StringData(text.ProgramText) ||
				!c.Text && (&c.Program[0] != &json.Program[0] || &c.Input[0] != &json.Input[0]) {
				return false
			}
		}
		return true
	}
	refs := NewRefs()
	for what, read := range map[string]func(string, []byte) (*File, error){"Read": refs.Read, "Parse": refs.Parse, "Read without Refs": Read} {
		f, err := read(name, src)
		if err != nil {
			t.Fatal(err)
		}
		cases, e := all(f)
		if e != nil {
			t.Fatal(e)
		}
		if len(cases) != 6 {
			t.Fatalf("%s: %d cases, want 6", what, len(cases))
		}
		if got, want := shared(cases), what != "Read without Refs"; got != want {
			t.Errorf("%s: cases share the files' bytes: %v, want %v", what, got, want)
		}
	}
}

// TestRefsChargeText holds Refs to what it keeps: a text program is its
// bytes and the string made of them, two copies, both within the budget.
func TestRefsChargeText(t *testing.T) {
	dir := t.TempDir()
	prog := "output input.x\n"
	if err := os.WriteFile(filepath.Join(dir, "prog.txt"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "cases.yaml")
	refs := NewRefs()
	f, err := refs.Parse(name, []byte("pdl: calc.pdl\ncases:\n  - name: a\n    program: prog.txt\n  - name: b\n    program: prog.txt\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(f.Cases))
	}
	key := filepath.Join(dir, "prog.txt")
	if got, want := refs.files.Weight(), 2*len(prog)+len(key); got != want {
		t.Errorf("Refs weighs %d, want %d: the file's bytes and its text, and the key", got, want)
	}
}
