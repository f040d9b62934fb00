package report

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// Many findings on long lines, as lint gives a minified manifest with
// thousands of Languages: the text writer decoded the whole line for
// every finding, so 40,000 findings on a 400 KB line took minutes. Here
// they alternate between two such files, in no order, so neither the
// line index of a file nor the decoded line may be redone per finding.
// Each snippet must still be the window around its own column. The bound
// is generous for a loaded CI machine; the writer takes about a second.
func TestManyFindingsOnLongLines(t *testing.T) {
	if testing.Short() {
		t.Skip("writes many findings on long lines; run without -short")
	}
	const n = 40000
	var line strings.Builder
	for i := 0; line.Len() < 400_000; i++ {
		fmt.Fprintf(&line, `{"id":"l%d/v1"},`, i)
	}
	src := line.String()
	r := &Report{Tool: "t", Sources: map[string][]byte{"a.json": []byte(src + "\n"), "b.json": []byte("\n" + src)}}
	step := len(src) / n
	for i := range n {
		r.Add(Finding{Rule: "r", Section: "4.2", Severity: Error, Message: "m", File: "a.json", Line: 1, Column: 1 + i*step},
			Finding{Rule: "r", Section: "4.2", Severity: Error, Message: "m", File: "b.json", Line: 2, Column: 1 + i*step})
	}
	start := time.Now()
	out := string(render(t, r, Text, Options{}))
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("writing %d findings took %v", 2*n, d)
	}
	last := (n - 1) * step
	for _, want := range []string{"   1 | " + src[:10], "   1 | …" + src[last-40:last-30], "   2 | " + src[:10], "   2 | …" + src[last-40:last-30]} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in the output: the first and last findings of each file quote the window around their column", want)
		}
	}
}

// A hostile file is one line of 16 MB of NUL bytes (issue 13, item 8):
// the text writer decoded and escaped the whole line to quote 160
// characters of it, 1.2 GB and ten seconds for a one-finding report. A
// snippet costs the window it shows: beyond the source it is given, the
// writer allocates its marks in the line (16 bytes a KiB, window.go) and
// a constant, and each snippet line stays
// within the window's width in escapes, with an ellipsis at each cut.
func TestSnippetOfHugeLineIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MB input")
	}
	const size = 16 << 20
	src := make([]byte, size)
	copy(src[size/2:], "\x1b[31mmid")
	r := &Report{Tool: "t", Sources: map[string][]byte{"nul.json": src}}
	for _, col := range []int{1, size/2 + 1, size} {
		r.Add(Finding{Rule: "r", Section: "5", Severity: Error, Message: "m", File: "nul.json", Line: 1, Column: col})
	}
	runtime.GC()
	start := time.Now()
	var out []byte
	alloc := memtest.Allocated(func() { out = render(t, r, Text, Options{}) })
	elapsed := time.Since(start)
	if alloc > 2<<20 {
		t.Errorf("writing 3 snippets of a %d-byte line allocated %d bytes; want under 2 MiB", size, alloc)
	}
	if elapsed > 5*time.Second {
		t.Errorf("writing 3 snippets of a %d-byte line took %v", size, elapsed)
	}
	if len(out) > 4096 {
		t.Errorf("the report is %d bytes; 3 windowed snippets fit in 4 KiB:\n%.2000s", len(out), out)
	}
	for _, want := range []string{
		"   1 | " + strings.Repeat(`\x00`, 40) + "…\n     | ^\n",
		"   1 | …" + strings.Repeat(`\x00`, 10),
		`\x1b[31mmid` + strings.Repeat(`\x00`, 27) + "…\n",
		"\n     | " + strings.Repeat(" ", 41) + "^\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q in the report:\n%s", want, out)
		}
	}
}

// A finding on line 16,000,001 of a file of newlines (a PDL file of blank
// lines past the token limit) indexed every line start, 128 MB to quote
// one empty line; the reader keeps one start in lineEvery.
func TestSnippetOfFarLineIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MB input")
	}
	const lines = 16_000_000
	src := append(bytes.Repeat([]byte("\n"), lines), "last"...)
	r := &Report{Tool: "t", Sources: map[string][]byte{"nl.pdl": src}}
	r.Add(Finding{Rule: "r", Section: "5", Severity: Error, Message: "m", File: "nl.pdl", Line: lines + 1, Column: 1},
		Finding{Rule: "r", Section: "5", Severity: Error, Message: "m", File: "nl.pdl", Line: lines + 2, Column: 1})
	runtime.GC()
	var out string
	if alloc := memtest.Allocated(func() { out = string(render(t, r, Text, Options{})) }); alloc > 1<<20 {
		t.Errorf("quoting line %d allocated %d bytes; want under 1 MiB", lines+1, alloc)
	}
	if want := "16000001 | last\n"; !strings.Contains(out, want) {
		t.Errorf("want %q in the report:\n%s", want, out)
	}
	if strings.Count(out, " | ") != 2 {
		t.Errorf("the finding past the last line quotes no line:\n%s", out)
	}
}

// TestSnippet: the snippet of a place outside a report is the one the
// text format shows, and nothing for a line the source lacks.
func TestSnippet(t *testing.T) {
	src := []byte("rules:\n  core-guide-size: off\n")
	if got, want := Snippet(src, 2, 3), "   2 |   core-guide-size: off\n     |   ^^^^^^^^^^^^^^^\n"; got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := Snippet(src, 9, 1); got != "" {
		t.Errorf("line 9 of a 2-line source: %q", got)
	}
}

func TestCountAgreesWithItsNoun(t *testing.T) {
	for _, tc := range []struct {
		n          int
		word, want string
	}{
		{0, "step", "0 steps"},
		{1, "step", "1 step"},
		{2, "case", "2 cases"},
		{1, "entry", "1 entry"},
		{3, "entry", "3 entries"},
	} {
		if got := Count(tc.n, tc.word); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
}
