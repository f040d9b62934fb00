package cmd_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// TestSARIFOutputIsValid validates what the checking verbs really print
// with --format sarif against the SARIF 2.1.0 schema, clean and with
// findings: lint of JSON and PDL inputs (findings placed in the PDL
// source), replay, and conform against `pilotage serve` of homeflow
// (lint's and replay's findings in the saved files, conform's own naming
// an MCP operation instead of a file). internal/base/report's test validates
// made-up reports; this one catches what only real output carries.
func TestSARIFOutputIsValid(t *testing.T) {
	golden.SARIFSchema(t) // skips, saying why, without node and npm
	dir := t.TempDir()
	badPDL := filepath.Join(dir, "bad.pdl")
	badProgram := filepath.Join(dir, "bad-program.json")
	// Schema findings that cite several sections each (a missing pilotage:
	// §5.1, §11.1, §1.1), which results carry in their properties.
	noPilotage := filepath.Join(dir, "no-pilotage.json")
	for name, src := range map[string]string{
		badPDL:     "language \"x/v1\" {\n  mode sometimes\n}\n",
		badProgram: `{"steps": [{"id": "a", "call": "no_such_tool"}]}`,
		noPilotage: `{"languages": [{"id": "a/v1", "loop": {}}]}`,
	} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	brokenAbs, err := filepath.Abs("../docs/examples/broken-snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	// A file name a URI must escape: a space, a '%', a '#'.
	awkward := filepath.Join(dir, "my broken 100% #1.json")
	broken, err := os.ReadFile(brokenAbs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(awkward, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	serve := []string{"--", pilotageBinary(t), "serve", homeflow, "--principal", "owner"}
	const replayDir = "../docs/examples/replay/"
	for _, tc := range []struct {
		name     string
		args     []string
		findings bool // exit 1 with results, or exit 0 with none
	}{
		{"lint clean json", []string{"lint", "../docs/examples/snapshot.json", "../docs/examples/manifest.json"}, false},
		{"lint findings json", []string{"lint", "../docs/examples/broken-snapshot.json"}, true},
		// An absolute path, as conform's findings in the files it saves
		// carry (--save is absolute here, and a temporary directory
		// without it).
		{"lint findings absolute", []string{"lint", brokenAbs}, true},
		{"lint findings awkward name", []string{"lint", awkward}, true},
		{"lint schema sections", []string{"lint", noPilotage}, true},
		{"lint clean pdl", []string{"lint", homeflow, "../langs/notes/notes.pdl"}, false},
		{"lint findings pdl", []string{"lint", badPDL}, true},
		{"replay clean", []string{"replay", replayDir + "trace.json", "--plan", replayDir + "plan.json"}, false},
		{"replay findings", []string{"replay", replayDir + "broken.json", "--plan", replayDir + "plan.json"}, true},
		{"conform clean", append([]string{"conform", "--save", filepath.Join(dir, "clean"), "--execute",
			"--program", "../langs/homeflow/programs/evening.json", "--input", "../langs/homeflow/programs/evening.input.json"}, serve...), false},
		{"conform findings", append([]string{"conform", "--save", filepath.Join(dir, "findings"), "--program", badProgram}, serve...), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runExit(t, exec.Command(pilotageBinary(t), append([]string{tc.args[0], "--format", "sarif"}, tc.args[1:]...)...))
			var log struct {
				Runs []struct {
					Results []json.RawMessage `json:"results"`
				} `json:"runs"`
			}
			if jerr := json.Unmarshal(stdout.Bytes(), &log); jerr != nil || len(log.Runs) != 1 {
				t.Fatalf("exit %d, output is not one SARIF run (%v):\n%s\nstderr:\n%s", code, jerr, stdout.String(), stderr.String())
			}
			if want := map[bool]int{false: 0, true: 1}[tc.findings]; code != want || (len(log.Runs[0].Results) > 0) != tc.findings {
				t.Fatalf("exit %d with %d results, want exit %d\nstderr:\n%s", code, len(log.Runs[0].Results), want, stderr.String())
			}
			golden.ValidSARIF(t, "the output", stdout.Bytes())
		})
	}
}

// runExit runs cmd with its output captured and returns the output and
// its exit status; a command that cannot be run at all fails the test.
func runExit(t *testing.T, cmd *exec.Cmd) (stdout, stderr *bytes.Buffer, code int) {
	t.Helper()
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout, stderr, ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	return stdout, stderr, 0
}
