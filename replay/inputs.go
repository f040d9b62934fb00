package replay

import (
	"io"
	"os"
	"path/filepath"

	"github.com/pilotage-dev/pilotage/internal/base/fserr"
)

// Inputs are the TRACE files of pilotage replay, once directories and
// globs are expanded (internal/base/inputs): - reads stdin, which the
// caller names once at most; a file is opened only when Run reaches it.
func Inputs(files []string, stdin io.Reader) []Input {
	out := make([]Input, len(files))
	for i, name := range files {
		if name == "-" {
			out[i] = Input{File: "-", Open: func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }}
			continue
		}
		out[i] = fileInput(name)
	}
	return out
}

func fileInput(name string) Input {
	return Input{File: filepath.ToSlash(name), Open: func() (io.ReadCloser, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, fserr.Plain(err)
		}
		return f, nil
	}}
}
