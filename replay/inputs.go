package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/fserr"
)

// Inputs expands the TRACE arguments of pilotage replay: a file as
// given, a directory to its *.json files in name order (leaving out the
// files named in exclude, such as the plan and snapshot when they live
// there), and - to stdin, which the caller names once at most. Files are
// opened only when Run reaches them.
func Inputs(args, exclude []string, stdin io.Reader) ([]Input, error) {
	skip := map[string]bool{}
	for _, x := range exclude {
		if abs, err := filepath.Abs(x); err == nil && x != "" && x != "-" {
			skip[abs] = true
		}
	}
	var inputs []Input
	for _, a := range args {
		if a == "-" {
			inputs = append(inputs, Input{File: "-", Open: func() (io.ReadCloser, error) { return io.NopCloser(stdin), nil }})
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, fserr.Plain(err)
		}
		if !st.IsDir() {
			inputs = append(inputs, fileInput(a))
			continue
		}
		names, err := traceFiles(a)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, name := range names {
			if abs, err := filepath.Abs(name); err == nil && skip[abs] {
				continue
			}
			inputs = append(inputs, fileInput(name))
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no trace files (*.json) in the directory", a)
		}
	}
	return inputs, nil
}

// traceFiles lists the regular *.json files of dir, in name order.
func traceFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fserr.Plain(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		name := filepath.Join(dir, e.Name())
		regular := e.Type().IsRegular()
		if e.Type()&fs.ModeSymlink != 0 {
			// A symlinked trace (CI artifact directories are full of
			// them) is a trace; skipping it would pass a broken one
			// unseen. A link that leads nowhere is named, not skipped.
			st, err := os.Stat(name)
			if err != nil {
				return nil, danglingLinkErr(name, err)
			}
			regular = st.Mode().IsRegular()
		}
		if regular {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// danglingLinkErr words the failure to follow the symbolic link name
// found in a trace directory: the user sees the link in a listing, so
// "no such file or directory" alone reads as a contradiction; the target
// says which file is missing.
func danglingLinkErr(name string, err error) error {
	target, lerr := os.Readlink(name)
	var pe *fs.PathError
	if lerr != nil || !errors.As(err, &pe) {
		return fserr.Plain(err)
	}
	return fmt.Errorf("%s: a symbolic link to %s, which cannot be followed: %v; restore its target or remove the link", name, target, pe.Err)
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
