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
// source), build of PDL files (compile errors and lint's findings of what
// it would write), replay, and conform against `pilotage serve` of homeflow
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
	// A definition that compiles and that lint rejects (§4.3).
	floorPDL := filepath.Join(dir, "floor.pdl")
	for name, src := range map[string]string{
		badPDL:     "language \"x/v1\" {\n  mode sometimes\n}\n",
		floorPDL:   "language \"floor/v1\" {\n  capabilities {\n    guides\n    trace_fetch\n  }\n  guide core \"Core\" level=core {\n    body \"# Core\"\n  }\n}\n",
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
		code     int  // the exit status with results when not 1 (build's PDL errors: 2)
	}{
		{"lint clean json", []string{"lint", "../docs/examples/snapshot.json", "../docs/examples/manifest.json"}, false, 0},
		{"lint findings json", []string{"lint", "../docs/examples/broken-snapshot.json"}, true, 0},
		// An absolute path, as conform's findings in the files it saves
		// carry (--save is absolute here, and a temporary directory
		// without it).
		{"lint findings absolute", []string{"lint", brokenAbs}, true, 0},
		{"lint findings awkward name", []string{"lint", awkward}, true, 0},
		{"lint schema sections", []string{"lint", noPilotage}, true, 0},
		{"lint clean pdl", []string{"lint", homeflow, "../langs/notes/notes.pdl"}, false, 0},
		{"lint findings pdl", []string{"lint", badPDL}, true, 0},
		{"build clean", []string{"build", "-o", filepath.Join(dir, "build"), homeflow}, false, 0},
		{"build lint findings", []string{"build", "-o", filepath.Join(dir, "floor"), floorPDL}, true, 0},
		{"build pdl errors", []string{"build", "-o", filepath.Join(dir, "bad"), badPDL, floorPDL}, true, 2},
		{"replay clean", []string{"replay", replayDir + "trace.json", "--plan", replayDir + "plan.json"}, false, 0},
		{"replay findings", []string{"replay", replayDir + "broken.json", "--plan", replayDir + "plan.json"}, true, 0},
		{"conform clean", append([]string{"conform", "--save", filepath.Join(dir, "clean"), "--execute",
			"--program", "../langs/homeflow/programs/evening.json", "--input", "../langs/homeflow/programs/evening.input.json"}, serve...), false, 0},
		{"conform findings", append([]string{"conform", "--save", filepath.Join(dir, "findings"), "--program", badProgram}, serve...), true, 0},
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
			want := map[bool]int{false: 0, true: 1}[tc.findings]
			if tc.code != 0 {
				want = tc.code
			}
			if code != want || (len(log.Runs[0].Results) > 0) != tc.findings {
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

// TestSARIFSuppressionsAreValid: lint --include-suppressed of a PDL file
// whose finding is ignored inline and a JSON file suppressed by
// pilotage.yaml prints results carrying SARIF suppressions (inSource and
// external, the reasons as justifications) that the SARIF 2.1.0 schema
// accepts, and exits 0 since nothing unsuppressed remains; without the
// flag the suppressed results are left out (docs/config.md).
func TestSARIFSuppressionsAreValid(t *testing.T) {
	golden.SARIFSchema(t)
	dir := t.TempDir()
	pdlFile := filepath.Join(dir, "floor.pdl")
	jsonFile := filepath.Join(dir, "bad.json")
	cfg := filepath.Join(dir, "pilotage.yaml")
	for name, src := range map[string]string{
		pdlFile:  "language \"floor/v1\" {\n  # pilotage:ignore capability-floor,capability-dependencies -- checked by the server's own tests\n  capabilities {\n    guides\n    trace_fetch\n  }\n  guide core \"Core\" level=core {\n    body \"# Core\"\n  }\n}\n",
		jsonFile: "{\"pilotage\": \"1.1\",, \"languages\": []}\n",
		cfg:      "suppress:\n  - files: [bad.json]\n    rules: [json-syntax]\n    reason: broken on purpose\n",
	} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lint := func(extra ...string) (*bytes.Buffer, int) {
		args := append([]string{"lint", "--config", cfg, "--format", "sarif"}, extra...)
		stdout, stderr, code := runExit(t, exec.Command(pilotageBinary(t), append(args, pdlFile, jsonFile)...))
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		return stdout, code
	}
	type result struct {
		RuleID       string `json:"ruleId"`
		Suppressions []struct {
			Kind          string `json:"kind"`
			Justification string `json:"justification"`
		} `json:"suppressions"`
	}
	var log struct {
		Runs []struct {
			Results []result `json:"results"`
		} `json:"runs"`
	}
	all, _ := lint("--include-suppressed")
	golden.ValidSARIF(t, "sarif with suppressed results", all.Bytes())
	if err := json.Unmarshal(all.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range log.Runs[0].Results {
		for _, s := range r.Suppressions {
			got[r.RuleID] = s.Kind + ": " + s.Justification
		}
	}
	want := map[string]string{
		"capability-floor": "inSource: checked by the server's own tests",
		"json-syntax":      "external: broken on purpose",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: suppression %q, want %q (all: %v)", id, got[id], w, got)
		}
	}
	plain, _ := lint()
	golden.ValidSARIF(t, "sarif without suppressed results", plain.Bytes())
	if err := json.Unmarshal(plain.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if n := len(log.Runs[0].Results); n != 0 {
		t.Errorf("sarif without --include-suppressed has %d results", n)
	}
}
