package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestReplayExitCodes pins the exit codes pilotage lint uses: 0 clean, 1
// findings (warnings only with --strict), 2 usage or unreadable input.
func TestReplayExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plan := write("plan.json", `{"steps": [{"id": "open", "kind": "step", "calls": ["a"], "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}},
		{"id": "read", "kind": "step", "calls": ["b"], "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}],
		"max_risk": "write", "max_risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`)
	entry := func(id, call string) string {
		return `{"id": "` + id + `", "calls": ["` + call + `"], "outcome": {"ok": true, "status": "success"}}`
	}
	trace := func(entries ...string) string {
		return `{"run_id": "r", "level": "summary", "outcome": {"ok": true, "status": "success"}, "steps": [` + strings.Join(entries, ",") + `]}`
	}
	clean := write("clean.json", trace(entry("open", "a"), entry("read", "b")))
	swapped := write("swapped.json", trace(entry("read", "b"), entry("open", "a")))
	missing := write("missing.json", trace(entry("open", "a")))
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"replay", clean, "--plan", plan}, ExitOK},
		{[]string{"replay", swapped, "--plan", plan}, ExitOK}, // entry-order is a warning
		{[]string{"replay", "--strict", swapped, "--plan", plan}, ExitFindings},
		{[]string{"replay", missing, "--plan", plan}, ExitFindings},
		{[]string{"replay", clean, missing, "--plan", plan}, ExitFindings},
		{[]string{"replay", clean}, ExitUsage},
		{[]string{"replay", clean, "--plan", filepath.Join(dir, "nope.json")}, ExitUsage},
		{[]string{"replay", clean, "--plan", clean}, ExitUsage}, // a trace is not a plan
		{[]string{"replay", "--max-per-rule", "0", clean, "--plan", plan}, ExitUsage},
	} {
		var out, errb bytes.Buffer
		if got := run(c.args, strings.NewReader(""), &out, &errb); got != c.want {
			t.Errorf("pilotage %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), got, c.want, out.String(), errb.String())
		}
	}
}

// TestReplayDocsExample runs the command docs/replay.md shows and checks
// the page shows exactly what it prints.
func TestReplayDocsExample(t *testing.T) {
	t.Chdir("..")
	doc, err := os.ReadFile("docs/replay.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmdline = "pilotage replay docs/examples/replay/broken.json --plan docs/examples/replay/plan.json"
	var out bytes.Buffer
	if code := run(strings.Fields(cmdline)[1:], strings.NewReader(""), &out, &out); code != ExitFindings {
		t.Fatalf("exit %d, want 1:\n%s", code, out.String())
	}
	if want := "$ " + cmdline + "\n" + out.String(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/replay.md does not show the current output of\n  %s\nwhich is:\n%s", cmdline, out.String())
	}
	out.Reset()
	const clean = "pilotage replay docs/examples/replay/trace.json --plan docs/examples/replay/plan.json --snapshot docs/examples/snapshot.json"
	if code := run(strings.Fields(clean)[1:], strings.NewReader(""), &out, &out); code != ExitOK {
		t.Fatalf("exit %d, want 0:\n%s", code, out.String())
	}
	if want := "$ " + clean + "\n" + out.String(); !strings.Contains(string(doc), want) {
		t.Errorf("docs/replay.md does not show the current output of\n  %s\nwhich is:\n%s", clean, out.String())
	}
	// Every command of the "More commands" block runs: it exits 0 or 1,
	// never with a usage error.
	_, block, _ := strings.Cut(string(doc), "More commands")
	block, _, _ = strings.Cut(block, "\n```\n\n")
	n := 0
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "pilotage replay") {
			continue
		}
		n++
		args, stdin := strings.Fields(line)[1:], []byte(nil)
		if i := slices.Index(args, "<"); i >= 0 {
			if stdin, err = os.ReadFile(args[i+1]); err != nil {
				t.Fatal(err)
			}
			args = args[:i]
		}
		out.Reset()
		if code := run(args, bytes.NewReader(stdin), &out, &out); code == ExitUsage {
			t.Errorf("%s: exit %d\n%s", line, code, out.String())
		}
	}
	if n < 5 {
		t.Errorf("found %d commands under \"More commands\" in docs/replay.md", n)
	}
}

// TestReplayDocsDeepExample runs the deep replay docs/replay.md works
// through, on the files of the fixture it names, and checks the page
// shows exactly what it prints.
func TestReplayDocsDeepExample(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "replay.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, shown, ok := strings.Cut(string(doc), "$ pilotage replay fail_flipped.json")
	if !ok {
		t.Fatal("docs/replay.md shows no deep replay of fail_flipped.json")
	}
	shown, _, _ = strings.Cut(shown, "```")
	cmdline, want, _ := strings.Cut(strings.Replace(shown, "\\\n", "", 1), "\n")
	ar, err := txtar.ParseFile(filepath.Join(root, "replay", "testdata", "rules", "deep-branch.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "langs"), filepath.Join(dir, "langs")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out bytes.Buffer
	args := append([]string{"replay", "fail_flipped.json"}, strings.Fields(cmdline)...)
	if code := run(args, strings.NewReader(""), &out, &out); code != ExitFindings {
		t.Fatalf("%v: exit %d, want 1:\n%s", args, code, out.String())
	}
	if out.String() != want {
		t.Errorf("docs/replay.md shows\n%s\nfor %v, which prints\n%s", want, args, out.String())
	}
}
