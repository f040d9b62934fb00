package lsp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNeovim drives the real binary with a real client: Neovim's
// built-in LSP client, headless, runs testdata/nvim.lua on the homeflow
// example and the test reads what the client received. CI installs
// neovim (.ci/run); elsewhere the test skips without it.
func TestNeovim(t *testing.T) {
	nvim := lookNvim(t)
	dir := t.TempDir()
	bin := buildPilotage(t, dir)
	pdlFile, _ := filepath.Abs(homeflow)
	script, _ := filepath.Abs("testdata/nvim.lua")
	out := filepath.Join(dir, "out.json")
	settings := filepath.Join(dir, "project", "pilotage.yaml")
	os.Mkdir(filepath.Dir(settings), 0o755)
	if err := os.WriteFile(settings, []byte("langauges: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "LSP_OUT="+out, "PILOTAGE_BIN="+bin, "PDL_FILE="+pdlFile, "SETTINGS_FILE="+settings, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir)
	done := make(chan error, 1)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("nvim: %v\n%s", err, log.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("nvim did not finish\n%s", log.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no results: %v\n%s", err, log.String())
	}
	var got struct {
		Diagnostics []struct {
			Code            string
			CodeDescription struct{ Href string }
			Message         string
		}
		Hover struct {
			Result struct{ Contents struct{ Value string } }
		}
		Completion struct{ Result []struct{ Label string } }
		Formatting struct{ Result []struct{ NewText string } }
		Settings   []struct {
			Code    string
			Message string
			Range   struct{ Start, End struct{ Line, Character int } }
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(got.Diagnostics) != 1 || got.Diagnostics[0].Code != "pdl-reference" || !strings.Contains(got.Diagnostics[0].Message, "did you mean write?") ||
		!strings.HasSuffix(got.Diagnostics[0].CodeDescription.Href, "docs/pdl.md#diagnostics") {
		t.Errorf("diagnostics: %s", b)
	}
	// The broken pilotage.yaml: config show's problem, on the key.
	if ds := got.Settings; len(ds) != 1 || ds[0].Code != "pilotage.yaml" || !strings.HasPrefix(ds[0].Message, `unknown key "langauges" at the top level (did you mean "languages"?)`) ||
		ds[0].Range.Start.Line != 0 || ds[0].Range.Start.Character != 0 || ds[0].Range.End.Character != 9 {
		t.Errorf("pilotage.yaml diagnostics: %+v", ds)
	}
	if !strings.Contains(got.Hover.Result.Contents.Value, "risk=`safe`") {
		t.Errorf("hover: %s", b)
	}
	var labels []string
	for _, c := range got.Completion.Result {
		labels = append(labels, c.Label)
	}
	if strings.Join(labels, " ") != "safe write dangerous" {
		t.Errorf("completion: %v", labels)
	}
	if len(got.Formatting.Result) != 1 || !strings.Contains(got.Formatting.Result[0].NewText, "\nentry \"lights.set\" kind=device risk=wirte {\n") {
		t.Errorf("formatting: %s", b)
	}
}

// buildPilotage builds the binary an editor starts into dir.
// lookNvim is the nvim a test starts; it skips under -short, and where
// nvim is not installed unless in CI, which installs it (.ci/run).
func lookNvim(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and starts Neovim")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs nvim (apt-get install neovim)")
		}
		t.Skip("nvim is not installed")
	}
	return nvim
}

// TestNeovimDocsSnippet runs the Neovim 0.7 configuration docs/editors.md
// gives, as a user would paste it into init.lua, with pilotage on PATH:
// opening a PDL file with an error shows pilotage's diagnostic.
func TestNeovimDocsSnippet(t *testing.T) {
	nvim := lookNvim(t)
	page, err := os.ReadFile("../../docs/editors.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(page), "On Neovim 0.7, without `vim.lsp.start` and `vim.fs`:\n\n```lua\n")
	snippet, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal("docs/editors.md has no Neovim 0.7 lua block after its 'On Neovim 0.7' line")
	}
	dir := t.TempDir()
	buildPilotage(t, dir)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("init.lua", snippet)
	write("broken.pdl", "langauge \"x/v1\" {}\n")
	out := filepath.Join(dir, "out.txt")
	probe := `lua vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
		local d = vim.diagnostic.get(0)
		local f = io.open(vim.env.OUT, 'w'); f:write(d[1] and d[1].message or 'no diagnostic'); f:close()
		vim.cmd('qa!')`
	cmd := exec.Command(nvim, "--headless", "-n", "-u", "init.lua", "broken.pdl", "-c", strings.ReplaceAll(probe, "\n\t\t", " "))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "OUT="+out, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, _ := os.ReadFile(out)
	if !strings.Contains(string(got), `unknown keyword langauge`) {
		t.Errorf("the diagnostic Neovim shows with the docs' configuration: %q, want pdl's unknown keyword", got)
	}
}

func buildPilotage(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "pilotage")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/pilotage").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestVSCodeExtension runs the extension's own check (the files its
// manifest names exist; its grammar's patterns compile), what
// `npm run package` runs before packaging.
func TestVSCodeExtension(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	out, err := exec.Command(node, "vscode/check.js").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok statement") {
		t.Fatalf("check.js: %v\n%s", err, out)
	}
}
