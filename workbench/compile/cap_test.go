package compile

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// TestCap: under a cap of 2, a file with ten pdl-unknown errors
// compiles to the first two findings, built exactly as without a cap, and
// the cap counts the other eight; a report that shares the cap and adds
// them with AddListed prints, byte for byte, what capping the uncapped
// findings prints, summary line included.
func TestCap(t *testing.T) {
	const name = "testdata/cap/unknown.pdl"
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	all := Source(name, src, Options{})
	if len(all.Findings) != 10 || slices.ContainsFunc(all.Findings, func(f report.Finding) bool { return f.Rule != pdl.RuleUnknown }) {
		t.Fatalf("the fixture should give ten %s findings and nothing else, got:\n%s", pdl.RuleUnknown, render(all.Findings))
	}

	c := report.NewCap(2)
	res := Source(name, src, Options{Cap: c})
	if got, want := render(res.Findings), render(all.Findings[:2]); !bytes.Equal(got, want) {
		t.Errorf("listed under the cap:\n%s\nwant the first two:\n%s", got, want)
	}
	if res.OK() {
		t.Error("a file with errors compiles OK under a cap")
	}
	left := c.Left()
	if len(left) != 1 || left[0].Message != "8 more pdl-unknown findings in this file are not listed" || left[0].Severity != report.Error {
		t.Errorf("the cap counts %+v, want one error counting 8 pdl-unknown findings", left)
	}

	capped := &report.Report{Cap: c, Sources: res.Sources, Files: []string{name}}
	capped.AddListed(res.Findings...)
	after := &report.Report{Cap: report.NewCap(2), Sources: all.Sources, Files: []string{name}}
	after.Add(all.Findings...)
	if got, want := text(t, capped), text(t, after); got != want {
		t.Errorf("capping while compiling prints:\n%s\ncapping afterwards prints:\n%s", got, want)
	}
}

// text sorts r and renders it as pilotage prints it.
func text(t *testing.T, r *report.Report) string {
	t.Helper()
	r.Sort()
	var b bytes.Buffer
	if err := report.Write(&b, report.Text, r, report.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCapBuildsOnlyListedHints: a file of 120,000 misspelt keywords (2
// MB; issue 13, item 8) compiles under a cap of 100 in at most 12 bytes
// allocated a byte of input, the syntax tree included. A finding's
// did-you-mean compares the word with every keyword of its place; built
// for every finding, listed or not, it allocated 120 bytes a byte.
// -short compiles 30,000 (9.3 bytes a byte; 120,000 take 8.4).
func TestCapBuildsOnlyListedHints(t *testing.T) {
	n := 120_000
	if testing.Short() {
		n = 30_000
	}
	src := bytes.Repeat([]byte("abcdefghijklmnop\n"), n)
	runtime.GC()
	var res *Result
	alloc := memtest.Allocated(func() { res = Source("kw.pdl", src, Options{Cap: report.NewCap(100)}) })
	if len(res.Findings) < 100 || !strings.Contains(res.Findings[0].Hint, "the file takes:") {
		t.Fatalf("want 100 listed findings with their hint, got %d: %s", len(res.Findings), render(res.Findings[:min(3, len(res.Findings))]))
	}
	if alloc > 12*uint64(len(src)) {
		t.Errorf("allocated %.1f bytes a byte of input; want at most 12", float64(alloc)/float64(len(src)))
	}
}
