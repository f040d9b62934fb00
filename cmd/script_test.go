package cmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the pilotage binary in-process.
// pilotage-status runs the same binary but prints "exit N" on stderr and
// exits 0, so a script can tell findings (1) from usage errors (2), which
// `! exec` cannot.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pilotage": func() { os.Exit(cmd.Main()) },
		"pilotage-status": func() {
			code := cmd.Main()
			fmt.Fprintf(os.Stderr, "exit %d\n", code)
			os.Exit(0)
		},
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. With
// the project's one -update flag (internal/testsupport/golden: go test ./cmd -run
// TestScripts -update) a failing cmp whose expected file is a section of
// the script rewrites that section instead. The work directory of
// each script that names langs/ holds a copy of it, so scripts can run
// the bundled Languages (conform serves langs/homeflow) without keeping
// copies of them that would drift.
//
// With -short only cmd.ShortScripts run, which run every verb once: the
// edit loop's check that every verb still works end to end.
func TestScripts(t *testing.T) {
	dir, files := "testdata/script", []string(nil)
	if testing.Short() {
		dir = ""
		for _, name := range cmd.ShortScripts {
			files = append(files, filepath.Join("testdata", "script", name+".txtar"))
		}
		t.Logf("-short runs %d scripts of testdata/script (cmd.ShortScripts); run without -short for all", len(files))
	}
	testscript.Run(t, testscript.Params{
		Dir:   dir,
		Files: files,
		Setup: func(env *testscript.Env) error {
			if err := shareGraphvizCache(env); err != nil {
				return err
			}
			if !namesLangs(env) {
				return nil
			}
			return copyTree(filepath.Join("..", "langs"), filepath.Join(env.WorkDir, "langs"))
		},
		Cmds:          map[string]func(*testscript.TestScript, bool, []string){"stable": stableCmd},
		UpdateScripts: golden.Updating(),
	})
}

// namesLangs reports whether the script env sets up names langs/, as a
// third of them do: copying its thirty files cost the others 30 ms of
// CPU each, as much as two pilotage processes. A script it cannot find
// is given the copy.
func namesLangs(env *testscript.Env) bool {
	name := strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
	data, err := os.ReadFile(filepath.Join("testdata", "script", name+".txtar"))
	return err != nil || strings.Contains(string(data), "langs")
}

// shareGraphvizCache points the script's go-graphviz compilation cache
// at the one every pilotage process uses, $TMPDIR/go-graphviz of the
// test itself. go-graphviz compiles its WebAssembly Graphviz when a
// process first draws an SVG and keeps the result there; testscript
// gives each script a TMPDIR of its own, so without this every script's
// first drawing compiled it again, 1–4 s each.
// The cache writes by rename, so processes may share it.
func shareGraphvizCache(env *testscript.Env) error {
	shared := filepath.Join(os.TempDir(), "go-graphviz")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		return err
	}
	tmp := env.Getenv("TMPDIR")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	return os.Symlink(shared, filepath.Join(tmp, "go-graphviz"))
}

// ruleCount matches the number of rules a report says it ran (text
// "43 rules", json "rules": 43), which grows whenever a rule is added.
var ruleCount = regexp.MustCompile(`\b\d+ rules\b|"rules": \d+`)

// stableCmd is the script command `stable SRC DST`: it copies SRC (a file,
// stdout or stderr) to DST with the rule count replaced by N, so golden
// output compared with cmp (and rewritten by -update) does not
// change each time a rule is added.
func stableCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: stable SRC DST")
	}
	out := ruleCount.ReplaceAllStringFunc(ts.ReadFile(args[0]), func(m string) string {
		if strings.HasPrefix(m, `"`) {
			return `"rules": N`
		}
		return "N rules"
	})
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}
