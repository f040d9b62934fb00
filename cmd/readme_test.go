package cmd_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestREADMECommands runs every `./pilotage` command shown in README.md's
// shell blocks, in order, against copies of the bundled examples, so the
// README never shows a command that fails. A command may report findings
// (exit 1: the tour lints a broken example on purpose) but never a usage
// error or unreadable input (exit 2). `go build` and `go test` lines are
// what this test and CI already run.
func TestREADMECommands(t *testing.T) {
	runDocCommands(t, "README.md", 5, "./pilotage ")
}

// TestServeDocCommands does the same for the validate, plan and run
// commands of docs/serve.md ("Without MCP"); its serve commands are left
// out, since a server started with --http runs until it is stopped.
func TestServeDocCommands(t *testing.T) {
	runDocCommands(t, filepath.Join("docs", "serve.md"), 4,
		"pilotage validate ", "pilotage plan ", "pilotage run ")
}

// runDocCommands runs the commands of a page's shell blocks that start
// with one of prefixes, and fails when it finds fewer than min of them.
func runDocCommands(t *testing.T, page string, min int, prefixes ...string) {
	if testing.Short() {
		t.Skip("runs every command of a page as its own process; run without -short")
	}
	doc, err := os.ReadFile(filepath.Join("..", page))
	if err != nil {
		t.Fatal(err)
	}
	script, n := docScript(string(doc), prefixes)
	if n < min {
		t.Fatalf("found only %d pilotage commands in %s; the extraction is broken", n, page)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "doc.txtar"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			if err := shareGraphvizCache(env); err != nil {
				return err
			}
			for _, d := range []string{"langs", filepath.Join("docs", "examples")} {
				if err := copyTree(filepath.Join("..", d), filepath.Join(env.WorkDir, d)); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

var (
	shBlock  = regexp.MustCompile("(?s)```sh\n(.*?)```")
	assign   = regexp.MustCompile(`^([A-Z_]+)=(\S+)$`)
	redirect = regexp.MustCompile(`^(.*?)\s*>\s*(\S+)$`)
)

// docScript turns the commands of a page's shell blocks that start with
// one of prefixes (and the variable assignments they use) into a
// testscript script, and counts the commands.
func docScript(doc string, prefixes []string) (string, int) {
	var b strings.Builder
	n := 0
	for _, m := range shBlock.FindAllStringSubmatch(doc, -1) {
		text := strings.ReplaceAll(m[1], "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			for _, part := range strings.Split(line, "&&") {
				part = strings.TrimSpace(part)
				if a := assign.FindStringSubmatch(part); a != nil {
					b.WriteString("env " + a[1] + "=" + a[2] + "\n")
					continue
				}
				if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(part, p) }) {
					continue
				}
				n++
				cmd, out := part, ""
				if r := redirect.FindStringSubmatch(part); r != nil {
					cmd, out = r[1], r[2]
				}
				b.WriteString("# " + part + "\n")
				_, args, _ := strings.Cut(cmd, " ")
				b.WriteString("exec pilotage-status " + args + "\n")
				b.WriteString("! stderr '^exit 2$'\n")
				b.WriteString("! stderr 'panic'\n")
				if out != "" {
					b.WriteString("cp stdout " + out + "\n")
				}
			}
		}
	}
	return b.String(), n
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
