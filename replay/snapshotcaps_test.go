package replay

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// TestSnapshotEffectiveCapabilities: the manifest's Server-level
// declaration of execute and trace_fetch governs a Language that does not
// name them itself, with or without test_run and narrate, and a
// Language-level declaration replaces it in full (§4.2); a test_run trace
// (§6.5.7) and a narrated response (§6.6) are findings exactly when the
// effective capabilities lack the sub-feature.
func TestSnapshotEffectiveCapabilities(t *testing.T) {
	a := golden.ReadArchive(t, filepath.Join("testdata", "server-capabilities.txtar"))
	planSrc, _ := a.File("plan.json")
	plan, err := LoadPlan("plan.json", planSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	const notDeclared = "narrated.json:1:77 error fetch-narration §6.6 /narration key=r2\n" +
		"test_run.json:1:92 error trace-mode §6.5.7 /mode key=r1\n"
	for _, tt := range []struct {
		snapshot         string
		testRun, narrate bool
		want             string
	}{
		{"server.json", true, true, ""},
		{"server-off.json", false, false, notDeclared},
		{"language.json", false, false, notDeclared},
	} {
		t.Run(tt.snapshot, func(t *testing.T) {
			src, _ := a.File(tt.snapshot)
			l, err := LoadSnapshot(tt.snapshot, src, "")
			if err != nil {
				t.Fatal(err)
			}
			if l.TestRun != tt.testRun || l.Narrate != tt.narrate {
				t.Errorf("TestRun, Narrate = %v, %v; want %v, %v", l.TestRun, l.Narrate, tt.testRun, tt.narrate)
			}
			var inputs []Input
			for _, name := range []string{"test_run.json", "narrated.json"} {
				data, _ := a.File(name)
				inputs = append(inputs, Input{File: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
			}
			rep, err := Run(plan, inputs, Options{Language: l})
			if err != nil {
				t.Fatal(err)
			}
			if got := render(rep, ""); got != tt.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
