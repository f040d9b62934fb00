package pdl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// parseCost parses src and measures what it cost: the bytes allocated in
// all (an upper bound on how far the heap's peak rose) and the bytes
// still in use with the tree alive, after a collection.
func parseCost(name string, src []byte) (f *File, findings []report.Finding, alloc, live uint64) {
	var before, after, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, findings = Parse(name, src)
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	runtime.KeepAlive(f)
	live = 0
	if kept.HeapAlloc > before.HeapAlloc {
		live = kept.HeapAlloc - before.HeapAlloc
	}
	return f, findings, after.TotalAlloc - before.TotalAlloc, live
}

// HostileShapes are files of one-byte tokens (issue 13, item 8), each
// about as large as docs/performance.md's "Hostile input" measured them:
// half a million blank lines, a quarter of a million one-letter
// statements, one statement of a quarter of a million arguments.
func hostileShapes() map[string][]byte {
	return map[string][]byte{
		"blank": bytes.Repeat([]byte("\n"), 500_000),
		"stmts": bytes.Repeat([]byte("a;"), 260_000),
		"args":  append(append([]byte("s"), bytes.Repeat([]byte(" a"), 262_000)...), '\n'),
	}
}

// TestParseMemoryPerByte: parsing a file allocates at most 10 bytes a
// byte of it, plus the tree's fixed allowance (treeSlack), tree included:
// on the hostile shapes, on the large generated Language, and on a dense
// generated file of short entries (TestLargeFile's, whose tree alone
// takes about 11 bytes a byte). Blank lines cost one node a run; the
// one-letter statements and arguments stop at the tree's budget with one
// finding at the token that goes over.
func TestParseMemoryPerByte(t *testing.T) {
	if testing.Short() {
		t.Skip("parses megabytes of PDL to measure the tree; run without -short")
	}
	cases := map[string]struct {
		src  []byte
		over bool // the tree goes over its budget
	}{
		"generated": {pdltest.Generated(5000, 50, true), false},
		"entries":   {entries(5000), false},
	}
	for name, src := range hostileShapes() {
		cases[name] = struct {
			src  []byte
			over bool
		}{src, name != "blank"}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, fs, alloc, live := parseCost(name+".pdl", c.src)
			n := float64(len(c.src))
			t.Logf("%d bytes, %d findings: allocated %.1f a byte, %.1f a byte live with the tree", len(c.src), len(fs), float64(alloc)/n, float64(live)/n)
			if alloc > uint64(10*len(c.src)+treeSlack) {
				t.Errorf("allocated %.1f bytes a byte of input, %d in all; want at most 10 a byte plus %d", float64(alloc)/n, alloc, treeSlack)
			}
			switch {
			case c.over && (f != nil || len(fs) != 1 || !strings.Contains(fs[0].Message, "too many statements and values")):
				t.Errorf("want the budget's one finding and no tree; got tree %v and %s", f != nil, render(fs))
			case !c.over && (f == nil || len(fs) > 0):
				t.Errorf("want a tree; got %s", render(fs))
			}
		})
	}
}

// TestTreeBudgetFinding: the finding is at the statement whose node
// takes the tree over its budget, spans its keyword, and says what the
// budget is, how many statements the file has room for, and where the
// limit is explained, whole (Parse) and streamed (Stream).
func TestTreeBudgetFinding(t *testing.T) {
	src := bytes.Repeat([]byte("a;"), 60_000)
	f, fs := Parse("dense.pdl", src)
	over := treeBudget(len(src))/(stmtCost) + 1 // statements that fit, plus the one that does not
	want := fmt.Sprintf("dense.pdl:1:%d-1:%d pdl-syntax: too many statements and values for a file of 120000 bytes: reading them would take more than %d bytes of memory [hint: PDL reads a file whole (pilotage fmt, the language server) within 6 bytes of memory a byte of it, plus 6 MiB, and a statement takes about %d bytes, a value %d, so a file of 120000 bytes has room for about %d statements of one value; lint, build, validate and serve read it a statement at a time, with room for more (docs/pdl.md, \"How large a file can be\")]\n",
		2*over-1, 2*over, treeBudget(len(src)), stmtCost, argCost, treeBudget(len(src))/(stmtCost+argCost))
	if got := string(render(fs)); f != nil || got != want {
		t.Errorf("tree %v, findings\n%s\nwant\n%s", f != nil, got, want)
	}
	// Half as many fit.
	if f, fs := Parse("dense.pdl", src[:len(src)/2]); f == nil || len(fs) > 0 {
		t.Errorf("30,000 statements: %s", render(fs))
	}
	// Streamed, the statements are charged at 8 bytes a byte: 60,000
	// fit, 200,000 do not.
	if f, fs := Stream("dense.pdl", src, false); f == nil || len(fs) > 0 {
		t.Errorf("60,000 statements streamed: %s", render(fs))
	}
	src = bytes.Repeat([]byte("a;"), 200_000)
	f, fs = Stream("dense.pdl", src, false)
	over = streamBudget(len(src))/stmtCost + 1
	want = fmt.Sprintf("dense.pdl:1:%d-1:%d pdl-syntax: too many entries and statements for a file of 400000 bytes: compiling them would keep more than %d bytes of memory [hint: PDL compiles a file within 8 bytes of memory a byte of it, plus 6 MiB, and counts 1152 bytes for each catalog entry (what the verbs hold of one at their peak), so a file of 400000 bytes has room for about %d entries, fewer beside other statements; write fewer entries in it, or fuller ones (docs/pdl.md, \"How large a file can be\")]\n",
		2*over-1, 2*over, streamBudget(len(src)), streamBudget(len(src))/keptCost)
	if got := string(render(fs)); f != nil || got != want {
		t.Errorf("streamed: tree %v, findings\n%s\nwant\n%s", f != nil, got, want)
	}
}

// TestStreamBudgetCatalogs: generated catalogs of the two shapes
// GeneratedCatalog writes, 60,000 entries with a name and a description
// (9.3 MB) and 17,000 with schemas alone (1.7 MB), stream within their
// budget, which a reading of the whole tree goes over (pilotage fmt, the
// language server). 40,000 of schemas alone (4 MB) do not: the verbs
// held 12.3 to 12.5 bytes a byte of them (docs/performance.md,
// "Generated catalogs within 10 bytes a byte").
func TestStreamBudgetCatalogs(t *testing.T) {
	head, err := os.ReadFile(filepath.Join("..", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n     int
		named bool
	}{{60000, true}, {17000, false}} {
		if testing.Short() && c.named {
			continue // 9 MB; the terse catalog's stream is the tighter fit
		}
		src := pdltest.GeneratedCatalog(head, c.n, c.named)
		if f, fs := Stream("cat.pdl", src, true); f == nil || len(fs) > 0 {
			t.Errorf("%d entries (%d bytes) streamed: %s", c.n, len(src), render(fs))
		}
		if !c.named {
			continue
		}
		if _, fs := Parse("cat.pdl", src); len(fs) != 1 || !strings.Contains(fs[0].Message, "too many statements and values") {
			t.Errorf("%d entries (%d bytes) read whole: want the budget's finding, got %s", c.n, len(src), render(fs))
		}
	}
	var src []byte
	if !testing.Short() {
		// 4 MB; -short's refusals are the stubs' below and
		// TestTreeBudgetFinding's.
		src = pdltest.GeneratedCatalog(head, 40000, false)
		if f, fs := Stream("cat.pdl", src, true); f != nil || len(fs) != 1 || !strings.Contains(fs[0].Message, "too many entries and statements") {
			t.Errorf("40,000 entries of schemas alone streamed: want the budget's finding, got %s", render(fs))
		}
	}
	// Entries of nothing but their kind and risk are what the budget
	// stops sooner: it counts 1152 bytes for each 40. -short streams
	// 30,000 of them (1.1 MB), over the budget too.
	stubs := 300_000
	if testing.Short() {
		stubs = 30_000
	}
	src = bytes.Repeat([]byte("entry \"e.n\" kind=action risk=safe {}\n"), stubs)
	if f, fs := Stream("stubs.pdl", src, true); f != nil || len(fs) != 1 || !strings.Contains(fs[0].Message, "too many entries and statements") {
		t.Errorf("%d empty entries streamed: want the budget's finding, got %s", stubs, render(fs))
	}
}

// entries is a file of n short entries, as a generator would write them.
func entries(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "entry \"e%d\" kind=device risk=safe {\n  name \"Entry %d\"\n}\n", i, i)
	}
	return []byte(b.String())
}

// BenchmarkParse parses the large generated Language against a baseline
// measured in the same loop: one pass of the lexer over the same bytes,
// which any parse must at least make. ratio is parse / lex.
func BenchmarkParse(b *testing.B) {
	src := pdltest.Generated(5000, 50, true)
	var parse, lexOnly time.Duration
	var alloc uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		t0 := time.Now()
		if n := lexAll(string(src)); n == 0 {
			b.Fatal("no tokens")
		}
		lexOnly += time.Since(t0)
		runtime.GC()
		t1 := time.Now()
		alloc += memtest.Allocated(func() {
			if _, fs := Parse("bench.pdl", src); len(fs) > 0 {
				b.Fatal(string(render(fs)))
			}
		})
		parse += time.Since(t1)
	}
	b.ReportMetric(float64(parse.Microseconds())/1e3/float64(b.N), "parse-ms/op")
	b.ReportMetric(float64(lexOnly.Microseconds())/1e3/float64(b.N), "lex-ms/op")
	b.ReportMetric(float64(parse)/float64(lexOnly), "ratio")
	b.ReportMetric(float64(alloc)/float64(b.N)/float64(len(src)), "alloc/B")
	b.ReportMetric(float64(len(src)>>10), "pdl-KiB")
}

// lexAll counts the tokens of src.
func lexAll(src string) int {
	l := newScanner(src)
	n := 0
	for l.next().typ != tokEOF {
		n++
	}
	return n
}

// TestReleaseFreesTheTree: a reader that keeps a statement of a tree
// and lets go of the others frees them only once it releases them. A
// Language block of small guides, whose Language statement is kept with
// its first child, holds the whole tree through the slab blocks its
// parts share when its guides are only dropped from its body, and a
// twentieth of it when each is released as well.
func TestReleaseFreesTheTree(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a megabyte of PDL to measure the tree; run without -short")
	}
	src := pdltest.SmallGuides(8000)
	liveAfter := func(release bool) int64 {
		f, _ := Parse("g.pdl", src)
		var lang *Stmt
		for s := range f.Statements() {
			if s.Keyword == "language" {
				lang = s
				break
			}
		}
		body := lang.Block.Body
		lang.Block.Body = nil
		for _, n := range body {
			if s, ok := n.(*Stmt); ok && s.Keyword == "guide" && release {
				Release(s)
			}
		}
		clear(body)
		f.Body = nil
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(lang)
		return int64(m.HeapAlloc)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	dropped, released := liveAfter(false)-int64(base.HeapAlloc), liveAfter(true)-int64(base.HeapAlloc)
	t.Logf("live after dropping the guides: %d KiB, after releasing them: %d KiB", dropped>>10, released>>10)
	if released > dropped/20 {
		t.Errorf("released guides keep %d bytes of %d live", released, dropped)
	}
}
