package cmd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/cmd/testverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/workbench/langtest"
	"github.com/pilotage-dev/pilotage/workbench/scaffold"
)

func test(p testverb.Params) verbtest.Result {
	if p.Format == "" {
		p.Format = report.Text
	}
	return verbtest.Call(func(s verb.Streams) error { return testverb.Test(context.Background(), p, s) })
}

// TestLangs: pilotage test langs/ passes, as CI runs it, every case of
// every example Language's corpus (issue 16 item 5), and the coverage
// names every example Language.
func TestLangs(t *testing.T) {
	r := test(testverb.Params{Paths: []string{"../langs"}, Coverage: true})
	if r.Code != verb.ExitOK {
		t.Fatalf("exit %d:\n%s%s", r.Code, r.Out, r.Err)
	}
	for _, id := range []string{"calc/v1", "deploy/v1", "homeflow/v1", "ledger/v1", "notes/v1"} {
		if !strings.Contains(r.Out, "coverage of "+id+" ") {
			t.Errorf("no coverage of %s in:\n%s", id, r.Out)
		}
	}
}

// todoCorpus is the Language pilotage init writes, in a directory of
// the test's, with its case file's name and text.
func todoCorpus(t *testing.T) (dir, name string, src []byte) {
	dir = t.TempDir()
	if _, err := scaffold.Init(scaffold.Params{Dir: dir, Template: "json"}); err != nil {
		t.Fatal(err)
	}
	name = filepath.Join(dir, "tests", "todo.yaml")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return dir, name, src
}

// TestUpdateKeepsComments: --update fixes a failed expectation in place,
// keeping the comments and flow style around it, and the file passes.
func TestUpdateKeepsComments(t *testing.T) {
	dir, name, src := todoCorpus(t)
	broken := strings.Replace(string(src), "output: [bread, eggs, milk]", "output: [tea] # the list", 1)
	if err := os.WriteFile(name, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := test(testverb.Params{Paths: []string{dir}}); r.Code != verb.ExitFindings {
		t.Fatalf("broken corpus: exit %d", r.Code)
	}
	if r := test(testverb.Params{Paths: []string{dir}, Update: true}); r.Code != verb.ExitOK {
		t.Fatalf("--update: exit %d\n%s", r.Code, r.Out)
	}
	got, _ := os.ReadFile(name)
	for _, want := range []string{"output: [bread, eggs, milk] # the list", "# A viewer sees todo.list only", "risks: {add: write, all: safe}"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("updated file lacks %q:\n%s", want, got)
		}
	}
	if r := test(testverb.Params{Paths: []string{dir}}); r.Code != verb.ExitOK {
		t.Fatalf("after --update: exit %d\n%s", r.Code, r.Out)
	}
}

// TestUpdateUnchanged: --update leaves a file whose expectations hold
// as it is, content and modification time, and says it updated no file;
// a failing file given twice is written once, and what --update wrote
// it leaves as it is the next time.
func TestUpdateUnchanged(t *testing.T) {
	dir, name, src := todoCorpus(t)
	unchanged := func(src []byte) {
		t.Helper()
		old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
		if err := os.Chtimes(name, old, old); err != nil {
			t.Fatal(err)
		}
		r := test(testverb.Params{Paths: []string{dir}, Update: true})
		if r.Code != verb.ExitOK || r.Err != "no file updated: the expectations already hold\n" {
			t.Fatalf("--update of a passing corpus: exit %d, stderr %q", r.Code, r.Err)
		}
		if got, _ := os.ReadFile(name); !bytes.Equal(got, src) {
			t.Errorf("--update rewrote a file whose expectations hold:\n%s", got)
		}
		if info, err := os.Stat(name); err != nil || !info.ModTime().Equal(old) {
			t.Errorf("--update touched a file whose expectations hold: %v, %v", info.ModTime(), err)
		}
	}
	unchanged(src)

	broken := strings.Replace(string(src), "output: [bread, eggs, milk]", "output: [tea]", 1)
	if err := os.WriteFile(name, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	r := test(testverb.Params{Paths: []string{name, name}, Update: true})
	if r.Code != verb.ExitOK || r.Err != "updated "+name+"\n" {
		t.Fatalf("--update of a file given twice: exit %d, stderr %q", r.Code, r.Err)
	}
	got, _ := os.ReadFile(name)
	if !bytes.Contains(got, []byte("output: [bread, eggs, milk]")) {
		t.Errorf("--update wrote:\n%s", got)
	}
	// What --update wrote is what it would write again.
	unchanged(got)
}

// TestStreamedAsWhole: the report written as the cases finish is byte
// for byte the one written whole once every case has run, every finding
// held and sorted (as pilotage test wrote it before), in every format,
// with and without --coverage, for a corpus of several files given out of
// order and twice: passing and failing cases, a file that does not
// parse, and cases on one line whose findings interleave by column.
func TestStreamedAsWhole(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "workbench", "scaffold", "templates", "json"))); err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile(filepath.Join("..", "workbench", "langtest", "testdata", "bad", "tests", "bad.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Findings at a line take its first column (a stub's): b's comes
	// before a's.
	list := "{name: %s, principal: owner, program: {steps: [{id: all, call: todo.list, with: {}}], output: steps.all.output.items}, %s}"
	for name, src := range map[string]string{
		"bad.yaml": strings.ReplaceAll(regexp.MustCompile(`(?m)^pdl: .*$`).ReplaceAllString(string(bad), "pdl: ../todo.pdl"),
			"../../../../scaffold/templates/json/", "../"),
		// A case that fails, then one that does not read: the file is
		// the one finding, and no case of it counts.
		"late.yaml":    "cases:\n  - " + fmt.Sprintf(list, "a", "expect: {output: [x]}") + "\n  - {name: b, programm: {}}\n",
		"flow.yaml":    "cases: [" + fmt.Sprintf(list, "a", "expect: {output: [x]}") + ", " + fmt.Sprintf(list, "b", "stubs: {todo.lst: {returns: {}}}") + "]\n",
		"notyaml.yaml": "cases:\n  - name: a\n    programm: {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, "tests", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runID := regexp.MustCompile(`run-[0-9a-f]{32}`)
	// The formats differ only in how they write the same Run: each
	// selection of cases on each list of paths is run whole once.
	type selection struct {
		run   *regexp.Regexp
		paths string
	}
	held := map[selection]heldCases{}
	for _, p := range []testverb.Params{
		{Format: report.Text}, {Format: report.Text, Color: true}, {Format: report.JSON},
		{Format: report.GitHub}, {Format: report.JUnit},
		{Format: report.Text, Coverage: true}, {Format: report.JSON, Coverage: true},
		{Format: report.Text, Run: regexp.MustCompile("wrong|viewer")},
	} {
		// The directory's files in order, each once, are written as they
		// run; given out of order and twice, each waits for the files
		// before it.
		for _, paths := range [][]string{{dir}, {filepath.Join(dir, "tests", "notyaml.yaml"), dir, filepath.Join(dir, "tests", "bad.yaml")}} {
			p.Paths = paths
			t.Run(fmt.Sprintf("%s color=%t coverage=%t run=%v paths=%d", p.Format, p.Color, p.Coverage, p.Run, len(paths)), func(t *testing.T) {
				var got, stderr bytes.Buffer
				if err := testverb.Test(context.Background(), p, verb.Streams{Out: &got, Err: &stderr}); !errors.Is(err, verb.Findings) {
					t.Fatalf("exit %v; want findings\n%s", err, stderr.String())
				}
				key := selection{p.Run, strings.Join(p.Paths, "\x00")}
				h, ok := held[key]
				if !ok {
					h = holdCases(t, p)
					held[key] = h
				}
				want := wholeReport(t, p, h)
				g, w := runID.ReplaceAll(got.Bytes(), []byte("run-ID")), runID.ReplaceAll(want, []byte("run-ID"))
				if !bytes.Equal(g, w) {
					t.Errorf("streamed:\n%s\nwhole:\n%s", g, w)
				}
				if !bytes.Contains(w, []byte("late.yaml")) || !bytes.Contains(w, []byte("notyaml.yaml")) || p.Run == nil && !bytes.Contains(w, []byte("flow.yaml")) {
					t.Errorf("the corpus no longer has the findings it is for:\n%s", w)
				}
			})
		}
	}
}

// heldCases is what pilotage test found on a list of paths as it did
// before it streamed: every case run and every outcome held.
type heldCases struct {
	names    []string
	sources  map[string][]byte
	early    []report.Finding // of files that do not parse or run
	outcomes []langtest.Outcome
}

// holdCases runs every case p selects on p.Paths and holds the outcomes.
func holdCases(t *testing.T, p testverb.Params) heldCases {
	names, _, err := inputs.Expand(p.Paths, inputs.Test, inputs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := heldCases{names: names, sources: map[string][]byte{}}
	var files []*testcase.File
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		h.sources[name] = src
		f, err := testcase.Read(name, src)
		var pe *testcase.Error
		switch {
		case errors.As(err, &pe):
			h.early = append(h.early, langtest.ParseFindings(pe)...)
		case err != nil:
			t.Fatal(err)
		default:
			files = append(files, f)
		}
	}
	r := langtest.NewRunner(langtest.Params{Run: p.Run})
	for _, f := range files {
		var of []langtest.Outcome
		if e := r.File(f, func(o langtest.Outcome) { of = append(of, o) }); e != nil {
			h.early = append(h.early, langtest.ParseFindings(e)...)
			continue
		}
		h.outcomes = append(h.outcomes, of...)
	}
	r.Close()
	return h
}

// wholeReport is pilotage test's report on p as it was written before it
// streamed: the findings of the held outcomes h sorted, then written.
func wholeReport(t *testing.T, p testverb.Params, h heldCases) []byte {
	rep := &report.Report{Tool: "pilotage test", Files: h.names, Sources: h.sources}
	rep.Add(h.early...)
	outcomes := h.outcomes
	failed := 0
	byLang := map[*language.Language]*testcase.Coverage{}
	var cov []*testcase.Coverage
	for _, o := range outcomes {
		rep.Add(o.Unmet...)
		if len(o.Findings)+len(o.Unmet) > 0 {
			failed++
		}
		rep.Add(o.Findings...)
		if o.Lang != nil && p.Coverage {
			if byLang[o.Lang] == nil {
				byLang[o.Lang] = testcase.NewCoverage(o.Server, o.Lang, o.File.PDL)
				cov = append(cov, byLang[o.Lang])
			}
			byLang[o.Lang].Add(o.Case, o.Got)
		}
	}
	rep.Sort()
	rep.Summary.Cases = &report.Cases{Cases: len(outcomes), Passed: len(outcomes) - failed, Failed: failed}
	var b bytes.Buffer
	var err error
	write := func(w io.Writer) error { return report.Write(w, p.Format, rep, report.Options{Color: p.Color}) }
	switch {
	case p.Format == report.JSON && p.Coverage:
		var r bytes.Buffer
		err = write(&r)
		if err == nil {
			err = testcase.WriteJSON(&b, r.Bytes(), cov)
		}
	case p.Format != report.Text:
		err = write(&b)
	default:
		if len(rep.Findings) > 0 {
			err = write(&b)
		}
		fmt.Fprintf(&b, "%s, %d passed, %d failed\n", report.Count(len(outcomes), "case"), len(outcomes)-failed, failed)
		if err == nil {
			err = testcase.WriteText(&b, cov)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("report without its end:\n%s", b.String())
	}
	return b.Bytes()
}

// TestReadCounted: Params.Read is told the case files' bytes, then each
// PDL's once, as the first file naming it runs.
func TestReadCounted(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "workbench", "scaffold", "templates", "json"))); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "tests", "todo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tests", "again.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	pdl, err := os.Stat(filepath.Join(dir, "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	var told []int64
	p := testverb.Params{Paths: []string{dir}, Format: report.Text, Read: func(n int64) { told = append(told, n) }}
	if err := testverb.Test(context.Background(), p, verb.Streams{Out: io.Discard, Err: io.Discard}); err != nil {
		t.Fatal(err)
	}
	files := 2 * int64(len(src))
	if len(told) != 2 || told[0] != files || told[1] != files+pdl.Size() {
		t.Errorf("told %v; want %d, then %d", told, files, files+pdl.Size())
	}
}
