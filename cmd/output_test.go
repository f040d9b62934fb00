package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fullDisk is a standard output on which every write fails, as on a full
// disk or a device such as /dev/full.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestFailedStdoutWrite: a verb whose standard output cannot be written
// exits 2 and says so, instead of exiting 0 with its output lost (fmt
// x.pdl > y.pdl on a full disk left y.pdl cut short) or blaming the
// command line ("Run 'pilotage lint --help' for usage").
func TestFailedStdoutWrite(t *testing.T) {
	messy := filepath.Join(t.TempDir(), "messy.pdl")
	if err := os.WriteFile(messy, []byte("language  \"x/v1\"  {\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"fmt", homeflowPDL},
		{"fmt", "-l", messy},
		{"fmt", "-d", messy},
		{"build", "-o", filepath.Join(t.TempDir(), "out"), homeflowPDL},
		{"version"},
		{"lint", "--list-rules"},
		{"replay", "--list-rules", "--format", "json"},
		{"lint", exampleSnap},
		{"validate", "--lang", homeflowPDL, "--principal", "owner", eveningJSON},
		{"run", "--lang", homeflowPDL, "--principal", "owner", "--input", eveningInput, "--trace-level", "none", eveningJSON},
		{"plan", "--lang", homeflowPDL, "--principal", "owner", eveningJSON},
	} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), fullDisk{}, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), "no space left on device") || strings.Contains(stderr.String(), "--help") {
			t.Errorf("%v onto a full disk: exit %d, want %d with the reason\n%s", args, code, ExitUsage, stderr.String())
		}
	}
}

// TestFlagValuesClipped: a usage error quotes the flag value it refuses
// clipped (report.Clip), so a 100 KB value is a one-line message, not a
// 100 KB echo of the command line.
func TestFlagValuesClipped(t *testing.T) {
	long := strings.Repeat("p", 100_000)
	for _, args := range [][]string{
		{"lint", "-f", long, exampleSnap},
		{"lint", "--color", long, exampleSnap},
		{"version", "--format", long},
		{"validate", "--lang", homeflowPDL, "--principal", long, eveningJSON},
		{"test", "--run", long + "(", homeflowPDL},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != ExitUsage || stderr.Len() > 1000 || !strings.Contains(stderr.String(), "ppp…") {
			t.Errorf("%.40q: exit %d, want %d with the value clipped; %d bytes of stderr: %.300s", args, code, ExitUsage, stderr.Len(), stderr.String())
		}
	}
}
