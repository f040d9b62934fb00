package golden

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of failing the
// test, so the helpers' own failures can be asserted.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%v", args...) }

// run calls fn with a fresh recorder on its own goroutine, so that a
// Fatal ends fn as it would end a test, and returns what was recorded.
func run(t *testing.T, fn func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

// expect asserts that r recorded exactly one failure containing each of
// parts (and whether it was fatal), or none when parts is empty.
func (r *recorder) expect(t *testing.T, fatal bool, parts ...string) {
	t.Helper()
	if len(parts) == 0 {
		if len(r.errs) > 0 {
			t.Errorf("unexpected failures: %q", r.errs)
		}
		return
	}
	if len(r.errs) != 1 || r.fatal != fatal {
		t.Fatalf("want one failure (fatal=%v), got %q (fatal=%v)", fatal, r.errs, r.fatal)
	}
	for _, p := range parts {
		if !strings.Contains(r.errs[0], p) {
			t.Errorf("failure %q does not say %q", r.errs[0], p)
		}
	}
}

// updating runs the rest of the test as under -update.
func updating(t *testing.T) {
	*update = true
	t.Cleanup(func() { *update = false })
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	write(t, path, "same\n")
	run(t, func(tb testing.TB) { Check(tb, path, []byte("same\n")) }).expect(t, false)
	run(t, func(tb testing.TB) { Check(tb, path, []byte("other\n")) }).expect(t, false, path, "differs", "other", "same", "-update")
	missing := filepath.Join(dir, "new", "y.golden")
	run(t, func(tb testing.TB) { Check(tb, missing, []byte("z")) }).expect(t, true, "y.golden", "-update writes it")

	updating(t)
	run(t, func(tb testing.TB) { Check(tb, missing, []byte("z")) }).expect(t, false)
	if got := read(t, missing); got != "z" {
		t.Errorf("-update wrote %q, want %q", got, "z")
	}
}

// A long golden file's difference is shown around its first changed line.
func TestCheckLongDiff(t *testing.T) {
	var want, got strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
		if i == 50 {
			got.WriteString("changed\n")
		} else {
			fmt.Fprintf(&got, "line %d\n", i)
		}
	}
	path := filepath.Join(t.TempDir(), "long.golden")
	write(t, path, want.String())
	r := run(t, func(tb testing.TB) { Check(tb, path, []byte(got.String())) })
	r.expect(t, false, "first difference at line 50 (got 100 lines, want 100)", "line 47\n", "changed\nline 51\n", "line 50\n")
	for _, far := range []string{"line 46\n", "line 56\n"} {
		if strings.Contains(r.errs[0], far) {
			t.Errorf("the difference shows %q, far from line 50:\n%s", far, r.errs[0])
		}
	}
}

const archive = `comment stays
-- lang.pdl --
language "a/v1"
-- want --
old
`

func TestArchiveCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.txtar")
	write(t, path, archive)
	a := ReadArchive(t, path)
	run(t, func(tb testing.TB) { a.Check(tb, "want", []byte("old\n")) }).expect(t, false)
	run(t, func(tb testing.TB) { a.Check(tb, "want", []byte("new\n")) }).expect(t, false, path, "want differs", "new")
	run(t, func(tb testing.TB) { a.Check(tb, "stdout", []byte("x\n")) }).expect(t, true, "no section stdout", "-update adds it")
	if data, err := a.ReadFile("lang.pdl"); err != nil || string(data) != "language \"a/v1\"\n" {
		t.Errorf("ReadFile(lang.pdl) = %q, %v", data, err)
	}
	if _, err := a.ReadFile("none.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing section: %v, want fs.ErrNotExist", err)
	}

	updating(t)
	run(t, func(tb testing.TB) { a.Check(tb, "want", []byte("new\n")) }).expect(t, false)
	run(t, func(tb testing.TB) { a.Check(tb, "stdout", []byte("x\n")) }).expect(t, false)
	want := strings.Replace(archive, "old\n", "new\n", 1) + "-- stdout --\nx\n"
	if got := read(t, path); got != want {
		t.Errorf("-update rewrote the archive as\n%s\nwant\n%s", got, want)
	}
}

func TestFilesAndArchives(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txtar"), "-- seed --\none\n-- other --\nx\n")
	write(t, filepath.Join(dir, "b.txtar"), "-- seed --\ntwo\n")
	var seen []string
	Files(t, filepath.Join(dir, "*.txtar"), func(t *testing.T, path string, src []byte) {
		seen = append(seen, t.Name()[strings.LastIndex(t.Name(), "/")+1:]+"="+filepath.Base(path))
	})
	Archives(t, filepath.Join(dir, "*.txtar"), func(t *testing.T, a *Archive) {
		seen = append(seen, t.Name()[strings.LastIndex(t.Name(), "/")+1:]+"="+filepath.Base(a.Path))
	})
	if got := strings.Join(seen, " "); got != "a.txtar=a.txtar b.txtar=b.txtar a=a.txtar b=b.txtar" {
		t.Errorf("subtests ran as %s", got)
	}
	var seeds []string
	for _, s := range Sections(t, filepath.Join(dir, "*.txtar"), func(n string) bool { return n == "seed" }) {
		seeds = append(seeds, string(s))
	}
	if got := strings.Join(seeds, ""); got != "one\ntwo\n" {
		t.Errorf("Sections = %q", got)
	}
	run(t, func(tb testing.TB) { Sections(tb, filepath.Join(dir, "*.md"), func(string) bool { return true }) }).
		expect(t, true, "no test files match")
	run(t, func(tb testing.TB) { Sections(tb, filepath.Join(dir, "*.txtar"), func(string) bool { return false }) }).
		expect(t, true, "no section", "is a seed")
}

// The fake rule of TestRuleFixtures finds every line of a document that
// starts with "bad"; "every rule" also finds lines starting with "odd".
func fakeFindings(a *Archive, name string, all bool) string {
	data, _ := a.File(name + ".json")
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "bad") || all && strings.HasPrefix(line, "odd") {
			out.WriteString(line)
		}
	}
	return out.String()
}

func TestRuleFixtures(t *testing.T) {
	notPlan := func(name string) bool { return name != "plan" }
	for _, c := range []struct {
		name, archive string
		fatal         bool
		parts         []string
	}{
		{"good", "-- plan.json --\nbad but context\n-- fail.json --\nbad 1\n-- fail.want --\nbad 1\n-- pass.json --\nok\n-- pass.want --\n", false, nil},
		{"wrong want", "-- fail.json --\nbad 1\n-- fail.want --\nbad 2\n-- pass.json --\nok\n-- pass.want --\n", false, []string{"fail.json", "got:\nbad 1", "want:\nbad 2"}},
		{"no want", "-- fail.json --\nbad 1\n", true, []string{"fixture fail.json has no fail.want"}},
		{"pass not clean", "-- fail.json --\nbad 1\n-- fail.want --\nbad 1\n-- pass.json --\nodd\n-- pass.want --\n", false, []string{"pass.json must be clean under every rule", "odd"}},
		{"no pass", "-- fail.json --\nbad 1\n-- fail.want --\nbad 1\n", false, []string{"at least one failing and one passing", "fail=true pass=false"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rule.txtar")
			write(t, path, c.archive)
			run(t, func(tb testing.TB) { RuleFixtures(tb, path, notPlan, fakeFindings) }).expect(t, c.fatal, c.parts...)
		})
	}
	missing := filepath.Join(t.TempDir(), "none.txtar")
	run(t, func(tb testing.TB) { RuleFixtures(tb, missing, notPlan, fakeFindings) }).
		expect(t, true, "every rule needs", "none.txtar")
}

// Blocks keeps only the fenced blocks of the language asked for, bodies
// whole, and ```yaml does not match ```yamlx.
func TestBlocks(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	src := "# Page\n\n```yaml\na: 1\nb: 2\n```\n\n```sh\nls\n```\n\n```yamlx\nno\n```\n\n```yaml\nc: 3\n```\n"
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Blocks(t, page, "yaml", 2)
	if want := []string{"a: 1\nb: 2\n", "c: 3\n"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Blocks = %q, want %q", got, want)
	}
}
