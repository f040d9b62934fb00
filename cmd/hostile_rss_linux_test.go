package cmd_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/snaptest"
	"github.com/pilotage-dev/pilotage/workbench/conform"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// TestHostilePDLPeakRSS runs the PDL verbs as the user does, as child
// processes, on files of one-byte tokens (issue 13, item 8: any verb on
// any input within 10 times its size in memory): half a million blank
// lines, and 2 MB of one-letter statements and of one statement's
// one-letter values. Each verb's peak RSS beyond its own on a one-line
// file must stay within 10 bytes a byte of input, plus the 6 MiB a PDL
// syntax tree is allowed whatever the file's size (docs/pdl.md, "The
// file"). Before, lint took 270 MB on the blank lines (500 KB) and 357
// MB on 520 KB of statements.
func TestHostilePDLPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.json")
	files := map[string][]byte{
		"tiny":  []byte("\n"),
		"blank": bytes.Repeat([]byte("\n"), 500_000),
		"stmts": bytes.Repeat([]byte("a;"), 1_000_000),
		"args":  append(append([]byte("s"), bytes.Repeat([]byte(" a"), 1_000_000)...), '\n'),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name+".pdl"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(prog, []byte(`{"steps": [], "output": "1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	verbs := map[string]func(file string) []string{
		"fmt":      func(f string) []string { return []string{"fmt", f} },
		"lint":     func(f string) []string { return []string{"lint", f} },
		"build":    func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), f} },
		"validate": func(f string) []string { return []string{"validate", "--lang", f, prog} },
	}
	for verb, args := range verbs {
		t.Run(verb, func(t *testing.T) {
			for _, name := range []string{"blank", "stmts", "args"} {
				size := len(files[name])
				limit := 10*int64(size) + 6<<20
				rss, base := leastOver(t, bin, args(filepath.Join(dir, "tiny.pdl")), args(filepath.Join(dir, name+".pdl")), limit)
				t.Logf("%s %s (%d bytes): peak RSS %d KiB, %d KiB over a one-line file's", verb, name, size, rss>>10, (rss-base)>>10)
				if rss-base > limit {
					t.Errorf("%s of %s: peak RSS %d bytes over a one-line file's, more than 10 a byte plus 6 MiB (%d)", verb, name, rss-base, limit)
				}
			}
		})
	}
}

// TestGeneratedLanguagePeakRSS holds build and lint of the generated
// Language of docs/performance.md "build" (2.5 MiB, 10,000 CEL
// expressions) to 10 bytes a byte of it over a one-line file's peak, no
// allowance: issue 13 item 8 on a large file that is not hostile. They
// took 10 to 19 times before the statement-at-a-time compile, the
// snapshot written as it is encoded, and the soft memory limit
// (limitMemory), 8.5 to 9 now.
func TestGeneratedLanguagePeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	gen, tiny := filepath.Join(dir, "gen.pdl"), filepath.Join(dir, "tiny.pdl")
	src := pdltest.Generated(5000, 50, true)
	if err := os.WriteFile(gen, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tiny, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	buildAndLintPerByte(t, bin, dir, tiny, gen, int64(len(src)), "the generated Language")
}

// buildAndLintPerByte holds build and lint of the PDL file pdl, of size
// bytes, each to 10 bytes a byte over the same verb's peak on tiny.
func buildAndLintPerByte(t *testing.T, bin, dir, tiny, pdl string, size int64, what string) {
	t.Helper()
	for verb, args := range map[string]func(string) []string{
		"build": func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), f} },
		"lint":  func(f string) []string { return []string{"lint", f} },
	} {
		t.Run(verb, func(t *testing.T) {
			limit := 10 * size
			rss, base := leastOver(t, bin, args(tiny), args(pdl), limit)
			t.Logf("%s: peak RSS %d KiB, %.1f bytes a byte over a one-line file's", verb, rss>>10, float64(rss-base)/float64(size))
			if rss-base > limit {
				t.Errorf("%s of %s: peak RSS %d bytes over a one-line file's, more than 10 a byte (%d)", verb, what, rss-base, limit)
			}
		})
	}
}

// pdlBeside writes src as a PDL file in dir, with a one-line PDL file
// (the baseline) and a program of no steps beside it, and returns their
// paths.
func pdlBeside(t *testing.T, dir string, src []byte) (pdl, tiny, prog string) {
	t.Helper()
	pdl, tiny, prog = filepath.Join(dir, "lang.pdl"), filepath.Join(dir, "tiny.pdl"), filepath.Join(dir, "prog.json")
	for name, b := range map[string][]byte{pdl: src, tiny: []byte("\n"), prog: []byte(`{"steps": [], "output": "1"}`)} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pdl, tiny, prog
}

// TestManyGuidesPeakRSS holds lint, validate --lang and build of a
// Language of 15,000 small guides (2 MB) to 10 bytes a byte over a
// one-line file's peak, issue 13 item 8 (docs/performance.md, "Many
// small guides" and "Letting go of a Language block"). The
// compiler's second reading, of the entries, built the Language block's
// tree again beside it: 13.4 to 15.1 bytes a byte, build 13.0 to 14.1;
// 10.3 to 11.4, build 10.9 to 12.2, since it reads the entries alone,
// the tree kept whole while the Language compiled; 8.8 to 10.5 since
// each guide's statement is let go of once compiled; 9.1 to 9.9 since
// the block is read a statement at a time (docs/performance.md, "A
// Language block a statement at a time"), no lower: lint's peak, and
// build's, is lint's check of the compact snapshot, with its tree, lint's
// guides and the file, 6 to 7 bytes a byte live, which the soft memory
// limit (cmd/memlimit.go) does not set (a limit of 4 or 5 bytes a byte
// moved none of them), and under load the collector's room takes them
// past 10; 8.5 to 9.4, validate 7.4 to 8.1, build 7.9 to 9.7, since
// lint's record of a guide holds no pointer or topics, the staged
// files' temporary names are not held, and the soft memory limit's
// slack is 3 MiB, not 4 (docs/performance.md, "The last Language rows
// under 10 bytes a byte"). Build's peak
// was its staging of the files, the model and their encodings together:
// 11.0 to 12.7, as before; 9.1 to 10.6 since the guides are encoded as
// the snapshot is written and the staged files' names are kept short
// through lint, where build's peak now is (docs/performance.md, "What
// build holds while it lints"). Three Positions keys a guide and a
// copy of every body took build to 17.
func TestManyGuidesPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	src := pdltest.SmallGuides(15000)
	guides, tiny, prog := pdlBeside(t, dir, src)
	for verb, c := range map[string]struct {
		args    func(string) []string
		perByte int64
	}{
		"build":    {func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), f} }, 10},
		"lint":     {func(f string) []string { return []string{"lint", f} }, 10},
		"validate": {func(f string) []string { return []string{"validate", "--lang", f, prog} }, 10},
	} {
		t.Run(verb, func(t *testing.T) {
			limit := c.perByte * int64(len(src))
			rss, base := leastOver(t, bin, c.args(tiny), c.args(guides), limit)
			t.Logf("%s: peak RSS %d KiB, %.1f bytes a byte over a one-line file's", verb, rss>>10, float64(rss-base)/float64(len(src)))
			if rss-base > limit {
				t.Errorf("%s of 15,000 guides: peak RSS %d bytes over a one-line file's, more than %d a byte (%d)", verb, rss-base, c.perByte, limit)
			}
		})
	}
}

// TestManyProsePeakRSS holds lint and build of a Language of 30,000
// one-line prose paragraphs (1.7 MB) to 10 bytes a byte over a one-line
// file's peak, issue 13 item 8 (docs/performance.md, "Many prose
// paragraphs"); both refuse it, its closed-sets guide too large to read
// back, once the Language has compiled. The block kept each prose
// statement, and the compiler a record of each paragraph, until the
// guide was written: 9.1 to 9.8 bytes a byte, build 9.1 to 9.8; 5.9 to
// 7.3, build 6.5 to 7.3, since each paragraph is appended to its section
// as its statement is compiled and the statement let go of.
func TestManyProsePeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	src := pdltest.SmallProse(30000)
	prose, tiny, _ := pdlBeside(t, dir, src)
	buildAndLintPerByte(t, bin, dir, tiny, prose, int64(len(src)), "30,000 prose paragraphs")
}

// TestManyEntriesPeakRSS holds validate --lang of a Language of 60,000
// small catalog entries (8 MB) to 10 bytes a byte over a one-line file's
// peak, issue 13 item 8. The engine copied each entry's wire form and
// behaviour out of the compiled Language, which it keeps: 12.3 to 12.5
// bytes a byte; 10.2 to 11.9 since it points to them, the compiler's
// model at its peak; 9.6 to 10.0 since an entry and its compile state
// take 560 bytes, not 800, and its item's places are not copied again,
// the peak being the engine's beside the model; 8.6 to 9.3 since a view
// of the catalog keeps no map of its entries and their hashes
// (docs/performance.md, "Many small entries", "Letting go of a Language
// block" and "A Language block a statement at a time").
func TestManyEntriesPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	src := pdltest.SmallEntries(60000)
	entries, tiny, prog := pdlBeside(t, t.TempDir(), src)
	args := func(f string) []string { return []string{"validate", "--lang", f, prog} }
	limit := 10 * int64(len(src))
	rss, base := leastOver(t, bin, args(tiny), args(entries), limit)
	t.Logf("validate: peak RSS %d KiB, %.1f bytes a byte over a one-line file's", rss>>10, float64(rss-base)/float64(len(src)))
	if rss-base > limit {
		t.Errorf("validate of 60,000 entries: peak RSS %d bytes over a one-line file's, more than 10 a byte (%d)", rss-base, limit)
	}
}

// TestGeneratedCatalogPeakRSS holds lint and build of generated catalogs
// (pdltest.GeneratedCatalog and OneLineCatalog on the head of pilotage
// init's Language, with its principals), and serve of a ping against them
// and validate --lang of a small program against the largest, to 10 bytes
// a byte of the catalog over the same verb's peak on the Language it
// extends (init's todo.pdl alone, as TestLSPPeakRSS has it): compiling
// any Language costs 4 to 7 MB over a one-line file's peak, whatever its
// size, and that is not a cost of the catalog's bytes. 60,000 entries of
// a name, a description, an input_schema and returns (9.3 MB), no
// allowance; 40,000 of schemas alone (4 MB), refused. What the verbs hold
// of an entry at their peaks, about 1,000 to 1,250 bytes, is most of it:
// 8.5 to 10 bytes a byte of the 155-byte entries over a one-line file
// (6.2 to 6.9 over todo.pdl, session 16); the 100-byte ones took 12.3 to 12.5, and serve 16.5 to 18.5 while it
// linted beside the compiled Language, and the parser's budget now
// refuses them, in 1.3 to 1.5 bytes a byte, before the compiler keeps
// them (docs/pdl.md, "How large a file can be"; docs/performance.md,
// "Generated catalogs within 10 bytes a byte").
//
// Three smaller catalogs check the budget's slack. Two it lets through,
// held to 10 bytes a byte plus the 6 MiB of slack that the budget and
// TestHostilePDLPeakRSS allow any file: 17,000 entries of schemas alone
// (1.7 MB; 7.6 to 10.8 bytes a byte, so not always within 10 alone), and
// 8,000 one-line entries (442 KB; 10.8 to 16.2 bytes a byte, 4.7 to 7.1
// MB, since a verb holds 1,000 to 1,300 bytes of an entry of 55; serve
// took up to 10.2 MB of its 10.7 while it compiled files under 1 MiB
// once). The third, 12,000 one-line entries (664 KB), it refuses within
// 10 bytes a byte, since it charges every entry 1,152 bytes from the
// first (docs/performance.md, "Session 16: terse catalogs under the
// budget").
func TestGeneratedCatalogPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	head, err := os.ReadFile(filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	session := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}
`)
	named := func(head []byte, n int) []byte { return pdltest.GeneratedCatalog(head, n, true) }
	terse := func(head []byte, n int) []byte { return pdltest.GeneratedCatalog(head, n, false) }
	lintBuildServe := map[string]float64{"build": 10, "lint": 10, "serve": 10}
	for _, c := range []struct {
		name string
		n    int
		gen  func(head []byte, n int) []byte
		// perByte bounds each verb, in bytes a byte of the catalog, and
		// slack is allowed beyond it.
		perByte map[string]float64
		slack   int64
		// refused is set when the budget refuses the file.
		refused bool
	}{
		{"named", 60000, named, map[string]float64{"build": 10, "lint": 10, "validate": 10, "serve": 10}, 0, false},
		{"terse", 40000, terse, lintBuildServe, 0, true},
		{"terse under the budget", 17000, terse, lintBuildServe, 6 << 20, false},
		{"one-line under the budget", 8000, pdltest.OneLineCatalog, lintBuildServe, 6 << 20, false},
		{"one-line", 12000, pdltest.OneLineCatalog, lintBuildServe, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := c.gen(head, c.n)
			pdl, _, prog := pdlBeside(t, dir, src)
			lang := filepath.Join(dir, "todo.pdl")
			ping := filepath.Join(dir, "ping.jsonl")
			for name, b := range map[string][]byte{lang: head, ping: session} {
				if err := os.WriteFile(name, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			verbs := map[string]func(string) []string{
				"build":    func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), f} },
				"lint":     func(f string) []string { return []string{"lint", f} },
				"validate": func(f string) []string { return []string{"validate", "--lang", f, prog} },
				"serve":    func(f string) []string { return []string{"serve", f, stdin + ping} },
			}
			out, _ := exec.Command(bin, "lint", pdl).Output()
			if refused := bytes.Contains(out, []byte("too many entries and statements")); refused != c.refused {
				t.Fatalf("lint of %d entries: refused by the budget %v, want %v\n%.2000s", c.n, refused, c.refused, out)
			}
			size := int64(len(src) - len(head))
			for verb, perByte := range c.perByte {
				t.Run(verb, func(t *testing.T) {
					limit := int64(perByte*float64(size)) + c.slack
					rss, base := leastOver(t, bin, verbs[verb](lang), verbs[verb](pdl), limit)
					t.Logf("%s of %d entries: peak RSS %d KiB, %.1f bytes a byte of the catalog over todo.pdl's", verb, c.n, rss>>10, float64(rss-base)/float64(size))
					if rss-base > limit {
						t.Errorf("%s of %d entries: peak RSS %d bytes over todo.pdl's, more than %.0f a byte of the catalog plus %d (%d)", verb, c.n, rss-base, perByte, c.slack, limit)
					}
				})
			}
		})
	}
}

// TestLSPPeakRSS holds pilotage lsp, opened on a PDL of 20,000 catalog
// entries (3 MB) and of 26,500 (4 MB, under the live-analysis cap), to
// 10 bytes a byte over its peak on the Language they extend (init's
// todo.pdl), as lint's (issue 13 item 8; docs/performance.md, "The
// language server's memory"). Opened and then changed twice at once, it
// analyses the newest text after the first, never two at once: one
// analysis and the newest text beside it, 11 bytes a byte. It took 19
// to 20 bytes a byte opened and 29 changed (review 15, 2.1): no soft
// memory limit while it analysed, and each message's text read through
// four copies live at once.
func TestLSPPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	todo, err := os.ReadFile(filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	// session writes an editor's messages as the server reads them on
	// its standard input: open text, replace it changes times, shut
	// down, exit.
	session := func(name string, text []byte, changes int) string {
		uri := "file://" + filepath.Join(dir, name)
		msgs := []map[string]any{
			{"id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}},
			{"method": "initialized", "params": map[string]any{}},
			{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "pdl", "version": 1, "text": string(text)}}},
		}
		for v := 2; v < 2+changes; v++ {
			msgs = append(msgs, map[string]any{"method": "textDocument/didChange", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "version": v},
				"contentChanges": []any{map[string]any{"text": fmt.Sprintf("%s# %d\n", text, v)}}}})
		}
		var b bytes.Buffer
		for _, m := range append(msgs, map[string]any{"id": 2, "method": "shutdown"}, map[string]any{"method": "exit"}) {
			m["jsonrpc"] = "2.0"
			body, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.lsp", name, changes))
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return stdin + path
	}
	args := func(f string) []string { return []string{"lsp", "--stdio", f} }
	// The baseline holds what an analysis holds whatever the file's
	// size: the CEL environment, the rules.
	base := args(session("todo.pdl", todo, 0))
	entries := func(n int) []byte {
		src := bytes.Clone(todo)
		for i := range n {
			src = fmt.Appendf(src, "entry \"e.n%d\" kind=action risk=safe {\n  name \"Entry number %d of the generated catalog\"\n  input_schema `{\"type\": \"object\"}`\n  returns `{\"x\": 1}`\n}\n", i, i)
		}
		return src
	}
	for _, c := range []struct {
		entries, changes int
		perByte          int64
	}{{20000, 0, 10}, {26500, 0, 10}, {20000, 2, 11}} {
		src := entries(c.entries)
		if len(src) > lspserve.MaxLive {
			t.Fatalf("%d entries are %d bytes, past the %d the server analyses", c.entries, len(src), lspserve.MaxLive)
		}
		t.Run(fmt.Sprintf("%d/changes=%d", c.entries, c.changes), func(t *testing.T) {
			limit := c.perByte * int64(len(src))
			rss, base := leastOver(t, bin, base, args(session(strconv.Itoa(c.entries)+".pdl", src, c.changes)), limit)
			t.Logf("%d bytes: peak RSS %d KiB, %.1f bytes a byte over todo.pdl's", len(src), rss>>10, float64(rss-base)/float64(len(src)))
			if rss-base > limit {
				t.Errorf("lsp on %d entries, changed %d times: peak RSS %d bytes over todo.pdl's, more than %d a byte (%d)", c.entries, c.changes, rss-base, c.perByte, limit)
			}
		})
	}
	// A program file that pilotage.yaml maps to the 3 MB PDL: the server
	// compiles the Language from its file for each analysis of the
	// program, to 10 bytes a byte of the PDL over a program of todo.pdl.
	// It took 15 (docs/performance.md, "The language server's memory").
	t.Run("program", func(t *testing.T) {
		src := entries(20000)
		settings := "languages:\n  - files: [\"big-*.json\"]\n    lang: big.pdl\n  - files: [\"todo-*.json\"]\n    lang: todo.pdl\n"
		for name, b := range map[string][]byte{"big.pdl": src, "todo.pdl": todo, "pilotage.yaml": []byte(settings)} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		prog := []byte(`{"steps": [], "output": "1"}`)
		limit := 10 * int64(len(src))
		rss, base := leastOver(t, bin, args(session("todo-prog.json", prog, 0)), args(session("big-prog.json", prog, 0)), limit)
		t.Logf("a program of %d bytes of PDL: peak RSS %d KiB, %.1f bytes a byte over todo.pdl's", len(src), rss>>10, float64(rss-base)/float64(len(src)))
		if rss-base > limit {
			t.Errorf("lsp on a program of %d bytes of PDL: peak RSS %d bytes over todo.pdl's, more than 10 a byte (%d)", len(src), rss-base, limit)
		}
	})
}

// TestHostilePeakRSS runs other verbs on 2 MB hostile files as child
// processes and holds each within 10 bytes a byte of input plus 4 MiB
// over the same verb on a one-line file (issue 13 item 8; the 16 MB runs
// are in docs/performance.md, "Hostile inputs"), or the row's own limit
// where the bound is another.
// Before: validate built the tree of a program it then refused by size
// (13 bytes a byte), lint's did-you-mean copied a one-token PDL line once
// per keyword, run built two trees of an input refused by size, an input
// within the byte limit was decoded into 40 bytes a byte of values, a
// context had no limit and was decoded twice (70 bytes a byte), lint
// compiled an input_schema's enum into 160 bytes a value (23 bytes a
// byte), and so did build and lint of a PDL naming one in a schema file,
// test and config built go-yaml's tree of dense YAML (120 to 230 bytes a
// byte), and fmt of a text program held every statement and a token per
// byte (300 bytes a byte).
func TestHostilePeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	write := func(name string, src []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	calc := filepath.Join("..", "langs", "calc", "calc.pdl")
	tinyProg := write("tiny.json", []byte(`{"steps": [], "output": "1"}`))
	tinyPDL := write("tiny.pdl", []byte("\n"))
	tinyInput := write("tiny.input.json", []byte(`{}`))
	tinyContext := write("tiny.context.json", []byte(`{"environment": "staging"}`))
	deploy := filepath.Join("..", "langs", "deploy", "deploy.pdl")
	ledger := filepath.Join("..", "langs", "ledger", "ledger.pdl")
	tinyText := write("tiny.txt", []byte("f()\n"))
	snapshot := snaptest.Example("..")
	withMember := func(values []byte) []byte {
		src, err := os.ReadFile(snapshot)
		if err != nil {
			t.Fatal(err)
		}
		return append(append([]byte(`{"x": `), values...), append([]byte(","), src[bytes.IndexByte(src, '{')+1:]...)...)
	}
	withEnum := func(n int) []byte {
		src, err := os.ReadFile(snapshot)
		if err != nil {
			t.Fatal(err)
		}
		enum := []byte(`"input_schema": {"enum": [100000`)
		for i := 1; i < n; i++ {
			enum = strconv.AppendInt(append(enum, ','), int64(100000+i), 10)
		}
		return bytes.Replace(src, []byte(`"input_schema": {`), append(enum, "], "...), 1)
	}
	lint := func(f string) []string { return []string{"lint", f} }
	lintAs := func(format string) func(string) []string {
		return func(f string) []string { return []string{"lint", "--format", format, f} }
	}
	lintSince := func(f string) []string { return []string{"lint", "--baseline", f, snapshot} }
	// unknown is the example snapshot with 30,000 entries of three
	// findings each (2 MB); valid with 5,500 entries that lint clean.
	unknown := snaptest.WithItems(t, "..", "", func([]any) []any { return snaptest.Unknown(30000) })
	valid := snaptest.WithItems(t, "..", "", func(example []any) []any { return snaptest.Valid(example, 5500) })
	longLang := longLanguageSnapshot(t, 1_000_000, 2000, 0)
	// homeflowWith is langs/homeflow in a directory of its own whose
	// schemas/room.json is room, every file a link.
	homeflow, err := filepath.Abs(filepath.Join("..", "langs", "homeflow"))
	if err != nil {
		t.Fatal(err)
	}
	homeflowWith := func(room string) string {
		at := filepath.Join(dir, "homeflow-"+filepath.Base(room))
		links := map[string]string{"schemas/room.json": room}
		for _, f := range []string{"homeflow.pdl", "guides/core.md", "guides/devices.md", "schemas/switch.json"} {
			links[f] = filepath.Join(homeflow, f)
		}
		for name, to := range links {
			link := filepath.Join(at, name)
			_ = os.Remove(link) // the baseline's run of each row makes it again
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(to, link); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(at, "homeflow.pdl")
	}
	hugeRoom := []byte(`{"type": "object", "properties": {"room": {"type": "string", "enum": [100000`)
	for i := 1; i < 500000; i++ {
		hugeRoom = strconv.AppendInt(append(hugeRoom, ','), int64(100000+i), 10)
	}
	hugeRoom = append(hugeRoom, `]}}, "required": ["room"]}`...)
	calcAbs, err := filepath.Abs(calc)
	if err != nil {
		t.Fatal(err)
	}
	calcRel, err := filepath.Rel(dir, calcAbs) // a case file's pdl: is relative to it
	if err != nil {
		t.Fatal(err)
	}
	cases := "pdl: " + calcRel + "\ncases:\n  - name: a\n    program: {steps: [], output: '1'}\n    input: ["
	tinyCases := write("tiny.yaml", []byte(cases+"1]\n"))
	// n cases of the shape pilotage init writes first, in block style.
	todoRel, err := filepath.Rel(dir, filepath.Join(homeflow, "..", "..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	initCases := func(n int) []byte {
		b := []byte("pdl: " + todoRel + "\ncases:\n")
		for i := range n {
			b = fmt.Appendf(b, "  - name: case %d\n    principal: owner\n    program: {steps: [{id: add, call: todo.add, with: {item: input.item}}], output: steps.add.output}\n    input: {item: milk%d}\n    expect:\n      valid: true\n      status: success\n      trace:\n        - {id: add, status: success, calls: [todo.add]}\n", i, i)
		}
		return b
	}
	tinyInitCases := write("tiny-init.yaml", initCases(1))
	// Cases whose expected output the engine's misses: a diff each.
	write("deep.json", fmt.Appendf(nil, `{"x": %s1%s}`, strings.Repeat("[", 9990), strings.Repeat("]", 9990)))
	deepOutput := []byte("pdl: " + calcRel + "\ncases:\n  - name: a\n    program: {steps: [], output: input.x}\n    input: deep.json\n    expect:\n      output: 1\n")
	deepWants := []byte("pdl: " + calcRel + "\ncases:\n")
	for i := range 2100 {
		deepWants = fmt.Appendf(deepWants, "  - name: a%d\n    program: {steps: [], output: '1'}\n    expect:\n      output: %s%d%s\n", i, strings.Repeat("[", 199), i, strings.Repeat("]", 199))
	}
	outputX := write("output-x.json", []byte(`{"steps": [], "output": "input.x"}`))
	tinyX := write("tiny.x.json", []byte(`{"x": 1}`))
	runJSON := func(f string) []string { return []string{"run", "--lang", calc, "--input", f, "-f", "json", outputX} }
	tinyConfig := write("pilotage.yaml", []byte("ignore: [a]\n"))
	replayPlan := func(f string) []string { return []string{"replay", "--plan", f, tinyInput} }
	tinyPlan := write("tiny.plan.json", []byte(`{"steps": []}`))
	tinyTrace := write("tiny.trace.json", []byte(`{"run_id": "r", "steps": []}`))
	replaySnapshot := func(f string) []string { return []string{"replay", "--plan", tinyPlan, "--snapshot", f, tinyTrace} }
	replayTrace := func(f string) []string { return []string{"replay", "--plan", tinyPlan, f} }
	fmtText := func(f string) []string { return []string{"fmt", "--lang", ledger, f} }
	elseIfChain := []byte("if true {\n}" + strings.Repeat(" else if true {\n}", 48000) + "\nreport 1\n")
	// A Session of serve on standard input: initialize, then a request
	// of method whose params are params.
	request := func(method string, params []byte) []byte {
		return fmt.Appendf(nil, "%s\n%s\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":%q,\"params\":%s}\n",
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`, method, params)
	}
	// session pings with params.x.
	session := func(x []byte) []byte { return request("ping", fmt.Appendf(nil, `{"x":%s}`, x)) }
	tinySession := write("tiny.jsonl", session([]byte("1")))
	// callEvery is a Session that executes one program calling every
	// entry of distinctSchemas(1, 20, …); callEach one that executes a
	// program calling e<i> in each Language s/l<i> of distinctSchemas(40,
	// 40, …), every request written before any answer is read.
	steps := make([]string, 20)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"id":"s%d","call":"e%d","with":{}}`, i, i)
	}
	execute := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"s_l%d_execute","arguments":{"program":{"steps":[%s]},"store":false}}}` + "\n"
	callEvery := write("call-every.jsonl", fmt.Appendf(session([]byte("1")), execute, 3, 0, strings.Join(steps, ",")))
	each := session([]byte("1"))
	for i := range 40 {
		each = fmt.Appendf(each, execute, 3+i, i, fmt.Sprintf(`{"id":"s","call":"e%d","with":{}}`, i))
	}
	callEach := write("call-each.jsonl", each)
	nineDigits := func(n int) []byte { // n bytes of an array of nine-digit numbers
		return append(append([]byte("["), bytes.Repeat([]byte("100000000,"), n/10-1)...), "100000000]"...)
	}
	// distinct is about n bytes of members of distinct names of one to
	// four letters, 8 bytes a member: the most names a message can hold
	// for serve's guard to compare.
	distinct := func(n int) []byte {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		var b []byte
		for i := 0; len(b) < n; i++ {
			b = append(b, ',', '"')
			for j := i; ; j /= len(letters) {
				b = append(b, letters[j%len(letters)])
				if j < len(letters) {
					break
				}
			}
			b = append(b, `":0`...)
		}
		return b[1:]
	}
	// A valid program of 20,000 steps (1.1 MB), each passing the step
	// before's output on, and cases naming one of 2,000 steps in a branch
	// not taken: the check is all their cost.
	chainLang, tinyChain := write("chain.pdl", []byte(chainPDL)), write("tiny-chain.json", chainProgram(1))
	chainOf := func(verb string) func(f string) []string {
		return func(f string) []string { return []string{verb, "--lang", chainLang, f} }
	}
	write("branch.json", fmt.Appendf(nil, `{"steps": [{"id": "b", "if": "false", "then": %s, "else": []}], "output": "1"}`, chainSteps(2000)))
	namingBranch := []byte("pdl: chain.pdl\ncases:\n")
	for i := range 60 {
		namingBranch = fmt.Appendf(namingBranch, "  - name: c%d\n    program: branch.json\n    expect:\n      status: success\n", i)
	}
	todo := filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl")
	planOf := func(verb string) func(f string) []string {
		return func(f string) []string { return []string{verb, "--principal", "owner", "--lang", todo, f} }
	}
	longPlan := planJSON(t, bin, todo, longID(500_000, 0))
	traces := tracesDir(t, 200)
	serve := func(pdl string) func(f string) []string {
		return func(f string) []string { return []string{"serve", pdl, stdin + f} }
	}
	// withGuide is a Language whose core guide is the file guide, of
	// dir; guideBody the example snapshot whose first guide's body is
	// body; risks todo with n more risk levels, each a row of its
	// generated closed-sets guide.
	withGuide := func(guide string) string {
		return write("guide-"+filepath.Base(guide)+".pdl", fmt.Appendf(nil,
			"language \"g/v1\" {\n  capabilities {\n    guides\n    validate\n  }\n  guide core \"G\" level=core file=%q\n}\n", filepath.Base(guide)))
	}
	tinyGuide := write("tiny-guide.md", []byte("# G\n"))
	lintGuide := func(f string) []string { return []string{"lint", withGuide(f)} }
	buildGuide := func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), withGuide(f)} }
	listItems := bytes.Repeat([]byte("- a\n"), 250_000)
	risks := func(n int) []byte {
		src, err := os.ReadFile(todo)
		if err != nil {
			t.Fatal(err)
		}
		at := bytes.Index(src, []byte("\nlanguage "))
		at += bytes.IndexByte(src[at+1:], '\n') + 2 // past the Language's opening line
		more := src[:at:at]
		for i := range n {
			more = fmt.Appendf(more, "  risk r%d \"x\"\n", i)
		}
		return append(more, src[at:]...)
	}
	manyRisks := risks(25_000)
	oneID := request("tools/call", fmt.Appendf(nil, `{"name":"todo_v1_validate","arguments":{"program":{"steps":[%s]}}}`,
		strings.Repeat(`{"id":"a","call":"x"},`, 36000-1)+`{"id":"a","call":"x"}`))
	for _, c := range []struct {
		name string
		src  []byte
		args func(file string) []string
		tiny string
		// limit, when set, is the most the verb may take over its
		// baseline in place of 10 bytes a byte of src plus 4 MiB: more
		// where the bound is another, less where the row holds a verb
		// to what it now takes.
		limit int64
	}{
		{"validate of a program of one-character values over the size limit", oneValues(2<<20 + 2),
			func(f string) []string { return []string{"validate", "--lang", calc, f} }, tinyProg, 0},
		{"lint of a PDL line of one 2 MB word", bytes.Repeat([]byte("a"), 2<<20),
			func(f string) []string { return []string{"lint", f} }, tinyPDL, 0},
		{"run of an input of one-character values over the memory limit", oneValues(16<<20 + 2),
			func(f string) []string { return []string{"run", "--lang", calc, "--input", f, tinyProg} }, tinyInput, 0},
		{"run of an input of one-character values under the byte limit", append(append([]byte(`{"x": `), oneValues(16<<20-64)...), '}'),
			func(f string) []string { return []string{"run", "--lang", calc, "--input", f, tinyProg} }, tinyInput, 0},
		// An input's values are bounded by limits memory (16 MiB in calc),
		// which charges them as decoded, not by its bytes: one-character
		// values take 16 bytes each as values, 8 bytes a byte, and the
		// array takes over the decoder's stack instead of a copy of it.
		// Decoded by encoding/json, 520,000 fitted and took 45 MB over the
		// baseline; copied out of the stack, 699,000 took 25 MB.
		{"run of as many one-character values as fit limits memory", fitHeld(t, 16<<20),
			func(f string) []string { return []string{"run", "--lang", calc, "--input", f, tinyProg} }, tinyInput, 0},
		{"validate of a 2 MB context", append(append([]byte(`{"environment": "staging", "x": `), oneValues(2<<20)...), '}'),
			func(f string) []string {
				return []string{"validate", "--lang", deploy, "--principal", "operator", "--context", f, tinyProg}
			}, tinyContext, 0},
		{"lint of a snapshot with a member of one-character values, over the tree budget", withMember(oneValues(2 << 20)), lint, snapshot, 0},
		{"lint of a top-level array of one-character values", oneValues(2 << 20), lint, tinyInput, 0},
		{"lint of malformed JSON of one-character values", oneChars(2 << 20), lint, tinyInput, 0},
		{"lint of a snapshot with a member of 10-byte values, within the tree budget",
			withMember(append(append([]byte("["), bytes.Repeat([]byte("100000000,"), 1<<18)...), '0', ']')), lint, snapshot, 0},
		{"lint of a snapshot whose input_schema has an enum of 200,000 numbers", withEnum(200000), lint, snapshot, 0},
		// The PDL compiler compiled every schema it was given: this one
		// took 110 to 115 MB over the baseline, 33 bytes a byte.
		{"build of homeflow whose room.json is an enum of 500,000 numbers", hugeRoom,
			func(f string) []string { return []string{"build", "-o", filepath.Join(dir, "out"), homeflowWith(f)} }, filepath.Join(homeflow, "schemas", "room.json"), 0},
		{"lint of homeflow whose room.json is an enum of 500,000 numbers", hugeRoom,
			func(f string) []string { return []string{"lint", homeflowWith(f)} }, filepath.Join(homeflow, "schemas", "room.json"), 0},
		{"replay --plan of one-character values", oneValues(2 << 20), replayPlan, tinyInput, 0},
		// Every plan-shape finding was listed, each located in the plan:
		// 100,000 copies of one step (14.8 MB) took 19 bytes a byte and
		// wrote a 40 MB report. The plan's findings are capped by
		// --max-per-rule as a trace's are.
		{"replay --plan of 100,000 copies of one step", repeatedStep(100_000), replayPlan, tinyInput, 0},
		{"replay --snapshot with a member of one-character values", withMember(oneValues(2 << 20)), replaySnapshot, snapshot, 0},
		// replay read these token by token through encoding/json's
		// decoder, 0.4 µs a token: 2.5 to 12 s of CPU for 16 MiB, 0.2 to
		// 0.5 s at byte level (cpuBound; docs/performance.md, "Hostile
		// inputs").
		{"replay of a trace with a member of 16 MiB of one-character values", append(append([]byte(`{"x": `), oneValues(16<<20)...), `, "steps": []}`...),
			replayTrace, tinyTrace, 0},
		{"replay of a trace that is 16 MiB of one-character values", append(append([]byte(`{"trace": `), oneValues(16<<20)...), '}'),
			replayTrace, tinyTrace, 0},
		{"replay of a trace whose steps are 16 MiB of one-character values", append(append([]byte(`{"steps": `), oneValues(16<<20)...), '}'),
			replayTrace, tinyTrace, 0},
		// A member replay reads was decoded whole through the decoder:
		// 16 MiB of a level took 6 to 8 bytes a byte over the baseline,
		// of values in mode or run_id 5 to 5.5. Read at byte level, a
		// level or mode, or a value of the wrong type, is held only
		// while it is checked, as a skipped value: 3.9 to 4.1, held
		// here to 4.5.
		{"replay of a trace whose level is a 16 MiB string", fmt.Appendf(nil, `{"level": "%s", "steps": []}`, bytes.Repeat([]byte("x"), 16<<20)),
			replayTrace, tinyTrace, 9 * (16 << 20) / 2},
		{"replay of a trace whose mode is 16 MiB of one-character values", append(append([]byte(`{"mode": `), oneValues(16<<20)...), `, "steps": []}`...),
			replayTrace, tinyTrace, 9 * (16 << 20) / 2},
		{"replay of a trace whose run_id is 16 MiB of one-character values", append(append([]byte(`{"run_id": `), oneValues(16<<20)...), `, "steps": []}`...),
			replayTrace, tinyTrace, 9 * (16 << 20) / 2},
		// A program given as the trace is told from what the walk saw
		// of its steps (replay.Result.Program), not read again whole
		// once it is over the 1 MiB replay keeps: a usage error.
		{"replay of a 16 MiB program given as the trace", append(append([]byte(`{"steps": [`),
			bytes.Repeat([]byte(`{"id": "a", "call": "t.a", "with": {}}, `), 16<<20/40)...), `{"id": "b", "run": "p"}]}`...),
			replayTrace, tinyTrace, 0},
		// A string run_id is kept, as every finding carries it: held
		// once, decoded once (6.3 to 8 bytes a byte through the decoder).
		{"replay of a trace whose run_id is a 16 MiB string", fmt.Appendf(nil, `{"run_id": "%s", "steps": []}`, bytes.Repeat([]byte("x"), 16<<20)),
			replayTrace, tinyTrace, 11 * (16 << 20) / 2},
		{"test of a 1 MB case file of one-digit values", []byte(cases + strings.Repeat("1,", 1<<19-100) + "1]\n"),
			func(f string) []string { return []string{"test", f} }, tinyCases, 0},
		// Every case was held until the report was written: 3,000 took
		// 20 to 22 MB over the baseline, 24 bytes a byte. Holding one
		// case at a time, the collector's room over the engine's live
		// heap still took 12 MB, which the soft memory limit bounds.
		{"test of 3,000 passing cases in one file", initCases(3000),
			func(f string) []string { return []string{"test", f} }, tinyInitCases, 0},
		// A failed expectation's diff was both values indented whole,
		// kept until the file's report: square in the depth. A case
		// expecting 1 of an output nested 9,990 deep (20 KB of JSON)
		// took 1.04 GB and wrote 200 MB; 2,100 cases each expecting a
		// value nested 199 deep took 239 MB and wrote 170 MB. The diff
		// now shows where they first differ, bounded (docs/test.md).
		// The Run of that input alone takes 11 MB over the baseline,
		// expecting only its status too; the diff adds under 1 MB.
		{"test of a case expecting 1 of an output nested 9,990 deep", deepOutput,
			func(f string) []string { return []string{"test", f} }, tinyCases, 14 << 20},
		{"test of 2,100 failing cases each expecting a value nested 199 deep", deepWants,
			func(f string) []string { return []string{"test", f} }, tinyCases, 0},
		{"config show of a 64 KiB pilotage.yaml of keys without values", []byte("ignore: {" + strings.Repeat("a,", 1<<15-10) + "a}\n"),
			func(f string) []string { return []string{"config", "show", "--config", f} }, tinyConfig, 0},
		{"fmt of 1 MB of empty calls, past the steps limit", bytes.Repeat([]byte("f()\n"), 1<<18), fmtText, tinyText, 0},
		{"fmt of 1 MB of comments", bytes.Repeat([]byte("#\n"), 1<<19), fmtText, tinyText, 0},
		// An `else if` chain nests a branch in each else arm with no
		// brace nesting, so the bracket limit never met it: the whole
		// chain of 48,000 links (816 KB) was read, a dozen frames of
		// recursion a link, before its 32nd was refused: 83 MB over the
		// baseline, fmt 115. The reader now refuses it at that link.
		{"validate of an else if chain of 48,000 links", elseIfChain,
			func(f string) []string { return []string{"validate", "--lang", ledger, "--principal", "bookkeeper", f} }, tinyText, 0},
		{"fmt of the else if chain", elseIfChain, fmtText, tinyText, 0},
		{"run of the else if chain", elseIfChain,
			func(f string) []string { return []string{"run", "--lang", ledger, "--principal", "bookkeeper", f} }, tinyText, 0},
		// json.Indent puts each token of a value nested d deep behind
		// 2·d spaces: this 20 KB output printed 200 MB, 615 MB peak.
		// Output is indented 16 deep at most (report.MaxIndentDepth).
		// The Run itself holds about a kilobyte a level of nesting (Go
		// and CEL values; text output takes as much, 10 to 12 MiB over
		// the baseline): that, not 10 bytes a byte, bounds this row.
		{"run -f json of an output nested 9,990 deep", fmt.Appendf(nil, `{"x": %s1%s}`, strings.Repeat("[", 9990), strings.Repeat("]", 9990)),
			runJSON, tinyX, 16 << 20},
		// Planning each expression for a Run that validate never makes,
		// or CEL caches with a server's budgets keeping every expression
		// (about 2 KB each) though this process checks the program once,
		// took a valid program of 20,000 steps to 80 bytes a byte; then a
		// root CEL environment declaring every step's output, a call step
		// of 240 bytes and a copy of the program to 26 to 31; then the
		// JSON tree of the whole program held beside its step model, a
		// map of the step ids, three pointer strings a step and the step
		// model held while plan wrote the plan to 13 to 18; then the
		// step model held whole beside the plan made of it, the strings
		// of the steps copied out of the program's bytes and CEL caches
		// as large as the program to 10.5 – 12 (plan 12 – 13), with the
		// soft memory limit at 6 bytes a byte. With those let go of, a
		// live heap of 5 bytes a byte at its largest and the limit at 5
		// (progMemPerByte): 9 – 10, plan 10 – 11 at load 3 – 5
		// (docs/performance.md, "A large valid program").
		{"validate of a valid program of 20,000 steps", chainProgram(20000), chainOf("validate"), tinyChain, 0},
		{"plan of it", chainProgram(20000), chainOf("plan"), tinyChain, 0},
		// A Run held besides the checked program each expression planned
		// to run (about 900 bytes, 16 bytes a byte of this program), each
		// step's output as a value to its end and a copy of the trace's
		// entries: 51 to 57 bytes a byte. An expression that is one
		// declared variable is no longer planned, an output is let go of
		// once nothing addresses it, and a full trace is not copied: 21
		// to 22. The trace's entries, 4.8 MB held to the Run's end and
		// then printed, are handed over as the Run completes them, and
		// run's text keeps a row of each (engine.ExecuteEach): 15 to
		// 17, what validate holds, the program and its step model; with
		// the step model's tree let go of as it is read, 12.3 alone on a
		// quiet machine but 14.5 beside the suite's other tests in CI.
		// A checked expression of 48 bytes without a copy of its source,
		// each step naming the step after which its output goes instead
		// of lists of ids, the step model's strings views of the
		// program's bytes and the soft limit at 5 bytes a byte: 9 – 10
		// at load 3 – 5 (docs/performance.md, "A large valid program").
		{"run of the 20,000 steps", chainProgram(20000), chainOf("run"), tinyChain, 0},
		// A program file many cases name is read once and checked once
		// for the run (testcase.Refs, the engine's last check), not for
		// each case (cpuBound). The Run and replay of the case, not its
		// case file, bound the memory.
		{"test of 60 cases naming one program of 2,000 steps", namingBranch,
			func(f string) []string { return []string{"test", f} }, tinyCases, 24 << 20},
		// A diagnostic for each of 300,000 steps: 108 MB of text report
		// and 633 MB peak, 412 MB in json. Listed at most 50 of a code
		// (--max-per-rule), built at most program.MaxDiagnostics.
		{"validate of a program of 300,000 empty steps", []byte(`{"steps": [` + strings.Repeat("{},", 300000-1) + `{}], "output": "1"}`),
			planOf("validate"), tinyProg, 0},
		// A validate of 36,000 steps of one id, refused once the check
		// passes 1,000 diagnostics: the step model was built whole first
		// (144 bytes a step and its pointers, 9 bytes a byte live), and
		// the collector let the heap grow to twice what it found live,
		// 34 to 41 bytes a byte. The steps after the one whose id is one
		// wrong id too many are not modelled (program.Parse): 15 to 19
		// now, the message twice (serve's line and go-sdk's arguments)
		// and the JSON tree the program is read from; 7.7 – 8.9 once
		// that tree was built a step at a time, within the default
		// bound (docs/performance.md, "Hostile inputs").
		{"serve of a validate of 36,000 steps of one id", oneID,
			func(f string) []string { return []string{"serve", "--principal", "owner", todo, stdin + f} }, tinySession, 0},
		// serve reads none larger than a served Language can take
		// (--max-message-bytes, by default 4.3 MiB for deploy's limits)
		// and refuses a larger one unread. go-sdk's stdio transport read
		// a message through a json.Decoder and decoded it three times
		// more, serve's guard once more: 10 to 13 bytes a byte of this
		// 2 MB ping over the baseline. serve now reads each line once and
		// hands go-sdk the message it decoded, and refuses one whose
		// values would cost more than the tree budget once decoded, as
		// these one-character values would (docs/serve.md).
		{"serve of a 6 MB ping, over deploy's largest request", session(oneValues(6 << 20)), serve(deploy), tinySession, 0},
		{"serve of a 2 MB ping of one-character values, over the tree budget", session(oneValues(2 << 20)), serve(calc), tinySession, 0},
		// A _meta of numbers, which go-sdk would decode twice into Go
		// values (13 bytes a byte of 2 MB before), is refused beyond
		// some hundred kilobytes.
		{"serve of a ping whose _meta is 1 MB of nine-digit numbers", request("ping", fmt.Appendf(nil, `{"_meta":{"x":%s}}`, nineDigits(1000<<10))), serve(calc), tinySession, 0},
		// Within the budget, the costliest messages: a long string, which
		// go-sdk copies as it decodes the params (14 bytes a byte before),
		// and an input of the densest numbers the tree budget takes, which
		// the Run decodes (14 before).
		{"serve of a 2 MB ping of one string", session(fmt.Appendf(nil, "%q", strings.Repeat("a", 2<<20))), serve(calc), tinySession, 0},
		{"serve of an execute of a 2 MB input of nine-digit numbers",
			request("tools/call", fmt.Appendf(nil, `{"name":"calc_v1_execute","arguments":{"program":{"steps":[],"output":"1"},"input":{"x":%s}}}`, nineDigits(2<<20))), serve(calc), tinySession, 0},
		// serve's guard compares the member names of every object of a
		// message (docs/json.md); here 260,000 arguments the tool does
		// not declare, which the handler skips.
		{"serve of an execute whose arguments are 2 MB of distinct members",
			request("tools/call", fmt.Appendf(nil, `{"name":"calc_v1_execute","arguments":{"program":{"steps":[],"output":"1"},%s}}`, distinct(2<<20))), serve(calc), tinySession, 0},
		// Each of its 20 input_schema, 3,000 empty subschemas, is within
		// the budget of one schema (about 6 MB to compile), and the
		// engine kept every one a call met: 100 to 125 MB over the
		// baseline. The PDL compiler now charges a Language's schemas
		// together and refuses it at the second, so serve holds at most
		// the compiling of one schema at its budget.
		{"serve of a PDL of 20 distinct schemas each within the budget, all called", distinctSchemas(1, 20, 3000),
			func(f string) []string { return []string{"serve", f, stdin + callEvery} }, calc, 24 << 20},
		// 40 Languages of one such schema each, each Language within its
		// budget: the engine keeps the most recently used schemas within
		// 32 MiB of their estimate, and go-sdk answers the 40 requests
		// at once, so their schemas compiled together: 90 to 171 MiB
		// over the baseline. The engine now compiles at once schemas of
		// at most 8 MiB of estimate together (one of these): 63.
		{"serve of 40 Languages of one such schema each, every request written at once", distinctSchemas(40, 40, 3000),
			func(f string) []string { return []string{"serve", f, stdin + callEach} }, calc, 80 << 20},
		// plan and run padded every row of their table to the longest step
		// id: 300 MB of text, and run held it (658 MB). A cell past 40
		// characters now widens no column (pilotage help plan).
		{"plan of a program whose first step id is 300,000 bytes, then 1,000 short ones", longID(300_000, 1000), planOf("plan"), tinyProg, 0},
		// Graphviz laid out and drew every box: 167 to 258 MB, 24 MB of
		// SVG. Past picture.MaxBoxes the picture is refused; what remains
		// is plan's own check of 20,000 steps (plan as text takes as much).
		{"plan --format svg of a valid 1 MB program of 20,000 steps", longID(1, 20_000),
			func(f string) []string {
				return []string{"plan", "--principal", "owner", "--lang", todoOfSteps(t, 20_001), "--format", "svg", f}
			}, tinyProg, 40 << 20},
		// A Run of 1,001 steps takes 6 MB over the baseline's of none,
		// whatever their ids: held to that besides 10 bytes a byte.
		{"run of it", longID(300_000, 1000), planOf("run"), tinyProg, 10*300_000 + 10<<20},
		// cel-go parsed a program's one long expression whole before its
		// limits could refuse it, a kilobyte a code point: 810 MB and
		// 33 s for a 600 KB list literal. It is now refused unread past
		// expr.MaxSize code points.
		{"validate of a program whose output is a 600 KB list literal", longExpr("[" + strings.Repeat("1,", 300_000) + "1]"), planOf("validate"), tinyProg, 0},
		{"run of one whose output is 800 KB of 1+1+…", longExpr("1" + strings.Repeat("+1", 400_000)), planOf("run"), tinyProg, 0},
		// replay quoted a plan's step id whole in every trace's findings:
		// 200 traces of a plan whose one step id is 500,000 bytes took
		// 398 MB (text) to 1.52 GB (sarif). Every name a finding quotes is
		// now clipped to 120 bytes (docs/replay.md).
		{"replay of 200 traces against a plan whose step id is 500,000 bytes", longPlan,
			func(f string) []string { return []string{"replay", "--plan", f, traces} }, tinyPlan, 0},
		{"replay --format sarif of them", longPlan,
			func(f string) []string { return []string{"replay", "--format", "sarif", "--plan", f, traces} }, tinyPlan, 0},
		// lint built every finding of a snapshot wrong in every entry,
		// then listed 50 of each rule: 38 bytes a byte of 16.9 MB over
		// the baseline in every format; catalog-version-change held
		// both catalogs in a canonical form, 14 bytes a byte of the
		// baseline.
		{"lint of 30,000 catalog entries with three findings each", unknown, lint, snapshot, 0},
		{"lint --format json of them", unknown, lintAs("json"), snapshot, 0},
		{"lint --format sarif of them", unknown, lintAs("sarif"), snapshot, 0},
		{"lint --format github of them", unknown, lintAs("github"), snapshot, 0},
		{"lint --format junit of them", unknown, lintAs("junit"), snapshot, 0},
		{"lint --baseline of them", unknown, lintSince, snapshot, 0},
		{"lint --baseline of 5,500 valid catalog entries", valid, lintSince, snapshot, 0},
		// Compared with itself, the file is read twice.
		{"lint --baseline of them of themselves", valid, func(f string) []string { return []string{"lint", "--baseline", f, f} },
			snapshot, 20*int64(len(valid)) + 4<<20},
		// A pointer for each guide and entry holding their Language's
		// id, the key of its guides and catalog, would cost a 1 MB id
		// 1 MB an entry, and every listed finding would carry it in json
		// and sarif: the key is a stand-in of 120 bytes in them
		// (lint.Pass.PartPointer).
		{"lint of a snapshot whose 1 MB Language id keys 2,000 entries", longLang, lint, snapshot, 0},
		{"lint --format json of it", longLang, lintAs("json"), snapshot, 0},
		// replay makes a value's pointer only for a problem: a pointer
		// string for every value below that key would copy the id each
		// time (replay's path).
		{"replay --snapshot of one whose 1 MB Language id keys 2,000 guides", longLanguageSnapshot(t, 1_000_000, 1, 2000), replaySnapshot, snapshot, 0},
		// goldmark's syntax tree takes 300 to 550 bytes a line, table
		// cell and nested list or quote: 1 MB of list items took 170 MB
		// to lint and build, 200,000 headings 120 MB, a table of
		// 100,000 columns 69 MB. A guide of more than guidemd.MaxBlocks
		// of them is not parsed (docs/pdl.md, "Guides").
		{"lint of a PDL whose guide is 1 MB of list items", listItems, lintGuide, tinyGuide, 0},
		{"build of it", listItems, buildGuide, tinyGuide, 0},
		{"lint of a PDL whose guide is 200,000 headings", bytes.Repeat([]byte("## h\n"), 200_000), lintGuide, tinyGuide, 0},
		{"lint of a PDL whose guide is a table of 100,000 columns",
			[]byte("|" + strings.Repeat("a|", 100_000) + "\n|" + strings.Repeat("-|", 100_000) + "\n"), lintGuide, tinyGuide, 0},
		{"lint of a snapshot whose guide body is 1 MB of list items", guideSnapshot(t, string(listItems)), lint, snapshot, 0},
		// lint parsed the closed-sets guide generated for 25,000 risk
		// levels: 104 MB. Such a guide is now not parsed, and the
		// Language a pdl-value error. The compile of so many risk levels
		// then took 16 to 21 MB over todo's: the Language block's tree
		// kept whole (6 MB), each value's place in two maps (4 MB) and
		// the guide's rows as slices (4 MB); 6 to 8 MB since the compiler
		// lets go of each risk statement once compiled, the parse tree of
		// the block at its peak; 5 to 6 MB since the block is read a
		// statement at a time, what the levels are in the model at the
		// peak: each level's row, place and line of the guide, 144 bytes
		// for a line of 18, 8 bytes a byte before the collector's room
		// (docs/performance.md, "Letting go of a Language block" and "A
		// Language block a statement at a time"); 3.0 to 5.3 MB (7.0 to
		// 12.3 bytes a byte, the median 9.3) since the compile refuses
		// the guide from its head, not writing it whole, a level's place
		// is keyed by its value alone, and the soft memory limit's
		// slack, which the heap grew to, is 3 MiB, not 4 ("The last
		// Language rows under 10 bytes a byte"). Its own bound, 10 bytes
		// a byte and 1 MiB, not the 4 MiB of the others: they are most
		// of the bound of a file of 442 KB.
		{"lint of a PDL of 25,000 risk levels", manyRisks, lint, todo, 10*int64(len(manyRisks)) + 1<<20},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := write(strings.ReplaceAll(c.name, " ", "-")+filepath.Ext(c.tiny), c.src)
			limit := cmp.Or(c.limit, 10*int64(len(c.src))+4<<20)
			rss, base := leastOver(t, bin, c.args(c.tiny), c.args(file), limit)
			t.Logf("%d bytes: peak RSS %d KiB, %d KiB over a one-line file's", len(c.src), rss>>10, (rss-base)>>10)
			if rss-base > limit {
				t.Errorf("peak RSS %d bytes over a one-line file's, more than %d", rss-base, limit)
			}
			if bound := cpuBound[c.name]; bound > 0 {
				// The least of up to three runs, as for memory: a loaded
				// machine adds to a run's CPU time too.
				cpu := cpuTime(t, bin, c.args(file))
				for try := 1; try < 3 && cpu > bound; try++ {
					cpu = min(cpu, cpuTime(t, bin, c.args(file)))
				}
				t.Logf("CPU time %v", cpu)
				if cpu > bound {
					t.Errorf("CPU time %v, more than %v", cpu, bound)
				}
			}
		})
	}
}

// chainPDL is a Language of one entry, t.a, whose output o is its
// argument i, and of programs of up to 20,000 steps.
// todoOfSteps is the init template's todo Language with limits steps n,
// written to a temporary file: a program of more steps than the default
// 10,000 is refused at validation (§10.1), before what a row measures.
func todoOfSteps(t *testing.T, n int) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	const head = "language \"todo/v1\" {\n"
	if !bytes.Contains(src, []byte(head)) {
		t.Fatalf("todo.pdl has no line %q", head)
	}
	name := filepath.Join(t.TempDir(), "todo.pdl")
	src = bytes.Replace(src, []byte(head), fmt.Appendf(nil, "%s  limits {\n    steps %d\n  }\n", head, n), 1)
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

const chainPDL = `server "chain" version="1"
risk safe readOnly "Reads."
kind action callable "Called."
language "chain/v1" {
  mode immediate
  trace full
  retention none
  capabilities {
    guides
    catalog
    validate
    plan
    execute
  }
  limits {
    steps 20000
    program 2MiB
  }
  grammar {
    call c w
    branch if then else
    expressions cel
  }
  guide core "Chains" level=core {
    body """
      # Chains

      Call t.a.
      """
  }
}
entry "t.a" kind=action risk=safe {
  input_schema ` + "`" + `{"type": "object", "properties": {"i": {"type": "string"}}, "required": ["i"]}` + "`" + `
  output_schema ` + "`" + `{"type": "object", "properties": {"o": {"type": "string"}}, "required": ["o"]}` + "`" + `
  compute ` + "`" + `{"o": input.i}` + "`" + `
}
`

// chainSteps is a JSON array of n steps of chainPDL, each but the first
// passing on the output of the step before (q0 … q<n-1> in base 36).
func chainSteps(n int) []byte {
	id := func(i int) string { return "q" + strconv.FormatInt(int64(i), 36) }
	b := []byte(`[{"id":"q0","c":"t.a","w":{"i":"'x'"}}`)
	for i := 1; i < n; i++ {
		b = fmt.Appendf(b, `,{"id":"%s","c":"t.a","w":{"i":"steps.%s.output.o"}}`, id(i), id(i-1))
	}
	return append(b, ']')
}

// chainProgram is a program of chainSteps(n) whose output is the last one's.
func chainProgram(n int) []byte {
	return fmt.Appendf(nil, `{"steps":%s,"output":"steps.q%s.output.o"}`, chainSteps(n), strconv.FormatInt(int64(n-1), 36))
}

// longID is a JSON program of the todo Language whose first step id is
// n bytes, followed by short steps of its own.
func longID(n, short int) []byte {
	b := fmt.Appendf(nil, `{"output": "1", "steps": [{"id": "%s", "call": "todo.list", "with": {}}`, strings.Repeat("a", n))
	for i := range short {
		b = fmt.Appendf(b, `, {"id": "s%d", "call": "todo.list", "with": {}}`, i)
	}
	return append(b, "]}"...)
}

// repeatedStep is a plan whose steps are n copies of one step: every
// copy after the first reuses its id.
func repeatedStep(n int) []byte {
	step := `{"id": "add", "kind": "step", "calls": ["todo.add"], "risk": "write", "risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`
	return fmt.Appendf(nil, `{"steps": [%s], "max_risk": "write", "max_risk_hints": {"readOnly": false, "destructive": false, "openWorld": false}}`, strings.Repeat(step+", ", n-1)+step)
}

// longExpr is a program of no steps whose output is the expression x.
func longExpr(x string) []byte {
	return fmt.Appendf(nil, `{"steps": [], "output": %q}`, x)
}

// write writes src to dir/name and returns its path and src.
func write(t *testing.T, dir, name string, src []byte) (string, []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, src
}

// longBranch is a program of the todo Language: a branch whose id is n
// bytes, one step in its then arm, and short steps after it that each
// address that step, which is out of their scope: the diagnostic of each
// says which branch hides it.
func longBranch(n, after int) []byte {
	b := fmt.Appendf(nil, `{"output": "1", "steps": [{"id": "%s", "if": "true", "then": [{"id": "a", "call": "todo.list", "with": {}}], "else": []}`, strings.Repeat("b", n))
	for i := range after {
		b = fmt.Appendf(b, `, {"id": "s%d", "call": "todo.add", "with": {"item": "steps.a.output"}}`, i)
	}
	return append(b, "]}"...)
}

// longLanguageSnapshot is the example snapshot with a Language id of n
// bytes, a catalog of entries that each name an unknown Language rather
// than it (each entry's finding names the Language it is in) and as many
// more guides like its first.
func longLanguageSnapshot(t *testing.T, n, entries, guides int) []byte {
	return editSnapshot(t, func(snap map[string]any) {
		id := "homeflow/" + strings.Repeat("v", n)
		lang := snap["manifest"].(map[string]any)["languages"].([]any)[0].(map[string]any)
		lang["id"] = id
		catalog := snap["catalog"].(map[string]any)["homeflow/v1"].(map[string]any)
		first := catalog["items"].([]any)[0].(map[string]any)
		var items []any
		for i := range entries {
			item := maps.Clone(first)
			item["id"], item["languages"] = fmt.Sprint("e", i), []any{"x"}
			items = append(items, item)
		}
		catalog["items"] = items
		gs := snap["guides"].(map[string]any)["homeflow/v1"].([]any)
		for i := range guides {
			g := maps.Clone(gs[0].(map[string]any))
			g["id"] = fmt.Sprint("g", i)
			gs = append(gs, g)
		}
		snap["guides"] = map[string]any{id: gs}
		snap["catalog"] = map[string]any{id: catalog}
	})
}

// guideSnapshot is the example snapshot whose first guide's body is
// body.
func guideSnapshot(t *testing.T, body string) []byte {
	return editSnapshot(t, func(snap map[string]any) {
		snap["guides"].(map[string]any)["homeflow/v1"].([]any)[0].(map[string]any)["body"] = body
	})
}

// editSnapshot is the example snapshot, decoded, changed by edit and
// encoded again.
func editSnapshot(t *testing.T, edit func(snap map[string]any)) []byte {
	t.Helper()
	src, err := os.ReadFile(snaptest.Example(".."))
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	if err := json.Unmarshal(src, &snap); err != nil {
		t.Fatal(err)
	}
	edit(snap)
	out, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// longLanguagePDL is homeflow with a Language id of n bytes and entries
// each of a kind it does not define: each finding names the Language.
func longLanguagePDL(t *testing.T, n, entries int) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "langs", "homeflow", "homeflow.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte(`language "homeflow/v1"`), []byte(`language "homeflow/`+strings.Repeat("v", n)+`"`), 1)
	for i := range entries {
		src = fmt.Appendf(src, "entry \"e%d\" kind=nokind%d risk=safe {\n  name \"E\"\n}\n", i, i)
	}
	return src
}

// leakyEntryPDL is homeflow, written into dir with its guides and
// schemas, plus an entry that guest sees, whose id is n bytes and whose
// description names hidden entries h0 … h<hidden-1>, which guest does
// not see: a pdl-guide-name finding for each, each quoting the entry's
// id.
func leakyEntryPDL(t *testing.T, dir string, n, hidden int) (string, []byte) {
	t.Helper()
	home := filepath.Join("..", "langs", "homeflow")
	if err := os.CopyFS(dir, os.DirFS(home)); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(home, "homeflow.pdl"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range hidden {
		src = fmt.Appendf(src, "entry \"hidden.h%d\" kind=device risk=safe {\n  name \"H\"\n}\n", i)
		names = append(names, fmt.Sprintf("hidden.h%d", i))
	}
	src = fmt.Appendf(src, "entry \"sensors.%s\" kind=device risk=safe {\n  name \"L\"\n  description \"Pairs with %s.\"\n}\n", strings.Repeat("x", n), strings.Join(names, ", "))
	return write(t, dir, "leaky.pdl", src)
}

// planJSON is plan --format json of the program src, as replay reads it.
func planJSON(t *testing.T, bin, lang string, src []byte) []byte {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "prog.json")
	if err := os.WriteFile(prog, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "plan", "--format", "json", "--principal", "owner", "--lang", lang, prog).Output()
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return out
}

// tracesDir is a directory of n copies of a trace of a successful Run
// with no steps: against a plan with steps, each has a finding that
// quotes a plan step.
func tracesDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		trace := `{"run_id": "r", "mode": "immediate", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%d.trace.json", i)), []byte(trace), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReportsNotAmplified holds the reports of plan, run and replay on
// one long name to the size of their input: a table padded to one long
// step id, or a plan step id quoted whole in every trace's findings,
// would make reports of hundreds of MB of inputs of a few hundred KB.
// So for one long name quoted by the findings of many other places
// (report.Clip): validate of a branch whose 900 KB id the diagnostic of
// each of 600 later steps names, lint of a snapshot whose 1 MB Language
// id each entry's finding quotes twice (2,000 entries; here 200), and
// build of a PDL whose 1 MB Language id the finding of each of 500
// entries of an undefined kind names.
func TestReportsNotAmplified(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	todo := filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl")
	manyTodo := todoOfSteps(t, 20_001)
	prog := filepath.Join(dir, "long.json")
	src := longID(300_000, 1000)
	if err := os.WriteFile(prog, src, 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "long.plan.json")
	planSrc := planJSON(t, bin, todo, longID(500_000, 0))
	if err := os.WriteFile(plan, planSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	traces := tracesDir(t, 200)
	branch, branchSrc := write(t, dir, "branch.json", longBranch(900_000, 600))
	snap, snapSrc := write(t, dir, "snap.json", longLanguageSnapshot(t, 1_000_000, 200, 0))
	pdl, pdlSrc := write(t, dir, "long.pdl", longLanguagePDL(t, 1_000_000, 500))
	leaky, leakySrc := leakyEntryPDL(t, t.TempDir(), 200_000, 50)
	many, manySrc := write(t, dir, "many.json", longID(1, 20_000))
	manyPlan, manyPlanSrc := write(t, dir, "many.plan.json", planJSON(t, bin, manyTodo, manySrc))
	manyRunSrc, _ := exec.Command(bin, "run", "--format", "json", "--principal", "owner", "--lang", manyTodo, many).Output()
	manyRun, _ := write(t, dir, "many.run.json", manyRunSrc)
	for _, c := range []struct {
		name string
		args []string
		in   int
	}{
		{"plan", []string{"plan", "--principal", "owner", "--lang", todo, prog}, len(src)},
		{"run", []string{"run", "--principal", "owner", "--lang", todo, prog}, len(src)},
		{"replay", []string{"replay", "--plan", plan, traces}, len(planSrc)},
		{"replay json", []string{"replay", "--format", "json", "--plan", plan, traces}, len(planSrc)},
		{"replay sarif", []string{"replay", "--format", "sarif", "--plan", plan, traces}, len(planSrc)},
		{"validate", []string{"validate", "--principal", "owner", "--lang", todo, branch}, len(branchSrc)},
		{"lint", []string{"lint", snap}, len(snapSrc)},
		{"lint json", []string{"lint", "--format", "json", snap}, len(snapSrc)},
		{"lint sarif", []string{"lint", "--format", "sarif", snap}, len(snapSrc)},
		{"build", []string{"build", "-o", filepath.Join(dir, "out"), pdl}, len(pdlSrc)},
		{"lint pdl", []string{"lint", pdl}, len(pdlSrc)},
		// Quoting the entry's 200 KB id three times in the finding of
		// each hidden name its description gives would make 30 MB.
		{"lint pdl entry text", []string{"lint", leaky}, len(leakySrc)},
		// A picture of 20,000 boxes would be tens of MB; past
		// picture.MaxBoxes plan refuses it and the page says so in its
		// place.
		{"plan svg", []string{"plan", "--principal", "owner", "--lang", manyTodo, "--format", "svg", many}, len(manySrc)},
		{"replay html", []string{"replay", "--format", "html", "--plan", manyPlan, manyRun}, len(manyPlanSrc) + len(manyRunSrc)},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out // build reports on standard error
			runChild(t, cmd, c.args)
			t.Logf("%d bytes of input, %d of report", c.in, out.Len())
			if out.Len() > 2*c.in {
				t.Errorf("%d bytes of report, more than twice the %d of input", out.Len(), c.in)
			}
		})
	}
}

// TestManyFilesPeakRSS holds lint and replay of 20,000 small broken
// files (a manifest with four findings, a trace with four against the
// homeflow plan: 80,000 findings) in text and sarif to 32 MiB over the
// peak of the same verb on one of them (issue 13, item 8). Each file's
// report is written before the next file is read (report.Stream), so
// what grows with the files is only what a run keeps of each: its name,
// where it comes in the order written (verb.Ahead), what expanding the
// directory keeps and, for replay, its opener: about 250 bytes a file
// live, which the collector lets grow to twice before it collects, with
// its own metadata besides. 13 to 20 MiB over were measured (0.7 to 1 KiB
// a file); the bound is 1.6 KiB a file. Before, every finding was held
// to the end, about 1.3 KB each: 82 and 245 MB over for lint in text and
// sarif, 110 and 612 MB for replay.
func TestManyFilesPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	const n, limit = 20_000, 32 << 20
	manifests, traces := t.TempDir(), t.TempDir()
	for i := range n {
		write(t, manifests, fmt.Sprintf("m%05d.json", i), []byte(`{"pilotage": "1.1", "languages": [{}]}`))
		write(t, traces, fmt.Sprintf("t%05d.trace.json", i), []byte(`{"run_id": "r", "mode": "immediate", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`))
	}
	P := filepath.Join("..", "langs", "homeflow")
	plan, _ := write(t, t.TempDir(), "plan.json", planJSON(t, bin, filepath.Join(P, "homeflow.pdl"), mustRead(t, filepath.Join(P, "programs", "evening.json"))))
	for _, c := range []struct {
		name string
		args func(in string) []string
		dir  string
	}{
		{"lint", func(in string) []string { return []string{"lint", in} }, manifests},
		{"lint sarif", func(in string) []string { return []string{"lint", "--format", "sarif", in} }, manifests},
		{"replay", func(in string) []string { return []string{"replay", "--plan", plan, in} }, traces},
		{"replay sarif", func(in string) []string { return []string{"replay", "--format", "sarif", "--plan", plan, in} }, traces},
	} {
		t.Run(c.name, func(t *testing.T) {
			one, _ := filepath.Glob(filepath.Join(c.dir, "*"))
			rss, base := leastOver(t, bin, c.args(one[0]), c.args(c.dir), limit)
			t.Logf("%s of %d files: peak RSS %d KiB, %d KiB over one file's", c.name, n, rss>>10, (rss-base)>>10)
			if rss-base > limit {
				t.Errorf("%s of %d files: peak RSS %d bytes over one file's, more than 32 MiB", c.name, n, rss-base)
			}
		})
	}
}

// mustRead is the file at path.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// distinctSchemas is a PDL of the Languages s/l0 … s/l<langs-1> and n
// entries, e0 …, each with a distinct input_schema of k empty
// subschemas; entry i is seen by Language i modulo langs.
func distinctSchemas(langs, n, k int) []byte {
	b := []byte("server \"s\" version=\"1\"\nrisk safe readOnly \"Reads.\"\n")
	for i := range langs {
		b = fmt.Appendf(b, `language "s/l%d" {
  locator json-pointer
  mode immediate
  trace full
  retention none
  capabilities {
    guides
    catalog
    validate
    execute
  }
  grammar {
    call call with
    input
    expressions cel
  }
  kind thing callable "A thing."
  guide core "Things" level=core {
    body """
      # Things

      Call the things.
      """
  }
}
`, i)
	}
	for i := range n {
		b = fmt.Appendf(b, "entry \"e%d\" kind=thing risk=safe {\n  languages \"s/l%d\"\n  input_schema `{\"title\": \"s%d\", \"anyOf\": [%s{}]}`\n  returns `{\"ok\": true}`\n}\n",
			i, i%langs, i, strings.Repeat("{}, ", k-1))
	}
	return b
}

// cpuBound bounds the CPU time, user and system, of rows of
// TestHostilePeakRSS that take seconds when the work is done once for
// each piece of the input rather than once (docs/performance.md).
var cpuBound = map[string]time.Duration{
	"replay of a trace with a member of 16 MiB of one-character values": 1500 * time.Millisecond,
	"replay of a trace that is 16 MiB of one-character values":          1500 * time.Millisecond,
	"replay of a trace whose steps are 16 MiB of one-character values":  1500 * time.Millisecond,
	// Each case reading and checking its program takes 12 to 13 s.
	"test of 60 cases naming one program of 2,000 steps": 6 * time.Second,
	// Building every finding, not only those listed, takes 1.5 s.
	"lint of 30,000 catalog entries with three findings each": 1200 * time.Millisecond,
	// Copying the id into each pointer takes 48 s or more.
	"lint of a snapshot whose 1 MB Language id keys 2,000 entries": 1500 * time.Millisecond,
	// A pointer for each value, not only for a problem, takes 1.8 s.
	"replay --snapshot of one whose 1 MB Language id keys 2,000 guides": 1000 * time.Millisecond,
}

// fitHeld is the input object with the most one-character values whose
// decoded values a Run of a Language with limits memory limit holds
// (expr.CheckHeld).
func fitHeld(t *testing.T, limit int64) []byte {
	input := func(n int) []byte { return append(append([]byte(`{"x": `), oneValues(2*n)...), '}') }
	lo, hi := 2, int(limit/8)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if held, err := expr.CheckHeld(input(mid)); err != nil {
			t.Fatal(err)
		} else if held <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return input(lo)
}

// TestEndlessPeakRSS reads /dev/zero, an input that never ends, as a
// file and as standard input: each verb reads one byte past the bound of
// what it reads (internal/base/inputs) and stops, holding that bound once
// over its peak on a one-line file, plus 16 MiB. Before, each grew by
// gigabytes a few seconds until it was killed.
func TestEndlessPeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	dir := t.TempDir()
	tinyJSON, tinyPDL := filepath.Join(dir, "tiny.json"), filepath.Join(dir, "tiny.pdl")
	for name, src := range map[string]string{tinyJSON: "{}\n", tinyPDL: "x\n"} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		name       string
		base, args []string
		bound      int64
	}{
		{"lint /dev/zero", []string{"lint", tinyJSON}, []string{"lint", "/dev/zero"}, inputs.MaxArtifact},
		{"cat /dev/zero | lint -", []string{"lint", "-", stdin + tinyJSON}, []string{"lint", "-", stdin + "/dev/zero"}, inputs.MaxArtifact},
		{"build /dev/zero", []string{"build", "-o", out, tinyPDL}, []string{"build", "-o", out, "/dev/zero"}, pdl.MaxFileBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			limit := c.bound + 16<<20
			rss, base := leastOver(t, bin, c.base, c.args, limit)
			t.Logf("peak RSS %d KiB, %d KiB over a one-line file's", rss>>10, (rss-base)>>10)
			if rss-base > limit {
				t.Errorf("peak RSS %d bytes over a one-line file's, more than its bound and 16 MiB (%d)", rss-base, limit)
			}
		})
	}
}

// oneValues is a JSON array of n bytes (n even) of one-digit values
// and one two-digit value.
func oneValues(n int) []byte {
	return append(append([]byte("["), bytes.Repeat([]byte("1,"), n/2-2)...), "11]"...)
}

// oneChars is n bytes (n even) of one-digit values in an array with a
// trailing comma, which is not JSON.
func oneChars(n int) []byte {
	return append(append([]byte("["), bytes.Repeat([]byte("1,"), n/2-1)...), ']')
}

// stdin marks the argument of peakRSS that names the file to give the
// binary on standard input, not as an argument.
const stdin = "<"

// leastOver measures the peak RSS of args and of its baseline, baseArgs
// (the same verb on a one-line file), and measures both again, up to
// twice, while the first is over the second by more than limit, keeping
// the pair with the least difference: under load a collection that ends
// late lets the heap grow past what the verb needs (rows near their
// bound measured 10 to 15 MB over their baseline from one run to the
// next), and the baseline, some megabytes, moves as well, so a lone
// low baseline failed a row; a verb that needs more than its bound
// takes it every time.
func leastOver(t *testing.T, bin string, baseArgs, args []string, limit int64) (rss, base int64) {
	t.Helper()
	for try := 0; try < 3 && (try == 0 || rss-base > limit); try++ {
		b, r := peakRSS(t, bin, baseArgs), peakRSS(t, bin, args)
		if try == 0 || r-b < rss-base {
			rss, base = r, b
		}
	}
	return rss, base
}

// peakRSS runs the binary under GNU time, which forks it from its own
// small process, and returns its peak resident set in bytes. Not the
// rusage of the child itself: Go starts a child by vfork, and Linux
// carries the parent's high-water RSS into the child across exec, so
// that is the larger of the child's peak and the test process's, and
// hides any child below what the test process once held.
func peakRSS(t *testing.T, bin string, args []string) int64 {
	t.Helper()
	kb, _ := gnuTime(t, bin, args)
	return kb << 10
}

// cpuTime runs the binary as peakRSS does and returns its CPU time, user
// and system.
func cpuTime(t *testing.T, bin string, args []string) time.Duration {
	t.Helper()
	_, cpu := gnuTime(t, bin, args)
	return cpu
}

// gnuTime runs the binary under GNU time (peakRSS says why) and returns
// its peak resident set in KiB and its CPU time.
func gnuTime(t *testing.T, bin string, args []string) (int64, time.Duration) {
	t.Helper()
	const gnuTime = "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		t.Skipf("no %s to measure a child's peak RSS: %v", gnuTime, err)
	}
	out := filepath.Join(t.TempDir(), "rss")
	var in *os.File
	if last := args[len(args)-1]; strings.HasPrefix(last, stdin) {
		f, err := os.Open(strings.TrimPrefix(last, stdin))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in, args = f, args[:len(args)-1]
	}
	cmd := exec.Command(gnuTime, append([]string{"-f", "%M %U %S", "-o", out, bin}, args...)...)
	cmd.Stdin = in
	runChild(t, cmd, args)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The last line; one before it says when the command exited non-zero.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var kb int64
	var user, sys float64
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%d %f %f", &kb, &user, &sys); err != nil {
		t.Fatalf("%s wrote %q: %v", gnuTime, b, err)
	}
	return kb, time.Duration((user + sys) * float64(time.Second))
}

// runChild runs cmd, a verb with args, and fails unless it exited 0, 1 or 2.
func runChild(t *testing.T, cmd *exec.Cmd, args []string) {
	t.Helper()
	var stderr bytes.Buffer
	if cmd.Stderr == nil { // else the caller reads it
		cmd.Stderr = &stderr
	}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%v: %v", args, err)
	}
	if code := cmd.ProcessState.ExitCode(); code > 2 || code < 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr.Bytes())
	}
}

// overLongServer is a stdio Pilotage server, a shell script, that
// answers the handshake, then tools/list with a line of its first
// argument's bytes, and waits for its input to end.
const overLongServer = `id() { printf '%s' "$l" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p'; }
read -r l; printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$(id)"
read -r l; printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"dev.pilotage/pilotage":{"version":"1.1","discover":"pilotage_discover"}},"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$(id)"
read -r l
read -r l
printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"x":"' "$(id)"
head -c "$0" /dev/zero | tr '\0' x
echo '"}}'
while read -r l; do :; done
`

// TestConformOverLongLinePeakRSS holds conform, given a 200 MB line by a
// stdio server after initialize, to 8 times the bound of one message
// (conform.MaxMessageBytes, 16 MiB) over its peak on a one-byte line:
// the line is read to its end and dropped past the bound, never held
// (the go-sdk's reader and conform's message-json check each hold at
// most the bound of it; a line just within the bound, which both decode,
// takes more than this one). The server is a shell script whose own
// peak, which GNU time counts in conform's, is a few megabytes.
// Measured at 72 to 92 MB over the baseline (docs/performance.md,
// "An over-long line of a stdio server").
func TestConformOverLongLinePeakRSS(t *testing.T) {
	bin := pilotageBinary(t)
	args := func(n int) []string {
		return []string{"conform", "--save", t.TempDir(), "--timeout", "1s", "--", "sh", "-c", overLongServer, strconv.Itoa(n)}
	}
	limit := int64(8 * conform.MaxMessageBytes)
	rss, base := leastOver(t, bin, args(1), args(200_000_000), limit)
	t.Logf("peak RSS %d KiB, %d KiB over a one-byte line's", rss>>10, (rss-base)>>10)
	if rss-base > limit {
		t.Errorf("peak RSS %d bytes over a one-byte line's, more than 8 times the bound of a message (%d)", rss-base, limit)
	}
}
