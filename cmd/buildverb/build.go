// Package buildverb is pilotage build as a function: PDL files compiled
// and what they define written out as manifest, snapshot and guides.
package buildverb

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// Params are pilotage build's arguments and flags.
type Params struct {
	// Files are the FILE.pdl arguments: files, directories or globs.
	Files []string
	// Dir is the output directory (-o).
	Dir string
	// Color colours the PDL errors.
	Color bool
	// MaxPerRule bounds the errors of one rule listed per file.
	MaxPerRule int
	// Verbose names on standard error each file a walk skipped.
	Verbose bool
	// Ignored says which walked paths pilotage.yaml ignores; nil for none.
	Ignored func(path string) bool
}

// Build compiles the PDL files p names and writes what each builds,
// manifest, snapshot and guides, into p.Dir (DIR/<name>/ for each of
// several), naming each file written. Every file compiles before any
// build is written. Its error carries the exit code (verb.Code): 2 for
// PDL errors, unreadable files and what cannot be written.
func Build(_ context.Context, p Params, s verb.Streams) error {
	// "-" made a directory named "-" where every other verb's -o -
	// means standard output (an empty DIR is refused by refuseEmpty).
	if p.Dir == "-" {
		return verb.Usage("build writes several files, so -o takes a DIR, not - (standard output)")
	}
	if err := verb.CheckMaxPerRule(p.MaxPerRule); err != nil {
		return err
	}
	if err := verb.NoStdin("build", p.Files, "FILE.pdl files, directories or globs"); err != nil {
		return err
	}
	names, err := verb.Expand(s, p.Files, inputs.PDL, p.Ignored, p.Verbose)
	if err != nil {
		return err
	}
	dirs, err := buildDirs(p.Dir, names)
	if err != nil {
		return err
	}
	// Every definition compiles before any build is written.
	builds, err := verb.LoadPDLs(s.Err, names, "build", p.Color, p.MaxPerRule)
	if err != nil {
		return err
	}
	for i, res := range builds {
		if err := buildOne(s, res, names[i], dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

// buildDirs is where each named PDL file is built: DIR for one file,
// DIR/<name>/ for each of several, so their manifests do not collide.
func buildDirs(dir string, names []string) ([]string, error) {
	if len(names) == 1 {
		return []string{dir}, nil
	}
	seen := map[string]string{}
	out := make([]string, len(names))
	for i, name := range names {
		if name == "-" {
			return nil, verb.Usage("build of several files reads no standard input; name the files")
		}
		stem := strings.TrimSuffix(filepath.Base(name), ".pdl")
		if other, dup := seen[stem]; dup {
			return nil, verb.Usage("%s and %s would both build into %s; build them one at a time with -o", other, name, filepath.Join(dir, stem))
		}
		seen[stem] = name
		out[i] = filepath.Join(dir, stem)
	}
	return out, nil
}

// buildOne writes one compiled definition into dir.
func buildOne(s verb.Streams, res *compile.Result, name, dir string) error {
	files, err := emit.FilesToWrite(res.Server)
	if err != nil {
		return verb.Usage("%s: %v", name, err)
	}
	// The definition's own files are never replaced or removed.
	sources := slices.Collect(maps.Keys(res.Sources))
	if err := emit.Write(dir, files, sources); err != nil {
		return verb.Usage("cannot write the build: %v", fserr.Plain(err))
	}
	for _, f := range files {
		if err := verb.Printf(s, "wrote %s\n", outPath(dir, f.Path)); err != nil {
			return err
		}
	}
	// What was removed before a failure is named too.
	stale, err := emit.RemoveStale(dir, files, sources)
	for _, f := range stale.Removed {
		fmt.Fprintf(s.Err, "removed stale %s\n", outPath(dir, f))
	}
	if err != nil {
		return verb.Usage("removing stale guides of an earlier build: %v", fserr.Plain(err))
	}
	for _, d := range stale.Left {
		fmt.Fprintf(s.Err, "left %s: no Language of this build has that tool prefix; delete it if an earlier build wrote it\n", outPath(dir, d))
	}
	return nil
}

// outPath is a path under the output directory as build names it.
func outPath(dir, rel string) string {
	p := filepath.ToSlash(filepath.Join(dir, rel))
	if strings.HasSuffix(rel, "/") {
		p += "/"
	}
	return p
}
