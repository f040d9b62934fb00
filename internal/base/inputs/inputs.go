// Package inputs expands a verb's file arguments, and reads one whole
// within a bound (ReadFile). Expansion takes a file as named, a
// directory walked for the files the verb can use, a quoted glob
// ('langs/**/*.pdl') matched under its base directory; what a walk or
// glob leaves out is reported with the reason, for --verbose.
package inputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/pathglob"
)

// Picker is what a verb takes from a walk or a glob.
type Picker struct {
	// Exts are the file name endings considered (".pdl", ".json"); a
	// file with another ending is passed over without mention.
	Exts []string
	// Take decides about a considered file; why says what it is when it
	// is not taken ("a trace: replay checks it"). nil takes every file.
	Take func(name string) (ok bool, why string)
	// Looking names what the verb looks for, for the error of a
	// directory or glob that holds none: "manifests, snapshots or PDL
	// files (*.json, *.pdl)".
	Looking string
}

// Skipped is a file a walk or glob left out, and why.
type Skipped struct {
	File string
	Why  string
}

// Options of Expand.
type Options struct {
	// Ignored reports a path pilotage.yaml's ignore patterns match; nil
	// ignores nothing. Files named directly are never ignored.
	Ignored func(path string) bool
	// Exclude are files the verb reads otherwise (replay's --plan), left
	// out of walks without mention.
	Exclude []string
	// Verbose says the skipped files are named (--verbose), so the error
	// of a walk that gave none points to that list rather than to the
	// flag already given.
	Verbose bool
}

// Expand turns args into the files to read, in order: "-" and a named
// file as they are (a missing one too, so the verb says it cannot read
// it), a directory's files in name order at any depth, a glob's matches
// in name order, each file once (unique). A directory or glob giving no
// file is an error naming what was looked for; skipped is returned with
// it, so --verbose can still say what was there.
func Expand(args []string, p Picker, opt Options) (files []string, skipped []Skipped, err error) {
	exclude := map[string]bool{}
	for _, x := range opt.Exclude {
		if abs, err := filepath.Abs(x); err == nil && x != "" && x != "-" {
			exclude[abs] = true
		}
	}
	w := &walker{p: p, opt: opt, exclude: exclude}
	for _, a := range args {
		if a == "-" {
			files = append(files, a)
			continue
		}
		st, statErr := os.Stat(a)
		var walk func(string) ([]string, error)
		where := "in the directory"
		switch {
		case statErr == nil && st.IsDir():
			walk = w.dir
		case statErr != nil && pathglob.HasMeta(a):
			walk, where = w.glob, "match the pattern"
		default:
			files = append(files, a)
			continue
		}
		got, err := walk(a)
		if err != nil {
			return nil, nil, err
		}
		if len(got) == 0 {
			return nil, w.skipped, w.none(a, where)
		}
		files = append(files, got...)
	}
	return unique(files), w.skipped, nil
}

// unique drops each file named again after its first mention: by the
// same path however written (a.pdl, ./a.pdl), through a link, or in the
// walk of a directory that holds a file named before. A file read twice
// has each of its findings reported, and counted, twice. A file that
// cannot be stat'ed stays, once per path, for the verb to say why.
func unique(files []string) []string {
	seen := map[string]bool{}
	var same FileSet
	out := files[:0]
	for _, f := range files {
		if f != "-" {
			key := filepath.Clean(f)
			if abs, err := filepath.Abs(f); err == nil {
				key = abs
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			if fi, err := os.Stat(f); err == nil {
				if same.Has(fi) {
					continue
				}
				same.Add(fi)
			}
		}
		out = append(out, f)
	}
	return out
}

type walker struct {
	p       Picker
	opt     Options
	exclude map[string]bool
	skipped []Skipped
	// from is where the current argument's skips start in skipped.
	from int
}

// none is the error of a directory or glob that gave no file.
func (w *walker) none(arg, where string) error {
	msg := fmt.Sprintf("%s: no %s %s", arg, w.p.Looking, where)
	if n := len(w.skipped) - w.from; n > 0 {
		names := "--verbose names them"
		if w.opt.Verbose {
			names = "named above"
		}
		msg += fmt.Sprintf("; %d other file(s) skipped, %s", n, names)
	}
	return errors.New(msg)
}

// consider decides about one file met in a walk.
func (w *walker) consider(name string, out *[]string) {
	if !slices.ContainsFunc(w.p.Exts, func(e string) bool { return strings.HasSuffix(name, e) }) {
		return
	}
	if abs, err := filepath.Abs(name); err == nil && w.exclude[abs] {
		return
	}
	if w.opt.Ignored != nil && w.opt.Ignored(name) {
		w.skip(name, "ignored by pilotage.yaml")
		return
	}
	if w.p.Take != nil {
		if ok, why := w.p.Take(name); !ok {
			w.skip(name, why)
			return
		}
	}
	*out = append(*out, name)
}

func (w *walker) skip(name, why string) {
	w.skipped = append(w.skipped, Skipped{File: name, Why: why})
}

// dir walks root in name order. Hidden directories (.git) are not
// entered; a symbolic link to a file is followed (CI artifact
// directories are full of them), one to a directory is not (it could
// lead back up), and one that leads nowhere is an error naming it.
func (w *walker) dir(root string) ([]string, error) {
	w.from = len(w.skipped)
	var out []string
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if name != root && w.opt.Ignored != nil && w.opt.Ignored(name) {
				w.skip(name+"/", "ignored by pilotage.yaml")
				return filepath.SkipDir
			}
			return nil
		}
		name = filepath.ToSlash(name)
		if d.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(name)
			if err != nil {
				target, _ := os.Readlink(name)
				return fmt.Errorf("%s: a symbolic link to %s, which cannot be followed: %w; restore its target or remove the link", name, target, errors.Unwrap(err))
			}
			if !st.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		w.consider(name, &out)
		return nil
	})
	return out, err
}

// glob expands a pattern under its base directory.
func (w *walker) glob(pattern string) ([]string, error) {
	pattern = filepath.ToSlash(pattern)
	if err := pathglob.Validate(pattern); err != nil {
		return nil, fmt.Errorf("%s: %v", pattern, err)
	}
	base := pathglob.Base(pattern)
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return nil, nil
	}
	all, err := w.dir(base)
	if err != nil {
		return nil, err
	}
	// dir considered every file under base; keep the matches, and only
	// the skips that match too.
	match := func(name string) bool {
		return pathglob.Match(strings.TrimPrefix(pattern, "./"), strings.TrimPrefix(name, "./"))
	}
	out := slices.DeleteFunc(all, func(name string) bool { return !match(name) })
	mine := slices.DeleteFunc(w.skipped[w.from:], func(s Skipped) bool { return !strings.HasSuffix(s.File, "/") && !match(s.File) })
	w.skipped = w.skipped[:w.from+len(mine)]
	return out, nil
}
