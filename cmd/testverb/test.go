// Package testverb is pilotage test as a function: the case files under
// the paths given, run against their Languages, reported as findings at
// the lines of what failed, optionally rewritten and measured for coverage.
package testverb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/workbench/langtest"
)

// Params are pilotage test's arguments and flags.
type Params struct {
	// Paths are case files, or directories searched for tests/*.yaml.
	Paths []string
	// Run selects the cases whose name matches; nil runs them all.
	Run *regexp.Regexp
	// Update rewrites failed expectations; Coverage adds the coverage.
	Update, Coverage bool
	Format           report.Format
	Output           string // -o; "" is standard output
	Color            bool
	Verbose          bool
	// Ignored says which walked paths pilotage.yaml ignores; nil for none.
	Ignored func(path string) bool
	// Read, when set, is told the bytes the run reads in all as it learns
	// them: the case files, then each PDL they name as its first case
	// runs. cmd sets a soft memory limit from them (limitMemory): a run
	// holds one case at a time, but the collector lets the heap grow to
	// twice what it last found live.
	Read func(size int64)
}

// caseBound is what is read of a case file: testcase refuses a larger one.
var caseBound = inputs.Bound{Bytes: testcase.MaxFile, Of: "the most a case file may hold", Hint: "split it into several files"}

// Test runs the cases and writes the report; the error carries the exit
// code (verb.Findings when a case failed).
func Test(_ context.Context, p Params, s verb.Streams) error {
	if err := verb.NoStdin("test", p.Paths, "case files (*.yaml) or directories holding tests/*.yaml"); err != nil {
		return err
	}
	for _, path := range p.Paths {
		// A PDL given to test means its corpus, which is beside it.
		if strings.EqualFold(filepath.Ext(path), ".pdl") {
			return verb.Usage("%s is a PDL file; test takes case files (*.yaml) or directories holding tests/*.yaml: pilotage test %s", path, filepath.Dir(path))
		}
	}
	names, err := verb.Expand(s, p.Paths, inputs.Test, p.Ignored, p.Verbose)
	if err != nil {
		return err
	}
	// Every file is read before the report starts, so one that cannot be
	// is a usage error with no report, as before any case runs.
	rep := &report.Report{Tool: "pilotage test", Files: names, Sources: map[string][]byte{}}
	var size int64
	for _, name := range names {
		src, err := inputs.ReadFile(name, caseBound)
		if err != nil {
			return verb.Usage("%v", verb.ReadErr(err))
		}
		// A program (or a plan, a trace) named here is YAML too, and
		// would be reported key by key as a case file missing its cases.
		if k := inputs.RecognizeSrc(src); k != inputs.Unknown {
			return verb.Usage("%s: this looks like %s, not a test case file; %s; pilotage test runs case files (tests/*.yaml, docs/test.md)", name, k, k.Use())
		}
		rep.Sources[name] = src
		size += int64(len(src))
	}
	t := &run{p: p, rep: rep, cov: map[*language.Language]*testcase.Coverage{}, pdls: map[string]bool{}}
	t.read(size)
	// --update writes the report once every file is rewritten, and json
	// with --coverage wraps it: both write it whole from a buffer.
	coverageJSON := p.Coverage && p.Format == report.JSON
	if p.Update || coverageJSON {
		var b bytes.Buffer
		if err := t.report(&b); err != nil {
			return err
		}
		if err := t.updateFiles(s); err != nil {
			return err
		}
		if t.noneSelected() {
			// No report, not even --coverage's wrapper of one.
			return t.noneError()
		}
		err = verb.WriteOutputNoted(s, p.Output, "the report", t.counts, func(w io.Writer) error {
			if coverageJSON {
				return testcase.WriteJSON(w, b.Bytes(), t.covOrder)
			}
			_, err := w.Write(b.Bytes())
			return err
		})
	} else {
		err = verb.WriteOutputNoted(s, p.Output, "the report", t.counts, func(w io.Writer) error {
			if err := t.report(w); err != nil {
				return err
			}
			if t.noneSelected() {
				// -o FILE is left as it was, not said to be written.
				return errNoneSelected
			}
			return nil
		})
	}
	switch {
	case t.noneSelected():
		// Nothing was written (errNoneSelected stopped it).
		return t.noneError()
	case err != nil:
		return err
	case t.pdlFailed:
		return &verb.ExitError{Code: verb.ExitUsage}
	case rep.Failed(false):
		return verb.Findings
	}
	return nil
}

// errNoneSelected stops a report's writing when --run selected no case.
var errNoneSelected = errors.New("no case selected")

// noneError is the usage error of a --run that selects no case: a
// mistyped flag, not a corpus that passes, which CI would pass for ever.
func (t *run) noneError() error {
	msg := fmt.Sprintf("--run %q matches no case (of %s)", t.p.Run, report.Count(t.skipped, "case"))
	if t.nearest != "" {
		msg += fmt.Sprintf("; did you mean %q?", t.nearest)
	}
	return verb.Usage("%s", msg)
}

// run is one pilotage test: what it keeps of the cases while they run,
// to report them as they finish.
type run struct {
	p   Params
	rep *report.Report
	// cases and failed count the cases for the text report's last line;
	// pdlFailed is a case whose PDL is unusable.
	cases, failed int
	pdlFailed     bool
	// cov is --coverage's, a Language's in the order first met.
	cov      map[*language.Language]*testcase.Coverage
	covOrder []*testcase.Coverage
	// changed are the files --update rewrote expectations of, in the
	// order run; updErr is the first rewrite that failed; refused the
	// expectations left as they were, an answer too deep to state.
	changed []*testcase.File
	updErr  error
	refused []string
	// size is the bytes read, told to Params.Read, and pdls the PDLs
	// counted in it.
	size int64
	pdls map[string]bool
	// skipped counts the cases --run did not select, and nearest is the
	// name of one it may have meant (langtest.Runner.Nearest).
	skipped int
	nearest string
}

// counts is the last line of the text report, and what the terminal is
// told of a report written to a file.
func (t *run) counts() string {
	return fmt.Sprintf("%s, %d passed, %d failed", report.Count(t.cases, "case"), t.cases-t.failed, t.failed)
}

// read adds n bytes to what the run reads.
func (t *run) read(n int64) {
	if t.size += n; t.p.Read != nil {
		t.p.Read(t.size)
	}
}

// fileRun is what a file's cases gave, which counts once the file has
// read to its end (a file is all or nothing: langtest.Runner.File).
type fileRun struct {
	findings      []report.Finding
	cases, failed int
	pdlFailed     bool
	// kept are the Outcomes --coverage and --update read.
	kept []langtest.Outcome
}

// report runs every case and writes the report to w file by file, as
// each file's cases finish, in report.Sort's order: a file's findings are
// released once no file still to run sorts before it. A passing corpus
// holds one case at a time, not every case's outcome.
func (t *run) report(w io.Writer) error {
	p, rep := t.p, t.rep
	st := report.NewStream(w, p.Format, rep, report.Options{Color: p.Color})
	r := langtest.NewRunner(langtest.Params{Run: p.Run})
	defer r.Close()
	refs := testcase.NewRefs()
	// ahead are the names of the files not yet run, sorted.
	ahead := slices.Sorted(slices.Values(rep.Files))
	for _, name := range rep.Files {
		i, _ := slices.BinarySearch(ahead, name)
		ahead = slices.Delete(ahead, i, i+1)
		// --update rewrites the files, which takes their YAML trees; a
		// run reads them a case at a time where it can, holding none.
		read := refs.Read
		if p.Update {
			read = refs.Parse
		}
		f, err := read(name, rep.Sources[name])
		var pe *testcase.Error
		switch {
		case errors.As(err, &pe):
		case err != nil:
			return err
		default:
			if !t.pdls[f.PDL] {
				t.pdls[f.PDL] = true
				if info, err := os.Stat(f.PDL); err == nil {
					t.read(info.Size())
				}
			}
			var fr fileRun
			if pe = r.File(f, fr.add(p)); pe == nil {
				t.count(st, &fr)
			}
		}
		if pe != nil {
			// An error in a file a case names is quoted from that file.
			// It sorts by that file's name, so it is written among the
			// findings still held, before any file's later in the run,
			// but after those of files that sort after it and were
			// written already: the one place the streamed report's order
			// is not Sort's.
			for _, e := range append([]*testcase.Error{pe}, pe.More...) {
				if e.Src != nil {
					rep.Sources[e.File] = e.Src
				}
			}
			st.Add(r.Broken(pe)...)
		}
		if len(ahead) > 0 {
			if err := st.Flush(ahead[0], 0); err != nil {
				return err
			}
		}
	}
	t.skipped, t.nearest = r.Skipped, r.Nearest()
	rep.Summary.Cases = &report.Cases{Cases: t.cases, Passed: t.cases - t.failed, Failed: t.failed}
	if t.noneSelected() {
		// Test says so, as a usage error, which writes no report: an
		// empty one, or a count of no cases, would read as a run. No
		// finding was written: every finding of a case file is an error.
		return nil
	}
	if p.Format != report.Text {
		return st.Close()
	}
	// In text, findings come with their count; a corpus that passes
	// says so in one line, the cases', not with an empty count first.
	if n := rep.Summary; n.Errors+n.Warnings+n.Infos+n.Suppressed > 0 {
		if err := st.Close(); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(w, t.counts()); err != nil {
		return err
	}
	return testcase.WriteText(w, t.covOrder)
}

// noneSelected reports whether --run selected no case of files that
// read and ran: a mistyped flag, not a corpus that passes.
func (t *run) noneSelected() bool {
	return t.p.Run != nil && t.cases == 0 && !t.rep.Failed(false)
}

// add is what keeps a case's outcome in fr: its findings and counts, and
// the Outcome itself only for --coverage and --update.
func (fr *fileRun) add(p Params) func(langtest.Outcome) {
	return func(o langtest.Outcome) {
		fr.cases++
		if !p.Update {
			fr.findings = append(fr.findings, o.Unmet...)
		}
		if len(o.Findings) > 0 || !p.Update && len(o.Unmet) > 0 {
			fr.failed++
		}
		pdl := slices.ContainsFunc(o.Findings, func(f report.Finding) bool { return f.Rule == langtest.RulePDL })
		if !pdl || !fr.pdlFailed {
			// A PDL that does not load is one finding a file, at its
			// pdl:, though each of its cases fails.
			fr.findings = append(fr.findings, o.Findings...)
		}
		fr.pdlFailed = fr.pdlFailed || pdl
		if p.Coverage || p.Update {
			fr.kept = append(fr.kept, o)
		}
	}
}

// count reports the cases of a file that read to its end.
func (t *run) count(st *report.Stream, fr *fileRun) {
	for _, o := range fr.kept {
		if t.p.Coverage && o.Lang != nil {
			cv := t.cov[o.Lang]
			if cv == nil {
				cv = testcase.NewCoverage(o.Server, o.Lang, o.File.PDL)
				t.cov[o.Lang] = cv
				t.covOrder = append(t.covOrder, cv)
			}
			cv.Add(o.Case, o.Got)
		}
		if t.p.Update {
			fr.refused(o, t.update(o))
		}
	}
	st.Add(fr.findings...)
	t.cases += fr.cases
	t.failed += fr.failed
	t.pdlFailed = t.pdlFailed || fr.pdlFailed
}

// refused keeps the case's findings of the expectations --update left as
// they were, and counts it failed, as without --update.
func (fr *fileRun) refused(o langtest.Outcome, keys []string) {
	if len(keys) == 0 {
		return
	}
	for _, u := range o.Unmet {
		if slices.ContainsFunc(keys, func(k string) bool { return u.Rule == "test-"+k }) {
			fr.findings = append(fr.findings, u)
		}
	}
	if len(o.Findings) == 0 {
		fr.failed++
	}
}

// update rewrites the expectations of a case that ran, for --update,
// and returns the keys of those it left as they were.
func (t *run) update(o langtest.Outcome) (refused []string) {
	if t.updErr != nil || o.Got == nil || len(o.Failures) == 0 && len(o.Case.Expect.Lines) > 0 {
		return nil
	}
	rs, err := testcase.Update(o.Case, o.Got, o.Failures)
	if err != nil {
		t.updErr = verb.Usage("--update %s: %v", o.File.Name, err)
		return nil
	}
	for _, r := range rs {
		t.refused = append(t.refused, o.File.Name+": "+r.Msg)
		refused = append(refused, r.Key)
	}
	rewrote := slices.ContainsFunc(o.Failures, func(f testcase.Failure) bool { return !slices.Contains(refused, f.Key) })
	if n := len(t.changed); rewrote && (n == 0 || t.changed[n-1] != o.File) {
		t.changed = append(t.changed, o.File)
	}
	return refused
}

// updateFiles writes back the files --update rewrote expectations of.
// A file the rewrite leaves byte for byte as it is is not written, so
// its modification time stays (a build that watches it does not run
// again), and a run that writes no file says so.
func (t *run) updateFiles(s verb.Streams) error {
	if t.updErr != nil {
		return t.updErr
	}
	for _, r := range t.refused {
		fmt.Fprintf(s.Err, "not updated: %s\n", r)
	}
	wrote := 0
	for _, f := range t.changed {
		b, err := f.Marshal()
		if err != nil {
			return verb.Usage("--update %s: %v", f.Name, err)
		}
		if sameContent(f.Name, b) {
			continue
		}
		if err := os.WriteFile(f.Name, b, 0o644); err != nil {
			return verb.Usage("--update: %v", err)
		}
		fmt.Fprintf(s.Err, "updated %s\n", f.Name)
		wrote++
	}
	// A --run that selected no case checked nothing: Test says only
	// that, as a usage error.
	if t.p.Update && wrote == 0 && !t.noneSelected() {
		fmt.Fprintln(s.Err, t.noUpdate())
	}
	return nil
}

// noUpdate is what --update says when it wrote no file: the cases that
// still fail, which it does not rewrite (a bad stub, an answer too deep
// to state), or, when none failed and nothing else did, that the
// expectations hold. A file that does not read fails with no case.
func (t *run) noUpdate() string {
	switch {
	case t.failed > 0:
		fail := "fail"
		if t.failed == 1 {
			fail = "fails"
		}
		return fmt.Sprintf("no file updated: %s %s for reasons --update does not rewrite", report.Count(t.failed, "case"), fail)
	case t.rep.Failed(false):
		return "no file updated"
	}
	return "no file updated: the expectations already hold"
}

// sameContent reports whether the file name holds b. It reads the file
// only when its size is b's, so it holds at most as much again as b.
func sameContent(name string, b []byte) bool {
	info, err := os.Stat(name)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(b)) {
		return false
	}
	old, err := os.ReadFile(name)
	return err == nil && bytes.Equal(old, b)
}
