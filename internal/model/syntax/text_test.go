package syntax

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/textprog"
)

// everyConstruct is a grammar with every construct, homeflow's members.
var everyConstruct = language.Grammar{Call: "call", Args: "with", Branch: "if", Arms: []string{"then", "else"},
	Loop: "for_each", Item: "as", Body: "do", Run: "run", RunArgs: "with", Input: true, Expressions: "cel"}

// textLanguage is a Language of grammar g with the text surface; words
// are `key=value` lines overriding the default keywords and punctuation.
func textLanguage(g language.Grammar, words string) *language.Language {
	ts := language.DefaultTextSyntax
	ts.Fence = "flow"
	for _, line := range strings.Fields(words) {
		k, v, _ := strings.Cut(line, "=")
		*map[string]*string{"if": &ts.If, "else": &ts.Else, "for": &ts.For, "in": &ts.In, "run": &ts.Run,
			"output": &ts.Output, "assign": &ts.Assign, "bind": &ts.Bind}[k] = v
	}
	return &language.Language{ID: "flow/v1", Grammar: g, Text: &ts, Locator: pilotage.LocatorTextRange}
}

// render shows what the text surface read: every step with its id, the
// JSON Pointer of its JSON form and the text range that pointer locates,
// each expression as CEL reads it, then the diagnostics, located.
func render(p *Parsed, g *language.Grammar) string {
	var b strings.Builder
	at := func(ptr string) string {
		r := p.Locate([]pilotage.Diagnostic{{Path: pilotage.PointerPath(ptr)}})[0].Path.Text
		return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column)
	}
	ex := func(name string, e *program.Expr) {
		if e != nil {
			fmt.Fprintf(&b, "    %s %s %q\n", name, at(e.Pointer), e.Src)
		}
	}
	kinds := map[program.Kind]string{program.Call: "call", program.Branch: "branch", program.Loop: "loop", program.Run: "run"}
	program.Walk(p.Program.Steps, func(s *program.Step) {
		fmt.Fprintf(&b, "%s %s %s %s", s.ID, kinds[s.Kind], s.Pointer(g), at(s.Pointer(g)))
		if s.Target != "" {
			fmt.Fprintf(&b, " target %q %s", s.Target, at(s.TargetPointer(g)))
		}
		if s.Item != "" {
			fmt.Fprintf(&b, " item %q", s.Item)
		}
		b.WriteString("\n")
		for _, a := range s.Args {
			ex("arg "+a.Name, a.Expr)
		}
		ex("cond", s.Cond)
		ex("list", s.List)
	})
	if p.Program.Output != nil {
		fmt.Fprintf(&b, "output %s %q\n", at("/output"), p.Program.Output.Src)
	}
	for _, d := range p.Locate(p.Diagnostics) {
		r := d.Path.Text
		fmt.Fprintf(&b, "%d:%d-%d:%d %s: %s", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column, d.Code, d.Message)
		if d.Hint != "" {
			fmt.Fprintf(&b, " (%s)", d.Hint)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestTextGolden reads every testdata/text/*.txtar: its program.txt with
// the words of its optional words section, in a grammar with every
// construct (or the one its grammar section names: "calls" has calls
// only), and compares what was read with its want section.
func TestTextGolden(t *testing.T) {
	golden.Archives(t, "testdata/text/*.txtar", func(t *testing.T, a *golden.Archive) {
		src, ok := a.File("program.txt")
		if !ok {
			t.Fatal("no program.txt")
		}
		words, _ := a.File("words")
		g := everyConstruct
		if gr, ok := a.File("grammar"); ok && strings.TrimSpace(string(gr)) == "calls" {
			g = language.Grammar{Call: "call", Args: "with", Expressions: "cel"}
		}
		p, err := For(textLanguage(g, string(words))).Parse(src, 8)
		if err != nil {
			t.Fatal(err)
		}
		a.Check(t, "want", []byte(render(p, &g)))
	})
}

// Nesting past the Language's depth is a limit error, as in the JSON
// form, found before the parser recurses: 10^5 open braces, brackets
// or parentheses cost one pass.
func TestTextDeepNesting(t *testing.T) {
	syn := For(textLanguage(everyConstruct, ""))
	for name, src := range map[string]string{
		"braces":     strings.Repeat("if true {\n", 100_000),
		"parens":     "f.g(x: " + strings.Repeat("(", 100_000) + ")",
		"constructs": strings.Repeat("if true {\n", 9) + "a.b()" + strings.Repeat("}", 9),
	} {
		_, err := syn.Parse([]byte(src), 8)
		var le *program.LimitError
		if !errors.As(err, &le) || !strings.Contains(le.Msg, "limit") {
			t.Errorf("%s: want a limit error, got %v", name, err)
		}
	}
	if p, err := syn.Parse([]byte(strings.Repeat("if true {\n", 7)+"a.b()"+strings.Repeat("}", 7)), 8); err != nil || !pilotage.Valid(p.Diagnostics) {
		t.Errorf("8 levels of sequences are within a depth of 8: %v %v", err, p.Diagnostics)
	}
}

// An `else if` chain nests a branch in each else arm though no brace
// nests: its link past the Language's depth is the limit error, at that
// link's `if`, for Parse and Format alike, and the rest of the chain is
// neither read nor built. A chain of 48,000 links (816 KB) took 100 bytes
// a byte, the reader recursing a dozen frames a link, and 4x the links
// 8.5x the time; now what it allocates is the copy of the text, and
// the depth of a chain within the limit, one link short of it, reads.
// -short's long chain has 12,000 links.
func TestTextElseIfChain(t *testing.T) {
	syn := For(textLanguage(everyConstruct, ""))
	fm := syn.(Formatter)
	chain := func(n int) []byte {
		return []byte("if true {\n}" + strings.Repeat(" else if true {\n}", n) + "\na.b()\n")
	}
	const want = "the program nests constructs deeper than this Language's limit of 32 (at line 33, column 8)"
	long := 48_000
	if testing.Short() {
		long = 12_000
	}
	for _, n := range []int{32, long} {
		src := chain(n)
		_, err := syn.Parse(src, 32)
		var le *program.LimitError
		if !errors.As(err, &le) || le.Msg != want || le.At != (pilotage.LineCol{Line: 33, Column: 8}) {
			t.Errorf("Parse of %d links: %v, want a limit error %q", n, err, want)
		}
		if _, _, err := fm.Format(src, 32); !errors.As(err, &le) || le.Msg != want {
			t.Errorf("Format of %d links: %v, want a limit error %q", n, err, want)
		}
		if n < 1000 {
			continue
		}
		got := memtest.Allocated(func() { _, _ = syn.Parse(src, 32) })
		t.Logf("Parse of %d links (%d bytes) allocated %.2f bytes a byte", n, len(src), float64(got)/float64(len(src)))
		if got > 2*uint64(len(src)) {
			t.Errorf("Parse of %d links (%d bytes) allocated %d bytes, more than 2 a byte", n, len(src), got)
		}
	}
	if p, err := syn.Parse(chain(31), 32); err != nil || !pilotage.Valid(p.Diagnostics) {
		t.Errorf("31 links are within a depth of 32: %v %v", err, p.Diagnostics)
	}
}

// A 100 MB program on one line is read in one pass and refused with a
// finding at its first bad token; the engine refuses it earlier by its
// program size limit. Here a long valid call is read, and its ids and
// ranges come out in time proportional to it.
func TestTextLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 8 MB")
	}
	src := "a.b(x: \"" + strings.Repeat("é", 4<<20) + "\") ?"
	p, err := For(textLanguage(everyConstruct, "")).Parse([]byte(src), 8)
	if err != nil || len(p.Diagnostics) != 1 {
		t.Fatalf("%v %v", err, p.Diagnostics)
	}
	r := p.Locate(p.Diagnostics)[0].Path.Text
	if want := 4<<20 + 12; r.Start.Line != 1 || r.Start.Column != want {
		t.Errorf("the stray ? is at column %d (code points), want %d", r.Start.Column, want)
	}
}

// A program holds at most as many statements as a Run of its Language
// executes steps: the statement past the limit is a resource_limit
// request error at it (§10.1; nested statements count, each where it
// starts), and nothing after it is built. fmt refuses it alike, and the
// JSON form of the same program too.
func TestTextStepsLimit(t *testing.T) {
	l := textLanguage(everyConstruct, "")
	l.Limits.Steps = 3
	syn := For(l)
	if p, err := syn.Parse([]byte("a.b()\nif x { c.d() }\n"), 8); err != nil || !pilotage.Valid(p.Diagnostics) {
		t.Fatalf("three statements are within a limit of 3: %v %v", err, p.Diagnostics)
	}
	over := "a.b()\nif x { c.d() } else { e.f(); g.h() }\ni.j()\n"
	want := "the program has more than 3 statements (at line 2, column 23), past limits steps, which bounds the steps a program writes, every arm of a branch counted; split the program, or raise the limit (limits { steps N } in the Language's PDL)"
	_, err := syn.Parse([]byte(over), 8)
	var le *program.LimitError
	if !errors.As(err, &le) || le.At != (pilotage.LineCol{Line: 2, Column: 23}) || le.Msg != want {
		t.Errorf("want the limit error at e.f(), got %v", err)
	}
	if _, _, err := syn.(Formatter).Format([]byte(over), 8); !errors.As(err, &le) || le.Msg != want {
		t.Errorf("fmt: want validate's limit error, got %v", err)
	}
	jl := textLanguage(everyConstruct, "")
	jl.Text, jl.Limits.Steps = nil, 3
	_, err = For(jl).Parse([]byte(`{"steps": [{"id": "a", "call": "a.b"}, {"id": "b", "if": "x", "then": [{"id": "c", "call": "c.d"}], "else": [{"id": "e", "call": "e.f"}]}]}`), 8)
	if !errors.As(err, &le) || le.Pointer != "/steps/1/else/0" || !strings.Contains(le.Msg, "more than 3 steps") {
		t.Errorf("JSON: want the limit error at /steps/1/else/0, got %v", err)
	}
}

// Generated ids do not change under white space and comment edits, and
// an edit of a statement of another base leaves them too.
func TestTextIDStability(t *testing.T) {
	ids := func(src string) string {
		p, err := For(textLanguage(everyConstruct, "")).Parse([]byte(src), 8)
		if err != nil || !pilotage.Valid(p.Diagnostics) {
			t.Fatalf("%q: %v %v", src, err, p.Diagnostics)
		}
		var out []string
		program.Walk(p.Program.Steps, func(s *program.Step) { out = append(out, s.ID) })
		return strings.Join(out, " ")
	}
	base := "a.b(x: 1)\nif input.c { a.b(x: 2) } else { c.d() }\nfor i in input.l { a.b(x: i) }\n"
	want := ids(base)
	for _, edit := range []string{
		"# a comment\n\n  a.b(x: 1)   # trailing\nif input.c {\n  a.b(x: 2)\n} else {\n  c.d()\n}\nfor i in input.l {\n\n a.b(x: i) }\n",
		"a.b(x: 1); if input.c { a.b(x: 2) } else { c.d() }; for i in input.l { a.b(x: i) }",
		"a.b(x: 1)\nif input.c { a.b(x: 2) } else { c.d(); c.d() }\nfor i in input.l { a.b(x: i) }\n",
		"e.f()\na.b(x: 1)\nif input.c { a.b(x: 2) } else { c.d() }\nfor i in input.l { a.b(x: i) }\n",
	} {
		got := ids(edit)
		if strings.Contains(edit, "e.f()") {
			got = strings.TrimPrefix(got, "e_f_1 ")
		}
		if strings.Contains(edit, "c.d(); c.d()") {
			got = strings.Replace(got, "c_d_1 c_d_2", "c_d_1", 1)
		}
		if got != want {
			t.Errorf("ids changed by %q:\n got %s\nwant %s", edit, got, want)
		}
	}
	if got := ids("a.b(x: 0)\n" + base); !strings.HasPrefix(got, "a_b_1 a_b_2") {
		t.Errorf("an earlier call of the same entry renumbers the later ones: %s", got)
	}
}

// FuzzText: whatever the text, reading it never panics, and every
// diagnostic is inside the text: its start is not after its end, and
// both are on a line of the text at a column at most one past the
// line's last character. So is every value of the program a diagnostic
// may name (placed by reading its statement again): each step, its id,
// target and arguments, each expression and a range inside it, and
// pointers under them that name nothing.
func FuzzText(f *testing.F) {
	for _, s := range golden.Sections(f, "testdata/text/*.txtar", func(name string) bool { return name == "program.txt" }) {
		f.Add(s)
	}
	syn := For(textLanguage(everyConstruct, ""))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := syn.Parse(src, 8)
		if err != nil {
			return
		}
		// A lone CR ends a line for every position reported
		// (textpos.LineEnd), the lone CR's own diagnostic's end too.
		lines := bytes.Split(bytes.ReplaceAll(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\x00\n")), []byte("\r"), []byte("\n")), []byte("\n"))
		in := func(lc pilotage.LineCol) bool {
			return lc.Line >= 1 && lc.Line <= len(lines) && lc.Column >= 1 && lc.Column <= len([]rune(string(lines[lc.Line-1])))+1
		}
		diags := p.Diagnostics
		if pilotage.Valid(diags) {
			at := func(ptr string, r *pilotage.CharRange) {
				diags = append(diags, pilotage.Diagnostic{Path: pilotage.PointerPath(ptr), Range: r})
			}
			expr := func(e *program.Expr) {
				if e != nil {
					at(e.Pointer, nil)
					at(e.Pointer, &pilotage.CharRange{Start: 0, End: len([]rune(e.Src))})
				}
			}
			program.Walk(p.Program.Steps, func(s *program.Step) {
				step := s.Pointer(&everyConstruct)
				for _, ptr := range []string{step, step + "/id", s.TargetPointer(&everyConstruct), s.ArgsPointer(&everyConstruct), step + "/then", step + "/else/9", step + "/as", step + "/do/x"} {
					at(ptr, nil)
				}
				for _, a := range s.Args {
					expr(a.Expr)
				}
				expr(s.Cond)
				expr(s.List)
			})
			expr(p.Program.Output)
		}
		for _, d := range p.Locate(diags) {
			r := d.Path.Text
			if r == nil || !in(r.Start) || !in(r.End) || r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Column < r.Start.Column {
				t.Fatalf("diagnostic outside the text %q: %+v", src, d)
			}
		}
	})
}

// TestTextFormat formats every testdata/text program that reads without
// errors: the result is its fmt section, reads as the same steps with the
// same ids, and formatting it again changes nothing.
func TestTextFormat(t *testing.T) {
	golden.Archives(t, "testdata/text/*.txtar", func(t *testing.T, a *golden.Archive) {
		src, _ := a.File("program.txt")
		words, _ := a.File("words")
		syn := For(textLanguage(everyConstruct, string(words)))
		out, diags, err := syn.(Formatter).Format(src, 8)
		if err != nil || len(diags) > 0 {
			return // the syntax error goldens
		}
		a.Check(t, "fmt", out)
		again, _, _ := syn.(Formatter).Format(out, 8)
		if !bytes.Equal(again, out) {
			t.Errorf("formatting is not idempotent:\n%s\nthen\n%s", out, again)
		}
		before, _ := syn.Parse(src, 8)
		after, _ := syn.Parse(out, 8)
		if stepIDs(before.Program) != stepIDs(after.Program) || !pilotage.Valid(after.Diagnostics) != !pilotage.Valid(before.Diagnostics) {
			t.Errorf("formatting changed the program: %s → %s", stepIDs(before.Program), stepIDs(after.Program))
		}
	})
}

// TestTextFormatDeep: blocks nested past maxIndent keep its margin, so
// a program of many statements deep inside is not amplified by its
// indentation (127 levels around 9,000 six-byte calls: 43 times its
// size before, 254 spaces a line), and formatting stays idempotent.
func TestTextFormatDeep(t *testing.T) {
	fm := For(textLanguage(everyConstruct, "")).(Formatter)
	var want strings.Builder
	for i := range 10 {
		want.WriteString(strings.Repeat("  ", min(i, 8)) + "if input.x {\n")
	}
	want.WriteString(strings.Repeat("  ", 8) + "fan.set(\n" + strings.Repeat("  ", 8) + "on: true,\n" + strings.Repeat("  ", 8) + ")\n")
	for i := 9; i >= 0; i-- {
		want.WriteString(strings.Repeat("  ", min(i, 8)) + "}\n")
	}
	src := strings.Repeat("if input.x {", 10) + "fan.set(\non: true)" + strings.Repeat("}", 10) + "\n"
	out, diags, err := fm.Format([]byte(src), 32)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if string(out) != want.String() {
		t.Errorf("formatted:\n%s\nwant:\n%s", out, want.String())
	}
	src = strings.Repeat("if input.x {", 127) + strings.Repeat("fan.set(on: true);", 3000) + strings.Repeat("}", 127)
	out, diags, err = fm.Format([]byte(src), 200)
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if len(out) > 3*len(src) {
		t.Errorf("%d bytes formatted to %d, more than 3 times", len(src), len(out))
	}
	again, _, _ := fm.Format(out, 200)
	if !bytes.Equal(again, out) {
		t.Errorf("formatting is not idempotent")
	}
}

// FuzzTextFormat formats any text: never a panic, and text it formats
// formats to itself and reads as the same steps.
func FuzzTextFormat(f *testing.F) {
	for _, s := range golden.Sections(f, "testdata/text/*.txtar", func(name string) bool { return name == "program.txt" }) {
		f.Add(s)
	}
	syn := For(textLanguage(everyConstruct, ""))
	fm := syn.(Formatter)
	f.Fuzz(func(t *testing.T, src []byte) {
		out, diags, err := fm.Format(src, 8)
		if err != nil || len(diags) > 0 {
			return
		}
		again, diags, err := fm.Format(out, 8)
		if err != nil || len(diags) > 0 || !bytes.Equal(again, out) {
			t.Fatalf("formatting %q gave %q, then %q (%v %v)", src, out, again, diags, err)
		}
		before, err1 := syn.Parse(src, 8)
		after, err2 := syn.Parse(out, 8)
		if err1 != nil || err2 != nil {
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("formatting %q changed whether it reads: %v, then %v", src, err1, err2)
			}
			return
		}
		if stepIDs(before.Program) != stepIDs(after.Program) {
			t.Fatalf("formatting %q changed the program: %s → %s", src, stepIDs(before.Program), stepIDs(after.Program))
		}
	})
}

// stepIDs lists a program's step ids and expressions in program order.
func stepIDs(p *program.Program) string {
	var out []string
	program.Walk(p.Steps, func(s *program.Step) {
		out = append(out, s.ID)
		for _, a := range s.Args {
			out = append(out, a.Name+"="+strings.Join(strings.Fields(a.Expr.Src), " "))
		}
	})
	return strings.Join(out, " ")
}

// Formatting costs the same per statement however long the program is:
// fmt of 150,000 one-line statements (900 KB) ran over a minute and took
// 500 MB, counting each statement's line from the start of the text.
// Bytes allocated are deterministic where time is not, so 4x the
// statements may allocate at most 6x the bytes (quadratic is 16x).
func TestTextFormatLinear(t *testing.T) {
	fm := For(textLanguage(everyConstruct, "")).(Formatter)
	alloc := func(n int) uint64 {
		src := []byte(strings.Repeat("a.b(x: 1)  # c\n", n))
		return memtest.Allocated(func() {
			if _, diags, err := fm.Format(src, 8); err != nil || len(diags) > 0 {
				t.Fatal(err, diags)
			}
		})
	}
	small, large := alloc(2000), alloc(8000)
	if large > 6*small {
		t.Errorf("4x the statements allocate %.1fx the bytes (%d then %d)", float64(large)/float64(small), small, large)
	}
}

// readCost runs read and reports the bytes it allocated in all and the
// most it held live at once beyond what was live before, peak: the
// collector runs at every 1% of heap growth while it reads, and the live
// heap is sampled after every collection (and after read returns, with
// what it returned still held by the caller).
func readCost(read func()) (total, peak uint64) {
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var mu sync.Mutex
	var most uint64
	done := false
	var sentinel func(*[64]byte)
	sentinel = func(*[64]byte) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		metrics.Read(live)
		most = max(most, live[0].Value.Uint64())
		runtime.SetFinalizer(new([64]byte), sentinel)
	}
	runtime.GC()
	metrics.Read(live)
	base := live[0].Value.Uint64()
	runtime.SetFinalizer(new([64]byte), sentinel)
	total = memtest.Allocated(read)
	runtime.GC()
	metrics.Read(live)
	mu.Lock()
	done = true
	most = max(most, live[0].Value.Uint64())
	mu.Unlock()
	return total, most - min(most, base)
}

// TestTextReadMemory holds reading a text program, and formatting it, and what validate
// keeps of it while it checks it (the step model, and what places its
// diagnostics), to at most 10 times the program's size at its peak, on
// typical programs and on hostile ones of one-character tokens; the
// bytes allocated in all are logged. Where the step model alone
// outweighs the text, 10× is held on top of the model: a program of
// tiny statements (about 300 bytes of model for a 4-byte `f()`, and the
// Language's steps limit bounds how many are built), and a call of
// thousands of distinct one-character arguments (about 100 bytes each).
func TestTextReadMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 700 KB of programs, collecting at every 1% of heap growth")
	}
	if !memtest.StoppedWorld(t) {
		return
	}
	lang := textLanguage(everyConstruct, "")
	syn := For(lang)
	typical := strings.Repeat("b = accounts.balance(account: \"acct\")  # read\nledger.post(debit: \"payables\", credit: \"acct\", amount: b.output.amount)\n", 500)
	steps := lang.Limits.WithDefaults().Steps
	var distinct strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&distinct, "a%d:1,", i)
	}
	for _, c := range []struct {
		name, src string
		model     int // bytes of step model that may come on top of 10×
	}{
		{"typical", typical, 0},
		{"ledger (the benchmark's)", textprog.Ledger(2000), 0},
		{"typical in a loop", "for x in input.l {\n" + typical + "}\n", 0},
		{"one-character operands", "output " + strings.Repeat("a+", 50000) + "a\n", 0},
		{"one-character arguments", "f(" + strings.Repeat("a:1,", 20000) + ")\n", 0},
		{"separators", strings.Repeat(";", 100000), 0},
		{"comments", strings.Repeat("#\n", 50000), 0},
		{"empty calls, twice the steps limit", strings.Repeat("f()\n", 2*steps), steps * stepBytes},
		{"distinct arguments", "f(" + distinct.String() + ")\n", 20000 * argBytes},
	} {
		var p *Parsed
		var err error
		src := []byte(c.src)
		total, peak := readCost(func() { p, err = syn.Parse(src, 32) })
		overSteps := strings.HasPrefix(c.name, "empty calls")
		var le *program.LimitError
		if err != nil && !(overSteps && errors.As(err, &le)) {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := float64(len(c.src))
		t.Logf("%s: %d bytes, peak %.1f×, allocated %.1f×", c.name, len(c.src), float64(peak)/n, float64(total)/n)
		if limit := 10*n + float64(c.model); float64(peak) > limit {
			t.Errorf("%s: reading %d bytes held %d bytes at its peak, over %.0f", c.name, len(c.src), peak, limit)
		}
		if overSteps && (le == nil || le.At.Line != steps+1 || !strings.Contains(le.Msg, "more than 10000 statements")) {
			t.Errorf("%s: want the limit error at line %d, got %v", c.name, steps+1, err)
		}
		runtime.KeepAlive(p)
		// fmt reads the same way and holds no more than the read: the
		// text it writes, and no token per byte (before: 1 MB of `f()`
		// lines took 333 MB).
		var out []byte
		var diags []pilotage.Diagnostic
		total, peak = readCost(func() { out, diags, err = syn.(Formatter).Format(src, 32) })
		if err != nil && !overSteps {
			t.Fatalf("%s: fmt: %v", c.name, err)
		}
		t.Logf("%s: fmt: peak %.1f×, allocated %.1f×", c.name, float64(peak)/n, float64(total)/n)
		if limit := 10*n + float64(c.model); float64(peak) > limit {
			t.Errorf("%s: formatting %d bytes held %d bytes at its peak, over %.0f", c.name, len(c.src), peak, limit)
		}
		if fle, ok := errors.AsType[*program.LimitError](err); overSteps && (!ok || le == nil || *fle != *le || diags != nil) {
			t.Errorf("%s: fmt gives %v %v, not validate's limit error %v", c.name, err, diags, le)
		}
		runtime.KeepAlive(out)
	}
}

// stepBytes is what the step model holds for a call without arguments:
// a program.Step, its place in its sequence, its pointers and its id.
const stepBytes = int(unsafe.Sizeof(program.Step{})) + 80

// argBytes is what the step model holds for an argument: its
// program.Arg, its program.Expr and its pointer.
const argBytes = int(unsafe.Sizeof(program.Arg{})+unsafe.Sizeof(program.Expr{})) + 24

// TestTextLoneCR: a lone CR (a classic Mac line end) is refused at its
// place, in a comment, a string or between tokens, by Parse and Format
// alike, as PDL refuses it. The reader ended lines at LF alone, so
// `a.b() # note⏎c.d()` with ⏎ a CR read the comment on over c.d(),
// which was silently not run; CR LF is a line end like LF.
func TestTextLoneCR(t *testing.T) {
	syn := For(textLanguage(everyConstruct, ""))
	for _, src := range []string{
		"a.b() # note\rc.d()\r",
		"a.b()\rc.d()",
		"a.b(x: \"one\rtwo\")\n",
		"if true {\r}\n",
	} {
		p, err := syn.Parse([]byte(src), 8)
		if err != nil {
			t.Fatal(err)
		}
		got := render(p, &everyConstruct)
		at := strings.IndexByte(src, '\r')
		// The CR ends its line for positions (textpos.LineEnd).
		want := fmt.Sprintf("1:%d-2:1 syntax: a carriage return not followed by a line feed", at+1)
		if !strings.Contains(got, want) {
			t.Errorf("%q:\n%s\nwant a diagnostic %s…", src, got, want)
		}
		if out, ds, err := syn.(Formatter).Format([]byte(src), 8); err != nil || out != nil || len(ds) != 1 {
			t.Errorf("Format of %q: %q, %v, %v; want one diagnostic", src, out, ds, err)
		}
	}
	p, err := syn.Parse([]byte("a.b() # note\r\nc.d()\r\n"), 8)
	if err != nil || !pilotage.Valid(p.Diagnostics) || len(p.Program.Steps) != 2 {
		t.Errorf("CR LF line ends: %v %+v", err, p)
	}
}

// Placing a diagnostic reads its statement again from where it starts,
// not the whole text: each placement looked for a lone CR in all of it,
// so a thousand diagnostics in a 2 MB program read 2 GB (5 s). Four
// times the statements, each placed, take about four times as long.
func TestLocateEachStatementLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times programs of thousands of statements; run without -short")
	}
	syn := For(textLanguage(everyConstruct, ""))
	best := func(n int) time.Duration {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "s%d = lights.set(room: input.room, level: %d)\n", i, i)
		}
		p, err := syn.Parse([]byte(b.String()), 8)
		if err != nil || !pilotage.Valid(p.Diagnostics) {
			t.Fatalf("%v %v", err, p.Diagnostics)
		}
		diags := make([]pilotage.Diagnostic, n)
		for i := range diags {
			diags[i] = pilotage.Diagnostic{Path: pilotage.PointerPath(fmt.Sprintf("/steps/%d/with/level", i))}
		}
		var fastest time.Duration
		for range 5 {
			start := time.Now()
			p.Locate(diags)
			if took := time.Since(start); fastest == 0 || took < fastest {
				fastest = took
			}
		}
		return fastest
	}
	small, large := best(1000), best(4000)
	if large > 10*small {
		t.Errorf("placing 4x the diagnostics in 4x the text took %.1fx as long (%v then %v)", float64(large)/float64(small), small, large)
	}
}
