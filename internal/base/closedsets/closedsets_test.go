package closedsets

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// full has every section of closed-sets-format.md, with cells that need
// escaping and prose that uses Markdown, so the round trip covers them.
func full() *Sets {
	return &Sets{
		DiagnosticCodes: []Code{
			{Code: "syntax", Meaning: "The program is not well-formed."},
			{Code: "unknown_name", Meaning: "A name does not resolve | pipes are escaped."},
			{Code: "constraint", Meaning: "Any other violation; `code` spans survive."},
			{Code: "input_binding", Meaning: "input does not bind"},
			{Code: "context_binding", Meaning: "context does not bind"},
			{Code: "E_loop", Meaning: "a backslash \\ stays"},
		},
		DiagnosticPaths: "A `path` is a line and column range.\n\nInput findings point into `input`.",
		Kinds: []Kind{
			{Kind: "device", Callable: true, Meaning: "a device"},
			{Kind: "room", Meaning: "a room, not callable"},
			{Kind: "routine", Callable: true, Promoted: true, Meaning: "a promoted program"},
		},
		RiskLevels: []Risk{
			{Risk: "safe", Hints: pilotage.RiskHints{ReadOnly: true}, Meaning: "reads"},
			{Risk: "write", Meaning: "changes state"},
			{Risk: "dangerous", Hints: pilotage.RiskHints{Destructive: true, OpenWorld: true}, Meaning: "anything"},
		},
		ScopeRules:       "A step sees the steps before it.\n\n- inside an arm: only that arm\n- after a loop: `steps.<loop>.output`",
		ParameterBinding: "The input is the CEL variable `input`.",
		StepIdentifiers:  "Native `id` members.\n\n### Generated ids\n\nNever generated.",
		RunStatuses: []Status{
			{Status: "success", OK: true, Meaning: "completed"},
			{Status: "partial", SideEffects: true, Meaning: "stopped"},
			{Status: "validation_error", Meaning: "refused"},
			{Status: "catalog_drift", Meaning: "refused"},
			{Status: "promotion_drift", Meaning: "refused"},
			{Status: "timeout", SideEffects: true, Meaning: "ran out of time"},
		},
		StepStatuses: []Status{
			{Status: "success", OK: true, Meaning: "done"},
			{Status: "partial", SideEffects: true, Meaning: "sub-program stopped"},
			{Status: "denied", Meaning: "not authorized; nothing happened"},
		},
		Truncation:    "Outputs over 1024 bytes become `{\"truncated\": true}`.",
		Output:        "The value of the top-level `output` expression.",
		LoopDecisions: "One decision per iteration.\n\nA loop of more than 100 iterations records one `skipped` decision for the middle ones.",
		LoopTook: []Took{
			{Took: "continue", Meaning: "another iteration runs"},
			{Took: "exit", Meaning: "the loop ends"},
			{Took: "skipped", Meaning: "iterations 51 to n-50, | summarized"},
		},
	}
}

func TestRenderParseRoundTrip(t *testing.T) {
	want := full()
	body := Render("homeflow/v1 closed sets", want)
	got := Parse([]byte(body))
	if len(got.Problems) != 0 {
		t.Fatalf("problems in rendered body: %+v\n%s", got.Problems, body)
	}
	if !reflect.DeepEqual(&got.Sets, want) {
		t.Errorf("round trip changed the sets\n got: %+v\nwant: %+v", got.Sets, *want)
	}
	for _, title := range known {
		sec, ok := got.Sections[title]
		if !ok {
			t.Errorf("section %q missing after the round trip", title)
			continue
		}
		if line := lineOfText(body, "## "+title+"\n"); sec.Line != line {
			t.Errorf("section %q at line %d, heading is on line %d", title, sec.Line, line)
		}
	}
	// Every value's line is the line of its own table row.
	for title, vals := range got.Values {
		for v, line := range vals {
			row := strings.Split(body, "\n")[line-1]
			if !strings.HasPrefix(row, "| "+v+" |") {
				t.Errorf("%s value %q points at line %d: %q", title, v, line, row)
			}
		}
	}
	if again := Render("homeflow/v1 closed sets", &got.Sets); again != body {
		t.Errorf("Render(Parse(Render(s))) differs from Render(s)")
	}
}

func lineOfText(body, s string) int {
	i := strings.Index(body, s)
	if i < 0 {
		return -1
	}
	return strings.Count(body[:i], "\n") + 1
}

// TestRenderOmitsEmpty checks that absent sections are left out, so a
// Language without execute gets no status tables.
func TestRenderOmitsEmpty(t *testing.T) {
	body := Render("t", &Sets{DiagnosticCodes: []Code{{Code: "syntax"}}, Output: "  \n "})
	p := Parse([]byte(body))
	if len(p.Sections) != 1 || !p.Has(SecDiagnosticCodes) {
		t.Errorf("sections = %v, want only %q", p.Sections, SecDiagnosticCodes)
	}
	if !strings.Contains(body, "| syntax |   |") {
		t.Errorf("an empty meaning must still be a cell:\n%s", body)
	}
}

func TestLevels(t *testing.T) {
	got := full().Levels()
	want := []pilotage.RiskLevel{{Name: "safe", Hints: pilotage.RiskHints{ReadOnly: true}}, {Name: "write"},
		{Name: "dangerous", Hints: pilotage.RiskHints{Destructive: true, OpenWorld: true}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Levels() = %+v, want %+v", got, want)
	}
}

// TestParseFixtures parses every testdata/*.md and compares a dump of the
// result with NAME.golden (go test -update rewrites them).
func TestParseFixtures(t *testing.T) {
	golden.Files(t, filepath.Join("testdata", "*.md"), func(t *testing.T, path string, src []byte) {
		golden.Check(t, strings.TrimSuffix(path, ".md")+".golden", []byte(dump(Parse(src))))
	})
}

// dump renders a Parsed deterministically: sections with their lines,
// values with their rows, the sets, and the problems.
func dump(p *Parsed) string {
	var b strings.Builder
	var titles []string
	for t := range p.Sections {
		titles = append(titles, t)
	}
	sort.Strings(titles)
	for _, t := range titles {
		s := p.Sections[t]
		fmt.Fprintf(&b, "section %q line %d table %v\n", t, s.Line, s.HasTable)
		var vals []string
		for v, line := range p.Values[t] {
			vals = append(vals, fmt.Sprintf("  value %q line %d", v, line))
		}
		sort.Strings(vals)
		for _, v := range vals {
			b.WriteString(v + "\n")
		}
	}
	fmt.Fprintf(&b, "sets %+v\n", p.Sets)
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "problem line %d [%s] %s\n", pr.Line, pr.Section, pr.Message)
	}
	return b.String()
}

// TestParseHostile feeds inputs that are large or deeply nested; Parse must
// finish quickly with a clear result and never panic.
func TestParseHostile(t *testing.T) {
	cases := map[string]string{
		"deep quotes":    "## Output\n\n" + strings.Repeat(">", 50000) + " x\n",
		"deep lists":     "## Scope rules\n\n" + strings.Repeat("- ", 20000) + "x\n",
		"deep ordered":   "## Scope rules\n\n" + strings.Repeat("1. ", 20000) + "x\n",
		"nested lines":   strings.Repeat("## Output\n"+strings.Repeat("- > ", guidemd.MaxNesting/2)+"x\n", 20000),
		"indented lists": indentedLists(1500),
		"too large":      strings.Repeat("a", guidemd.MaxBodyBytes+1),
		"many rows":      "## Diagnostic codes\n\n| code | meaning |\n|---|---|\n" + strings.Repeat("| c | m |\n", 20000),
		"wide header":    "## Risk levels\n\n|" + strings.Repeat(" risk |", 5000) + "\n|" + strings.Repeat("---|", 5000) + "\n",
		"many headings":  strings.Repeat("## Output\n", 5000),
		"nul and binary": "## Run statuses\n\n| status | ok | side effects |\n|---|---|---|\n| \x00 | \xff | none |\n",
		"only pipes":     strings.Repeat("|", 100000),
		"empty":          "",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			p := Parse([]byte(body))
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Parse took %v", d)
			}
			lines := strings.Count(body, "\n") + 1
			for _, pr := range p.Problems {
				if pr.Line < 1 || pr.Line > lines || pr.Message == "" {
					t.Errorf("problem out of range or empty: %+v", pr)
				}
			}
		})
	}
	for _, body := range []string{cases["deep quotes"], cases["deep lists"], cases["deep ordered"], cases["too large"]} {
		if p := Parse([]byte(body)); len(p.Problems) != 1 || p.Problems[0].Section != "" || len(p.Sections) != 0 {
			t.Errorf("a hostile body must give exactly one whole-body problem, got %+v", p.Problems)
		}
	}
	// Many headings: the duplicate is reported once per repetition.
	p := Parse([]byte(strings.Repeat("## Output\n", 3)))
	if len(p.Problems) != 2 {
		t.Errorf("3 Output headings: %d problems, want 2", len(p.Problems))
	}
}

// indentedLists nests n list items by indentation alone, which no
// per-line marker count sees; the size bound keeps n small.
func indentedLists(n int) string {
	var b strings.Builder
	b.WriteString("## Output\n\n")
	for i := 0; i < n && b.Len() < guidemd.MaxBodyBytes-n; i++ {
		b.WriteString(strings.Repeat(" ", 2*i) + "- x\n")
	}
	return b.String()
}

// FuzzParse checks that Parse never panics and that everything it returns
// points inside the body.
func FuzzParse(f *testing.F) {
	f.Add([]byte(Render("seed", full())))
	files, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	for _, fn := range files {
		if b, err := os.ReadFile(fn); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p := Parse(body)
		lines := strings.Count(string(body), "\n") + 1
		check := func(what string, line int) {
			if line < 1 || line > lines {
				t.Fatalf("%s at line %d, body has %d lines", what, line, lines)
			}
		}
		for title, s := range p.Sections {
			if s.Title != title {
				t.Fatalf("section %q titled %q", title, s.Title)
			}
			check("section "+title, s.Line)
		}
		for title, vals := range p.Values {
			for v, line := range vals {
				check(title+" value "+v, line)
			}
		}
		for _, pr := range p.Problems {
			check("problem "+pr.Message, pr.Line)
			if _, ok := p.Sections[pr.Section]; !ok && pr.Section != "" {
				t.Fatalf("problem in unknown section %q: %s", pr.Section, pr.Message)
			}
		}
	})
}

// FuzzRoundTrip renders sets whose cells hold arbitrary text and checks
// that Parse reads back exactly what Render wrote.
func FuzzRoundTrip(f *testing.F) {
	f.Add("syntax", "a | b", "prose with `code`")
	f.Add("E1", "", "")
	f.Add("x`y", "\\|", "line\n\nline")
	f.Fuzz(func(t *testing.T, value, meaning, prose string) {
		value = strings.Trim(cell(value), "` \\")
		if value == "" || strings.ContainsAny(value, "`\\") {
			t.Skip("values are identifiers; a backtick or backslash at a cell edge is Markdown syntax")
		}
		if strings.Contains(prose, "\n#") || strings.Contains(prose, "```") || strings.Contains(prose, "~~~") ||
			strings.Contains(prose, "\n=") || strings.Contains(prose, "\n-") || strings.HasPrefix(strings.TrimSpace(prose), "#") {
			t.Skip("prose holding headings or open fences changes the section structure by design")
		}
		s := &Sets{
			DiagnosticCodes: []Code{{Code: value, Meaning: meaning}},
			RunStatuses:     []Status{{Status: value, OK: true, Meaning: meaning}},
			Output:          prose,
		}
		p := Parse([]byte(Render("t", s)))
		if got := p.Sets.DiagnosticCodes; len(got) != 1 || got[0].Code != value || got[0].Meaning != strings.TrimSpace(strings.ReplaceAll(cell(meaning), `\|`, "|")) {
			t.Fatalf("code %q meaning %q read back as %+v (problems %+v)", value, meaning, got, p.Problems)
		}
		if got := p.Sets.RunStatuses; len(got) != 1 || !got[0].OK || got[0].Status != value {
			t.Fatalf("status %q read back as %+v", value, got)
		}
		if p.Sets.Output != strings.TrimSpace(prose) {
			t.Fatalf("prose %q read back as %q", prose, p.Sets.Output)
		}
	})
}

// TestRenderBlankLines keeps the rendered guide tidy: sections are
// separated by exactly one blank line and the body ends in one newline.
func TestRenderBlankLines(t *testing.T) {
	body := Render("t", full())
	if strings.Contains(body, "\n\n\n") {
		t.Errorf("rendered body has two blank lines in a row:\n%s", body)
	}
	if !strings.HasSuffix(body, "|\n") || strings.HasSuffix(body, "\n\n") { // it ends with the Loop decisions table
		t.Errorf("rendered body must end in exactly one newline: %q", body[len(body)-20:])
	}
}

// BenchmarkParse measures reading a closed-sets guide of every section,
// the work lint does once per Language.
func BenchmarkParse(b *testing.B) {
	body := []byte(Render("bench", full()))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		Parse(body)
	}
}

// cell is a table cell's text as Render writes it.
func cell(s string) string {
	var b strings.Builder
	writeCell(&b, s)
	return b.String()
}

// TestHeadIsRendersStart: Head is Render's first lines and the size of
// all of it, and guidemd.CheckHead of a head of MaxBlocks+1 lines
// answers as guidemd.Check of the whole: for a guide that passes, one of
// 25,000 risk levels (over MaxBlocks lines), and one over MaxBodyBytes.
// Each Head renders the whole set, so -short cuts the large sets' heads
// at three places only: 1, lines-1 and MaxBlocks+1 lines.
func TestHeadIsRendersStart(t *testing.T) {
	levels := func(n int, meaning string) *Sets {
		s := full()
		for i := range n {
			s.RiskLevels = append(s.RiskLevels, Risk{Risk: fmt.Sprintf("r%d", i), Meaning: meaning})
		}
		return s
	}
	for name, s := range map[string]*Sets{
		"full":              full(),
		"25,000 levels":     levels(25_000, "x"),
		"over MaxBodyBytes": levels(30_000, strings.Repeat("m", 40)),
	} {
		t.Run(name, func(t *testing.T) {
			whole := Render("Closed sets", s)
			lines := strings.Count(whole, "\n")
			cuts := []int{-1, 0, 1, 7, lines - 1, lines, lines + 1, guidemd.MaxBlocks + 1}
			if testing.Short() && name != "full" {
				cuts = []int{1, lines - 1, guidemd.MaxBlocks + 1}
			}
			var checked string // the head of MaxBlocks+1 lines, the last cut
			for _, n := range cuts {
				head, size := Head("Closed sets", s, n)
				checked = head
				if size != len(whole) {
					t.Errorf("Head(%d): size %d, want %d", n, size, len(whole))
				}
				want := whole
				if n >= 0 && n < lines {
					want = whole[:nthNewline(whole, n)]
				}
				if head != want {
					t.Errorf("Head(%d) is not the first %d lines of Render's %d (%d bytes, want %d)", n, n, lines, len(head), len(want))
				}
			}
			got, want := fmt.Sprint(guidemd.CheckHead(checked, len(whole))), fmt.Sprint(guidemd.Check([]byte(whole)))
			if got != want || (name == "full") != (want == "<nil>") {
				t.Errorf("CheckHead of the head: %s; Check of the whole: %s", got, want)
			}
		})
	}
}

// nthNewline is the length of the first n lines of s, newlines and all.
func nthNewline(s string, n int) int {
	at := 0
	for range n {
		at += strings.IndexByte(s[at:], '\n') + 1
	}
	return at
}
