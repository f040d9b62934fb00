package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	homeflowPDL  = "../langs/homeflow/homeflow.pdl"
	eveningJSON  = "../langs/homeflow/programs/evening.json"
	eveningInput = "../langs/homeflow/programs/evening.input.json"
	examplePlan  = "../docs/examples/replay/plan.json"
	exampleTrace = "../docs/examples/replay/trace.json"
	exampleSnap  = "../docs/examples/snapshot.json"
)

// fileVerbs are command lines in which one file, FUZZ, comes from the
// fuzzer and every other is a real example: each file a verb reads from a
// user, in the role the verb gives it.
var fileVerbs = [][]string{
	{"lint", "FUZZ.json"},
	{"lint", "FUZZ.pdl"},
	{"replay", "FUZZ.json", "--plan", examplePlan},
	{"replay", exampleTrace, "--plan", "FUZZ.json"},
	{"replay", exampleTrace, "--plan", examplePlan, "--snapshot", "FUZZ.json"},
	{"replay", exampleTrace, "--plan", examplePlan, "--lang", "FUZZ.pdl"},
	{"validate", "--lang", homeflowPDL, "--principal", "owner", "FUZZ.json"},
	{"validate", "--lang", homeflowPDL, "--principal", "owner", "--context", "FUZZ.json", eveningJSON},
	{"validate", "--lang", "FUZZ.pdl", eveningJSON},
	{"run", "--lang", homeflowPDL, "--principal", "owner", "--input", eveningInput, "FUZZ.json"},
	{"run", "--lang", homeflowPDL, "--principal", "owner", "--input", "FUZZ.json", eveningJSON},
	{"build", "-o", "OUT", "FUZZ.pdl"},
	{"fmt", "-d", "FUZZ.pdl"},
}

// FuzzFileArguments runs the command line in-process on arbitrary file
// contents. Whatever a file holds, the exit code is one of the three the
// command line documents (0, 1, 2: root.go), an exit 2 says why on
// standard error (after "pilotage:", or as located PDL errors), nothing
// panics, and with --format
// json the report on standard output is JSON.
func FuzzFileArguments(f *testing.F) {
	for i, v := range fileVerbs {
		for _, seed := range []string{homeflowPDL, eveningJSON, examplePlan, exampleTrace, exampleSnap} {
			if strings.HasSuffix(seed, ".pdl") == strings.Contains(strings.Join(v, " "), "FUZZ.pdl") {
				if b, err := os.ReadFile(seed); err == nil {
					f.Add(uint8(i), b, i%2 == 0)
				}
			}
		}
	}
	homeflowDir, err := filepath.Abs(filepath.Dir(homeflowPDL))
	if err != nil {
		f.Fatal(err)
	}
	// One directory serves every input (they run one after another in a
	// process), what the last one wrote removed first, so no input sees
	// another's files: a directory and two links per input cost more than
	// most commands do. A PDL file names its schemas and guides relative to
	// its directory: homeflow's are linked in, so the homeflow seed
	// compiles and mutations of it reach past the file references.
	dir := f.TempDir()
	for _, sub := range []string{"schemas", "guides"} {
		if err := os.Symlink(filepath.Join(homeflowDir, sub), filepath.Join(dir, sub)); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, verb uint8, content []byte, asJSON bool) {
		for _, name := range []string{"FUZZ.json", "FUZZ.pdl", "out"} {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		var args []string
		jsonFormat := false
		for _, a := range fileVerbs[int(verb)%len(fileVerbs)] {
			switch {
			case strings.HasPrefix(a, "FUZZ"):
				a = filepath.Join(dir, a)
				if err := os.WriteFile(a, content, 0o644); err != nil {
					t.Fatal(err)
				}
			case a == "OUT":
				a = filepath.Join(dir, "out")
			}
			args = append(args, a)
		}
		if asJSON && args[0] != "build" && args[0] != "fmt" {
			args = append(args, "--format", "json")
			jsonFormat = true
		}
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%v took %v", args, d)
		}
		switch {
		case code != ExitOK && code != ExitFindings && code != ExitUsage:
			t.Fatalf("%v: exit %d\n%s", args, code, stderr.String())
		case code == ExitUsage && !strings.Contains(stderr.String(), "pilotage: ") && !strings.Contains(stderr.String(), ": error: "):
			t.Fatalf("%v: exit 2 without saying why:\n%s", args, stderr.String())
		case code != ExitUsage && jsonFormat && !json.Valid(stdout.Bytes()):
			t.Fatalf("%v: exit %d with a --format json output that is not JSON:\n%s", args, code, stdout.String())
		}
	})
}
