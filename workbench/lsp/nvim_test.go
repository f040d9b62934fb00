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
