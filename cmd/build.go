package cmd

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

type buildParams struct {
	dir        string
	color      string
	maxPerRule int
	verbose    bool
	// flags are the verb's, for --config.
	flags *pflag.FlagSet
}

func newBuildCmd() *cobra.Command {
	p := &buildParams{}
	c := &cobra.Command{
		Use:   "build FILE.pdl...",
		Short: "Compile a PDL definition into a manifest, a snapshot and guide files",
		Long: `Compile a PDL file (docs/pdl.md) and write what its Server publishes:

  DIR/manifest.json               the manifest (§5.1)
  DIR/snapshot.json               manifest, guides with bodies, catalogs (docs/snapshot.md)
  DIR/guides/<prefix>/<guide>.md  every guide, the generated closed-sets guide included;
                                  <prefix> is the Language's tool prefix (homeflow/v1: homeflow_v1)

Output is byte-identical for the same input. Building over an earlier
build replaces its files, and a *.md file left in a DIR/guides/<prefix>/
directory this build writes (a guide since removed or renamed in the PDL)
is removed, each named on standard error ("removed stale …"), so a server
or lint never reads a guide the definition no longer has. Nothing else is
deleted: a DIR/guides/ directory of no Language of this build (one renamed
or removed) is named on standard error and left for you to delete. The
definition's own files (the PDL and every file it names) are never
replaced or removed: a build that would write over one is refused before
anything is written. Every file is written beside its name first and
moved in place once all are written, so a build that cannot write one (a
full disk, a read-only guides directory) leaves the earlier build whole.

Several PDL files (or a directory, walked for its *.pdl files at any depth,
or a quoted glob such as 'langs/**/*.pdl') build each into DIR/<name>/, name
being the file's without .pdl; two files of one name are refused. Every
file is checked before any is written.

File names inside the PDL are
relative to its directory. When the PDL has errors, build writes nothing,
prints every error with its source line (at most --max-per-rule of one
rule, 50 by default; the rest are counted in one more finding, as lint
counts them), and exits 2. For the errors in a
machine format (json, sarif, github, junit), run pilotage lint FILE.pdl
--format …: it reports the same compile errors, then lints what build
would write.

Exit status: 0 written, 2 errors in the PDL, usage errors or unwritable output.`,
		Example: `  pilotage build langs/homeflow/homeflow.pdl
  pilotage build -o dist langs/calc/calc.pdl
  pilotage build -o dist langs/`,
		Args: needArgs(1, -1, "one or more FILE.pdl, directories or globs"),
		RunE: func(c *cobra.Command, args []string) error { return runBuild(streams(c), p, args) },
	}
	c.Flags().StringVarP(&p.dir, "output", "o", "out", "write into `DIR`")
	registerErrorColor(c, &p.color)
	maxPerRuleFlag(c, &p.maxPerRule)
	verboseFlag(c, &p.verbose)
	p.flags = c.Flags()
	return c
}

func runBuild(s stdio, p *buildParams, args []string) error {
	color, err := errorColor(s, p.color)
	if err != nil {
		return err
	}
	// "-" made a directory named "-" where every other verb's -o -
	// means standard output (an empty DIR is refused by refuseEmpty).
	if p.dir == "-" {
		return usageErr("build writes several files, so -o takes a DIR, not - (standard output)")
	}
	if err := verb.CheckMaxPerRule(p.maxPerRule); err != nil {
		return err
	}
	cfg, _, err := loadConfig(p.flags)
	if err != nil {
		return err
	}
	names, err := expandArgs(s, args, inputs.PDL, cfg, p.verbose)
	if err != nil {
		return err
	}
	dirs, err := buildDirs(p.dir, names)
	if err != nil {
		return err
	}
	// Every definition compiles before any build is written.
	var builds []*compile.Result
	for _, name := range names {
		res, err := loadPDL(s.err, name, color, p.maxPerRule)
		if err != nil {
			return err
		}
		builds = append(builds, res)
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
			return nil, usageErr("build of several files reads no standard input; name the files")
		}
		stem := strings.TrimSuffix(filepath.Base(name), ".pdl")
		if other, dup := seen[stem]; dup {
			return nil, usageErr("%s and %s would both build into %s; build them one at a time with -o", other, name, filepath.Join(dir, stem))
		}
		seen[stem] = name
		out[i] = filepath.Join(dir, stem)
	}
	return out, nil
}

// buildOne writes one compiled definition into dir.
func buildOne(s stdio, res *compile.Result, name, dir string) error {
	files, err := emit.Files(res.Server)
	if err != nil {
		return usageErr("%s: %v", name, err)
	}
	// The definition's own files are never replaced or removed.
	sources := slices.Collect(maps.Keys(res.Sources))
	if err := emit.Write(dir, files, sources); err != nil {
		return usageErr("cannot write the build: %v", fserr.Plain(err))
	}
	for _, f := range files {
		if err := printf(s, "wrote %s\n", outPath(dir, f.Path)); err != nil {
			return err
		}
	}
	// What was removed before a failure is named too.
	stale, err := emit.RemoveStale(dir, files, sources)
	for _, f := range stale.Removed {
		fmt.Fprintf(s.err, "removed stale %s\n", outPath(dir, f))
	}
	if err != nil {
		return usageErr("removing stale guides of an earlier build: %v", fserr.Plain(err))
	}
	for _, d := range stale.Left {
		fmt.Fprintf(s.err, "left %s: no Language of this build has that tool prefix; delete it if an earlier build wrote it\n", outPath(dir, d))
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
