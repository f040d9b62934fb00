package inputs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	for src, want := range map[string]Kind{
		`{"snapshot": "pilotage/1.1", "manifest": {}}`:             Snapshot,
		`{"pilotage": "1.1", "languages": []}`:                     Manifest,
		`{"run_id": "r", "steps": []}`:                             Trace,
		`{"steps": [{"id": "a"}], "level": "full", "run_id": "r"}`: Trace,
		`{"trace": {"run_id": "r"}}`:                               Trace,
		`{"steps": [], "max_risk": "safe"}`:                        Plan,
		`{"valid": true, "plan": {}}`:                              Plan,
		`{"steps": [], "output": "x"}`:                             Program,
		`{"type": "object", "properties": {"steps": {}}}`:          Other,
		`{"steps": [`:       Unknown,
		`[1, 2]`:            Unknown,
		``:                  Unknown,
		`{"a": 1,, "b": 2}`: Unknown,
		`{"pilotage": "1.1", "languages": [` + strings.Repeat("{}", 1) + `]}`: Manifest,
	} {
		if got := Sniff(strings.NewReader(src)); got != want {
			t.Errorf("Sniff(%.40q) = %v, want %v", src, got, want)
		}
	}
}

// A trace whose run_id comes after a large steps array is still told:
// Sniff skips values token by token.
func TestSniffLargeTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and sniffs a trace of megabytes; run without -short")
	}
	var b bytes.Buffer
	b.WriteString(`{"steps": [`)
	for i := range 50000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id": "s", "outcome": {"ok": true, "status": "success"}}`)
	}
	b.WriteString(`], "run_id": "r"}`)
	if got := Sniff(&b); got != Trace {
		t.Fatalf("got %v", got)
	}
}

// tree writes files (name → content) under a new directory and changes
// into it.
func tree(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
}

var project = map[string]string{
	"out/manifest.json":           `{"pilotage": "1.1", "languages": []}`,
	"out/snapshot.json":           `{"snapshot": "pilotage/1.1"}`,
	"out/guides/core.md":          "# Core",
	"langs/a/a.pdl":               `server "a" version="1"`,
	"langs/a/schemas/x.json":      `{"type": "object"}`,
	"langs/b.pdl":                 `server "b" version="1"`,
	"runs/r1.json":                `{"run_id": "r1", "steps": []}`,
	"runs/nested/r2.json":         `{"trace": {}}`,
	"runs/plan.json":              `{"steps": [], "max_risk": "safe"}`,
	"runs/broken.json":            `{"run_id": `,
	"misc/bad.json":               `not json`,
	"programs/p.json":             `{"steps": []}`,
	".hidden/manifest.json":       `{"pilotage": "1.1"}`,
	"runs/.cache/r3.json":         `{"run_id": "r3"}`,
	"empty/README.md":             "nothing here",
	"langs/legacy/old.pdl":        `server "old" version="1"`,
	"langs/legacy/old/older.json": `{"pilotage": "1.0"}`,
}

func TestExpand(t *testing.T) {
	tree(t, project)
	ignored := func(p string) bool { return strings.HasPrefix(filepath.ToSlash(p), "langs/legacy") }
	for _, c := range []struct {
		name    string
		args    []string
		p       Picker
		opt     Options
		want    string
		skipped string
		err     string
	}{
		{name: "lint a directory", args: []string{"out"}, p: Lint,
			want: "out/manifest.json out/snapshot.json"},
		{name: "lint the whole project", args: []string{"."}, p: Lint, opt: Options{Ignored: ignored},
			want:    "langs/a/a.pdl langs/b.pdl misc/bad.json out/manifest.json out/snapshot.json",
			skipped: "langs/a/schemas/x.json langs/legacy/ programs/p.json runs/broken.json runs/nested/r2.json runs/plan.json runs/r1.json"},
		{name: "replay a directory, the plan excluded", args: []string{"runs"}, p: Replay, opt: Options{Exclude: []string{"runs/plan.json"}},
			want: "runs/broken.json runs/nested/r2.json runs/r1.json"},
		{name: "replay a directory, the plan skipped as a plan", args: []string{"runs"}, p: Replay,
			want: "runs/broken.json runs/nested/r2.json runs/r1.json", skipped: "runs/plan.json"},
		{name: "a glob", args: []string{"langs/**/*.pdl"}, p: PDL,
			want: "langs/a/a.pdl langs/b.pdl langs/legacy/old.pdl"},
		{name: "a glob with ignore", args: []string{"langs/**/*.pdl"}, p: PDL, opt: Options{Ignored: ignored},
			want: "langs/a/a.pdl langs/b.pdl", skipped: "langs/legacy/"},
		{name: "a glob from the working directory", args: []string{"*/*.pdl"}, p: PDL, want: "langs/b.pdl"},
		{name: "files as named, even ignored or of another kind", args: []string{"runs/r1.json", "langs/legacy/old.pdl", "-", "missing.json"}, p: Lint, opt: Options{Ignored: ignored},
			want: "runs/r1.json langs/legacy/old.pdl - missing.json"},
		{name: "each file once, however named", args: []string{"langs/b.pdl", "./langs/b.pdl", "langs", "langs/a/../b.pdl", "missing.pdl", "missing.pdl"}, p: PDL,
			want: "langs/b.pdl langs/a/a.pdl langs/legacy/old.pdl missing.pdl"},
		{name: "an empty directory", args: []string{"empty"}, p: Lint,
			err: "empty: no manifests, snapshots or PDL files (*.json, *.pdl) in the directory"},
		{name: "a directory of other files", args: []string{"programs"}, p: Replay,
			err: "programs: no trace files (*.json holding a trace, an execute or a trace-fetch response) in the directory; 1 other file(s) skipped, --verbose names them"},
		{name: "a directory of other files, verbose", args: []string{"programs"}, p: Replay, opt: Options{Verbose: true},
			err: "programs: no trace files (*.json holding a trace, an execute or a trace-fetch response) in the directory; 1 other file(s) skipped, named above"},
		{name: "a glob matching nothing", args: []string{"nowhere/**/*.pdl"}, p: PDL,
			err: "nowhere/**/*.pdl: no PDL files (*.pdl) match the pattern"},
		{name: "a bad glob", args: []string{"langs/[a"}, p: PDL,
			err: `langs/[a: bad pattern segment "[a": syntax error in pattern`},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, skipped, err := Expand(c.args, c.p, c.opt)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(files, " "); got != c.want {
				t.Errorf("files %q, want %q", got, c.want)
			}
			var sk []string
			for _, s := range skipped {
				sk = append(sk, s.File)
				if s.Why == "" {
					t.Errorf("%s skipped without a reason", s.File)
				}
			}
			if got := strings.Join(sk, " "); got != c.skipped {
				t.Errorf("skipped %q, want %q", got, c.skipped)
			}
		})
	}
}

// A symbolic link to a file is followed; one that leads nowhere is an
// error naming it and its target.
func TestExpandSymlinks(t *testing.T) {
	tree(t, map[string]string{"runs/a.json": `{"run_id": "a"}`, "elsewhere/b.json": `{"run_id": "b"}`})
	if err := os.Symlink("../elsewhere/b.json", "runs/b.json"); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	files, _, err := Expand([]string{"runs"}, Replay, Options{})
	if err != nil || strings.Join(files, " ") != "runs/a.json runs/b.json" {
		t.Fatalf("files %v, %v", files, err)
	}
	if err := os.Symlink("../elsewhere/gone.json", "runs/gone.json"); err != nil {
		t.Fatal(err)
	}
	_, _, err = Expand([]string{"runs"}, Replay, Options{})
	want := "runs/gone.json: a symbolic link to ../elsewhere/gone.json, which cannot be followed: no such file or directory; restore its target or remove the link"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// FuzzSniff: any bytes are told without panic.
func FuzzSniff(f *testing.F) {
	for src := range project {
		f.Add([]byte(project[src]))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_ = Sniff(bytes.NewReader(src)).String()
	})
}

// A file named through a link is the file it names, read once.
func TestExpandLinkOnce(t *testing.T) {
	tree(t, map[string]string{"a.pdl": `server "a" version="1"`})
	if err := os.Symlink("a.pdl", "link.pdl"); err != nil {
		t.Skip(err)
	}
	files, _, err := Expand([]string{"a.pdl", "link.pdl", "."}, PDL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, " "); got != "a.pdl" {
		t.Errorf("files %q, want a.pdl", got)
	}
}

// TestExpandTestsFromWithin: pilotage test run inside a tests/ directory
// takes its case files, named by the directory's own name ("." is
// tests), and one beside it through ".." too; a YAML file elsewhere is
// still no case file.
func TestExpandTestsFromWithin(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"todo/tests/todo.yaml", "todo/pilotage.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("cases: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(filepath.Join(dir, "todo", "tests"))
	for _, c := range []struct{ arg, want string }{{".", "todo.yaml"}, {"../tests", "../tests/todo.yaml"}} {
		files, _, err := Expand([]string{c.arg}, Test, Options{})
		if err != nil || strings.Join(files, " ") != c.want {
			t.Errorf("Expand(%s) = %q, %v; want %s", c.arg, files, err, c.want)
		}
	}
	if _, _, err := Expand([]string{".."}, Test, Options{}); err != nil {
		t.Errorf("Expand(..): %v", err)
	}
	t.Chdir(filepath.Join(dir, "todo"))
	if files, _, _ := Expand([]string{"."}, Test, Options{}); strings.Join(files, " ") != "tests/todo.yaml" {
		t.Errorf("Expand(.) from todo = %q, want tests/todo.yaml (pilotage.yaml is no case file)", files)
	}
}
