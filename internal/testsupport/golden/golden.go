// Package golden is the test machinery the packages share for outputs kept
// in files (golden files, testdata folders, txtar archives whose sections
// hold the expected output, the rule fixtures of lint and replay,
// generated parts of docs), with one -update flag that rewrites every kind.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files and the expected sections of test archives with what the tests produce")

// Updating reports whether the tests run with -update, for a test that
// rewrites something other than one file (emit rewrites a whole folder).
func Updating() bool { return *update }

// Check compares got with the file at path; with -update it writes got
// there instead, creating the folder when needed.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, diff(got, want))
	}
}

// diff shows got and want whole when they are short; otherwise the lines
// around the first that differs, so a change in a large golden file (a
// whole snapshot) is found without scrolling through both copies.
func diff(got, want []byte) string {
	const short, before, after = 40, 3, 6
	g, w := lines(got), lines(want)
	if len(g) <= short && len(w) <= short {
		return fmt.Sprintf("--- got\n%s\n--- want\n%s", got, want)
	}
	first := 0
	for first < len(g) && first < len(w) && g[first] == w[first] {
		first++
	}
	window := func(lines []string) string {
		from, to := max(first-before, 0), min(first+after, len(lines))
		return strings.Join(lines[min(from, to):to], "")
	}
	return fmt.Sprintf("first difference at line %d (got %d lines, want %d)\n--- got\n%s\n--- want\n%s",
		first+1, len(g), len(w), window(g), window(w))
}

// Files runs fn as a subtest, named by the file's base name, for every
// file matching pattern, with its contents. No match at all is a failure,
// so a moved testdata folder cannot turn a test into one that checks
// nothing.
func Files(t *testing.T, pattern string, fn func(t *testing.T, path string, src []byte)) {
	t.Helper()
	for _, path := range glob(t, pattern) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, path, src)
		})
	}
}

func glob(t testing.TB, pattern string) []string {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test files match %s (%v)", pattern, err)
	}
	return paths
}

// Archive is a txtar file of a test: its comment and sections, and the
// path it is rewritten to under -update.
type Archive struct {
	Path string
	*txtar.Archive
}

// ReadArchive parses the txtar file at path.
func ReadArchive(t testing.TB, path string) *Archive {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &Archive{Path: path, Archive: ar}
}

// Archives runs fn as a subtest, named by the base name without .txtar,
// for every archive matching pattern; no match at all is a failure.
func Archives(t *testing.T, pattern string, fn func(t *testing.T, a *Archive)) {
	t.Helper()
	for _, path := range glob(t, pattern) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			fn(t, ReadArchive(t, path))
		})
	}
}

// File returns the section called name.
func (a *Archive) File(name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// ReadFile serves the archive's sections as files, for code under test
// that reads the files a source names.
func (a *Archive) ReadFile(name string) ([]byte, error) {
	if data, ok := a.File(name); ok {
		return data, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Check compares got with the section called name; with -update it puts
// got there, adding the section when the archive lacks it, and rewrites
// the archive.
func (a *Archive) Check(t testing.TB, name string, got []byte) {
	t.Helper()
	if *update {
		i := 0
		for i < len(a.Files) && a.Files[i].Name != name {
			i++
		}
		if i == len(a.Files) {
			a.Files = append(a.Files, txtar.File{Name: name})
		}
		a.Files[i].Data = got
		if err := os.WriteFile(a.Path, txtar.Format(a.Archive), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, ok := a.File(name)
	if !ok {
		t.Fatalf("%s has no section %s (go test -update adds it)", a.Path, name)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: %s differs (go test -update rewrites it):\n%s", a.Path, name, diff(got, want))
	}
}

// Sections returns the data of every section that keep accepts, from every
// archive matching pattern: fuzz seeds from the fixtures. No such section
// at all is a failure, so the fuzzer never starts from nothing by mistake.
func Sections(t testing.TB, pattern string, keep func(name string) bool) [][]byte {
	t.Helper()
	var out [][]byte
	for _, path := range glob(t, pattern) {
		for _, f := range ReadArchive(t, path).Files {
			if keep(f.Name) {
				out = append(out, f.Data)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no section of %s is a seed", pattern)
	}
	return out
}

// lines splits b after each newline, without the empty piece after the
// last one.
func lines(b []byte) []string {
	out := strings.SplitAfter(string(b), "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
