package testcase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestUpdateNothingToWrite: an expectation the engine gave no answer for
// (a narration the trace fetch did not give) is a Refusal, left as it
// was, so the case is not counted as updated while it still fails.
func TestUpdateNothingToWrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    expect:\n      narration:\n"
	f, err := Parse(filepath.Join(dir, "tests", "case.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases[0]
	got := &Got{Validate: &pilotage.ValidateResponse{Valid: true}, Execute: &pilotage.ExecuteResponse{}}
	failed := Check(c, got)
	if len(failed) != 1 || failed[0].Key != "narration" {
		t.Fatalf("Check: %+v, want the blank narration's failure", failed)
	}
	refused, err := Update(c, got, failed)
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 1 || refused[0].Key != "narration" || !strings.Contains(refused[0].Msg, "gave no narration") {
		t.Errorf("refused %+v, want the narration's", refused)
	}
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "narration:\n") {
		t.Errorf("the narration was rewritten:\n%s", b)
	}
}
