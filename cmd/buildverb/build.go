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
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
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
	// Baseline is the earlier capture each build is compared with, as
	// lint compares it (defaults: baseline of pilotage.yaml), or "".
	Baseline string
	// Apply brings the lint report of each definition under
	// pilotage.yaml (severities, disabled rules, suppressions) as lint's
	// report is brought; nil leaves it as the rules raised it.
	Apply func(*report.Report)
	// Format is the report's format: "" or text lists the errors on
	// standard error; any other writes one report in it to standard
	// output, as pilotage lint --format writes it, and what build says
	// besides to standard error.
	Format report.Format
}

// machine says the report goes to standard output in p.Format.
func (p Params) machine() bool { return p.Format != "" && p.Format != report.Text }

// Build compiles the PDL files p names, lints what each builds as
// pilotage lint FILE.pdl would, and writes it, manifest, snapshot and
// guides, into p.Dir (DIR/<name>/ for each of several), naming each file
// written. Every file compiles and conforms before any build is written.
// In a machine format (Params.Format) standard output holds one report:
// the PDL errors and every lint finding of each definition that compiles.
// Its error carries the exit code (verb.Code): 1 when lint finds errors
// in a build, 2 for PDL errors, unreadable files and what cannot be
// written.
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
	var baseline *lint.Input
	if p.Baseline != "" {
		if baseline, err = verb.ReadBaseline(s, p.Baseline); err != nil {
			return err
		}
	}
	// Every definition compiles before any build is written. The
	// errors of those that do not are listed first, and those that do
	// are judged as well, so one broken file hides no other's findings.
	builds, failed, err := verb.CompilePDLs(names, "build", p.MaxPerRule)
	if err != nil {
		return err
	}
	// In a machine format the report holds every definition's findings
	// and the PDL errors, as lint's report of the same files does.
	var merged *report.Report
	if p.machine() {
		if merged, err = verb.ConformanceHead("pilotage build", baseline); err != nil {
			return verb.Usage("%v", err)
		}
	}
	var broken error
	switch {
	case failed != nil && merged != nil:
		merged.AddReport(failed)
		broken = &verb.ExitError{Code: verb.ExitUsage}
	case failed != nil:
		broken = verb.Unusable(s.Err, failed, p.Color)
	}
	// Each build is staged (written beside its files), then linted; only
	// when all conform are they moved in place. Ctrl-C meanwhile (lint
	// of a large Language takes seconds) removes what is staged.
	guard := verb.GuardSignals()
	defer guard.Stop()
	outs := make([]output, 0, len(builds))
	discard := func(outs []output) {
		for _, o := range outs {
			o.staged.Discard()
		}
	}
	// writeReport writes the machine format's report, once, and sends
	// what build says afterwards to standard error: it is no part of
	// the report.
	writeReport := func() error {
		if merged == nil {
			return nil
		}
		// Every input once, in the order named, as CompilePDLs counts
		// them.
		merged.Files, merged.Summary.Files = names, len(names)
		merged.Sort()
		merged.Dedupe()
		err := report.Write(s.Out, p.Format, merged, report.Options{})
		merged, s.Out = nil, s.Err
		if err != nil {
			return verb.Usage("writing standard output: %v", fserr.Plain(err))
		}
		return nil
	}
	conforms := true
	for i, res := range builds {
		if res == nil {
			continue
		}
		o, err := check(s, p, guard, res, names[i], dirs[i], baseline)
		if err != nil {
			discard(outs)
			// The PDL errors and the findings so far are reported
			// still, as text has printed them by now.
			if werr := writeReport(); werr != nil {
				return werr
			}
			return err
		}
		o.dir = dirs[i]
		if merged != nil {
			merged.AddReport(o.report)
			o.report = nil
		}
		outs = append(outs, o)
		conforms = conforms && o.conforms
		builds[i] = nil
	}
	if err := writeReport(); err != nil {
		discard(outs)
		return err
	}
	if broken != nil || !conforms {
		discard(outs)
		if broken != nil {
			return broken
		}
		return verb.Findings
	}
	for i, o := range outs {
		var err error
		// A signal waits for the files to be in place: none is left
		// half moved.
		guard.Do(func() func() {
			err = buildOne(s, o, o.dir)
			return nil
		})
		if err != nil {
			discard(outs[i+1:])
			return err
		}
	}
	return nil
}

// output is one definition's build, staged.
type output struct {
	staged *emit.Staged
	// sources are the definition's own files, never replaced or removed.
	sources  []string
	conforms bool
	dir      string // where it is built
	// report is lint's report of the build, kept for a machine format.
	report *report.Report
}

// check stages what res, the definition name compiled, builds into dir,
// and lints it. Lint's error findings are printed, with their source
// lines, and the build then does not conform; its warnings are counted
// in one line. baseline, when not nil, is what lint compares it with;
// guard discards the staged files on Ctrl-C.
func check(s verb.Streams, p Params, guard *verb.Guard, res *compile.Result, name, dir string, baseline *lint.Input) (output, error) {
	files, err := emit.FilesToWrite(res.Server)
	if err != nil {
		return output{}, verb.Usage("%s: %v", name, err)
	}
	out := output{sources: slices.Collect(maps.Keys(res.Sources))}
	// The files are staged before the rules run, and what they hold of
	// the model let go of (paths are all build needs of them again): with
	// them held through lint, build's peak was lint's plus the encoded
	// catalog, 9.7 to 9.8 bytes a byte of the generated Language where
	// its bound is 10 (TestGeneratedLanguagePeakRSS).
	guard.Do(func() func() {
		if out.staged, err = emit.Stage(dir, files, out.sources); err != nil {
			return nil
		}
		return out.staged.Discard
	})
	if err != nil {
		return output{}, verb.Usage("cannot write the build: %v", fserr.Plain(err))
	}
	li, err := pdllint.Prepare(name, res)
	// The lint input keeps what lint needs of the model (Locator,
	// Grammars); the rest need not be live while the rules run.
	res.Server = nil
	var rep *report.Report
	if err == nil {
		rep, err = verb.Conformance(name, li, res, p.MaxPerRule, p.Apply, baseline)
	}
	if err != nil {
		out.staged.Discard()
		return output{}, verb.Usage("%s: %v", name, err)
	}
	if p.machine() {
		out.report = rep
	}
	if rep.Summary.Errors == 0 {
		// In a machine format the report lists the warnings.
		if n := rep.Summary.Warnings; n > 0 && !p.machine() {
			them := "them"
			if n == 1 {
				them = "it"
			}
			fmt.Fprintf(s.Err, "%s: lint finds %s in the build; run pilotage lint %s to see %s\n", name, report.Count(n, "warning"), name, them)
		}
		out.conforms = true
		return out, nil
	}
	if p.machine() {
		fmt.Fprintf(s.Err, "pilotage build: %s, so nothing was written\n", verb.Verdict(rep, name))
		return out, nil
	}
	// Only the errors are listed, above lint's summary of them all.
	rep.Findings = slices.DeleteFunc(rep.Findings, func(f report.Finding) bool { return f.Severity != report.Error || f.Suppressed() })
	if err := report.Write(s.Err, report.Text, rep, report.Options{Color: p.Color}); err != nil {
		out.staged.Discard()
		return output{}, verb.Usage("writing errors: %v", err)
	}
	fmt.Fprintf(s.Err, "pilotage build: %s, so nothing was written; pilotage lint %s shows every finding, warnings too, and a finding meant to stay can be suppressed with a reason (docs/config.md)\n", verb.Verdict(rep, name), name)
	return out, nil
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

// buildOne moves one definition's staged build in place in dir.
func buildOne(s verb.Streams, o output, dir string) error {
	if err := o.staged.Commit(); err != nil {
		return verb.Usage("cannot write the build: %v", fserr.Plain(err))
	}
	paths := o.staged.Paths()
	for _, p := range paths {
		if err := verb.Printf(s, "wrote %s\n", outPath(dir, p)); err != nil {
			return err
		}
	}
	files := make([]emit.File, len(paths))
	for i, p := range paths {
		files[i].Path = p
	}
	// What was removed before a failure is named too.
	stale, err := emit.RemoveStale(dir, files, o.sources)
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
