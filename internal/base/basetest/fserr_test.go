package basetest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/fserr"
)

func TestFserrPlain(t *testing.T) {
	dir := t.TempDir()
	_, err := os.ReadFile(dir)
	if got, want := fserr.Plain(err).Error(), dir+": is a directory"; got != want {
		t.Errorf("reading a directory: %q, want %q", got, want)
	}
	missing := filepath.Join(dir, "nope.json")
	_, err = os.Open(missing)
	if got, want := fserr.Plain(fmt.Errorf("wrapped: %w", err)).Error(), missing+": no such file or directory"; got != want {
		t.Errorf("a wrapped missing file: %q, want %q", got, want)
	}
	other := errors.New("not a file error")
	if fserr.Plain(other) != other {
		t.Error("an error that is no *fs.PathError must come back as it is")
	}
}
