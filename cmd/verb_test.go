package cmd_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// TestCode: the exit code an error of a verb function stands for.
func TestCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, verb.ExitOK}, {verb.Findings, verb.ExitFindings}, {verb.Usage("x"), verb.ExitUsage},
		{&verb.ExitError{Code: 130}, 130}, {errors.New("plain"), verb.ExitUsage},
	} {
		if got := verb.Code(tc.err); got != tc.want {
			t.Errorf("Code(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestAhead: after each file, the least name of those still to check;
// none after the last.
func TestAhead(t *testing.T) {
	got := verb.Ahead([]string{"c", "a", "d", "b", "e"})
	if want := []string{"a", "b", "b", "e", ""}; !slices.Equal(got, want) {
		t.Errorf("Ahead = %q, want %q", got, want)
	}
	if got := verb.Ahead(nil); len(got) != 0 {
		t.Errorf("Ahead(nil) = %q", got)
	}
}

// TestReadInput: standard input for -, a file's bytes, a directory
// named where a file is meant refused with what to do, and either one
// larger than the bound refused naming it.
func TestReadInput(t *testing.T) {
	s := verb.Streams{In: strings.NewReader("from stdin"), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	if b, err := verb.ReadInput(s, "-", verb.ArtifactBound); err != nil || string(b) != "from stdin" {
		t.Errorf("-: %q, %v", b, err)
	}
	if b, err := verb.ReadInput(s, "../langs/calc/calc.pdl", verb.ArtifactBound); err != nil || !bytes.Contains(b, []byte("language")) {
		t.Errorf("calc.pdl: %.40q, %v", b, err)
	}
	small := verb.ProgramBound(language.Limits{ProgramBytes: 4}, "program")
	s.In = strings.NewReader("12345")
	for _, name := range []string{"-", "../langs/calc/calc.pdl"} {
		_, err := verb.ReadInput(s, name, small)
		if verb.Code(err) != verb.ExitUsage || !strings.Contains(err.Error(), "is larger than 4 bytes (the Language's limits program); give a smaller program") {
			t.Errorf("%s over the bound: %v", name, err)
		}
	}
	_, err := verb.ReadInput(s, "../langs", verb.ArtifactBound)
	if verb.Code(err) != verb.ExitUsage || !strings.Contains(err.Error(), "name the files in it instead") {
		t.Errorf("a directory: %v", err)
	}
}

// TestOutputNotInput: -o may not name an input, nor a *.json file of an
// input directory; a new file or standard output is always allowed.
func TestOutputNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "snapshot.json")
	if err := os.WriteFile(in, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := verb.OutputNotInput(in, in); verb.Code(err) != verb.ExitUsage || !strings.Contains(err.Error(), "names the input") {
		t.Errorf("-o the input: %v", err)
	}
	if err := verb.OutputNotInput(in, dir); verb.Code(err) != verb.ExitUsage || !strings.Contains(err.Error(), "of the input directory") {
		t.Errorf("-o a file of the input directory: %v", err)
	}
	for _, out := range []string{"", "-", filepath.Join(dir, "new.txt")} {
		if err := verb.OutputNotInput(out, in, dir); err != nil {
			t.Errorf("-o %q: %v", out, err)
		}
	}
	if err := verb.OneStdin("-", "a", "-"); verb.Code(err) != verb.ExitUsage {
		t.Errorf("two -: %v", err)
	}
}

// TestJSONFile: a malformed JSON file is refused at its line and column.
func TestJSONFile(t *testing.T) {
	if _, err := verb.JSONFile("in.json", []byte("{\"a\": 1,\n}")); err == nil || !strings.HasPrefix(err.Error(), "in.json:1:8: malformed JSON: trailing comma") {
		t.Errorf("got %v", err)
	}
	if raw, err := verb.JSONFile("in.json", []byte(`{"a": 1}`)); err != nil || string(raw) != `{"a": 1}` {
		t.Errorf("valid: %s, %v", raw, err)
	}
}

// TestListRules: the rules are listed sorted by ID in text or JSON, and
// refused next to inputs or in another format.
func TestListRules(t *testing.T) {
	infos := []report.RuleInfo{{ID: "b-rule", Category: "c", Severity: report.Warning}, {ID: "a-rule", Category: "c", Severity: report.Error}}
	var out bytes.Buffer
	s := verb.Streams{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}}
	if err := verb.ListRules(s, nil, "", report.Text, infos); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || !strings.HasPrefix(lines[1], "a-rule") || !strings.HasPrefix(lines[2], "b-rule") {
		t.Errorf("text:\n%s", out.String())
	}
	out.Reset()
	if err := verb.ListRules(s, nil, "", report.JSON, infos); err != nil || !strings.HasPrefix(out.String(), "{\n  \"rules\": [") {
		t.Errorf("json: %v\n%s", err, out.String())
	}
	if err := verb.ListRules(s, []string{"x.json"}, "", report.Text, infos); verb.Code(err) != verb.ExitUsage || !strings.Contains(err.Error(), "(got x.json)") {
		t.Errorf("with an input: %v", err)
	}
	if err := verb.ListRules(s, nil, "", report.SARIF, infos); verb.Code(err) != verb.ExitUsage {
		t.Errorf("sarif: %v", err)
	}
}

// TestWriteOutputWhole: -o replaces a file only with a whole output. A
// write that fails midway (a verb stopped while it streams its report)
// leaves the earlier file as it was and no temporary file; one that
// ends replaces it, keeping its permissions; a name that is not a
// regular file is written as it goes.
func TestWriteOutputWhole(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(name, []byte("earlier\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s := verb.Streams{Out: &out, Err: &out}
	err := verb.WriteOutput(s, name, "the report", func(w io.Writer) error {
		io.WriteString(w, "half a rep")
		return errors.New("stopped")
	})
	if verb.Code(err) != verb.ExitUsage || !strings.Contains(err.Error(), "writing the report: stopped") {
		t.Errorf("a failed write: %v", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "earlier\n" {
		t.Errorf("a failed write left %q, want the earlier file", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed write left %d files in the directory, want the one", len(entries))
	}
	if err := verb.WriteOutput(s, name, "the report", func(w io.Writer) error {
		_, err := io.WriteString(w, "whole\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "whole\n" {
		t.Errorf("a write left %q", b)
	}
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %v (%v), want the earlier 0600", fi.Mode(), err)
	}
	if !strings.Contains(out.String(), "wrote "+name) {
		t.Errorf("no wrote line: %q", out.String())
	}
	if err := verb.WriteOutput(s, os.DevNull, "the report", func(w io.Writer) error {
		_, err := io.WriteString(w, "gone\n")
		return err
	}); err != nil {
		t.Errorf("-o %s: %v", os.DevNull, err)
	}
	// A link is written through: the file it names gets the output, the
	// link stays a link.
	target, link := filepath.Join(dir, "target.txt"), filepath.Join(dir, "link.txt")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := verb.WriteOutput(s, link, "the report", func(w io.Writer) error {
		_, err := io.WriteString(w, "through\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "through\n" {
		t.Errorf("writing through a link left its file %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("writing through a link replaced the link: %v %v", fi.Mode(), err)
	}
	err = verb.WriteOutput(s, filepath.Join(dir, "nodir", "r.txt"), "the report", func(io.Writer) error { return nil })
	if want := "cannot write the report: " + filepath.Join(dir, "nodir", "r.txt") + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("a missing directory: %v, want %s", err, want)
	}
}

// TestWriteOutputInLockedDirectory: a file that may be written in a
// directory where no file may be made is written as it goes, as -o
// wrote every file before it wrote through a temporary one.
func TestWriteOutputInLockedDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may make files in any directory")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(name, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	var out bytes.Buffer
	if err := verb.WriteOutput(verb.Streams{Out: &out, Err: &out}, name, "the report", func(w io.Writer) error {
		_, err := io.WriteString(w, "new\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "new\n" {
		t.Errorf("the file holds %q", b)
	}
}
