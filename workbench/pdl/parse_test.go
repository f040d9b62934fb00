package pdl

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// render is pdltest.Render, short for the many calls here.
var render = pdltest.Render

// TestErrors parses every file of testdata/errors and compares all of its
// findings, with positions, with the .errors golden file next to it.
func TestErrors(t *testing.T) {
	golden.Files(t, "testdata/errors/*.pdl", func(t *testing.T, name string, src []byte) {
		_, fs := Parse(filepath.Base(name), src)
		if len(fs) == 0 {
			t.Fatal("no findings for a broken file")
		}
		golden.Check(t, name+".errors", render(fs))
	})
}

// TestAllErrorsInOneRun checks that recovery goes on after the first
// error: three broken lines give three findings, on their own lines, and
// the good statements after them still parse.
func TestAllErrorsInOneRun(t *testing.T) {
	src := "language \"a/v1\" {\n  title = \"x\"\n  mode immediate\n  trace = full\n  retention \"P7D\n  subprograms expanded\n}\n"
	f, fs := Parse("x.pdl", []byte(src))
	var lines []int
	for _, x := range fs {
		lines = append(lines, x.Line)
	}
	if fmt.Sprint(lines) != "[2 4 5]" {
		t.Fatalf("finding lines = %v, want [2 4 5]:\n%s", lines, render(fs))
	}
	var kws []string
	for _, s := range f.Body[0].(*Stmt).Children() {
		kws = append(kws, s.Keyword)
	}
	if got := strings.Join(kws, " "); got != "_ mode _ retention subprograms" {
		t.Errorf("recovered statements = %q", got)
	}
}

// TestHostile feeds inputs that must give findings quickly and never
// panic: binary garbage, deep nesting, a file over the size limit, and
// long runs of one character.
func TestHostile(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	garbage := make([]byte, 64<<10)
	rnd.Read(garbage)
	cases := map[string][]byte{
		"garbage":        garbage,
		"deep":           bytes.Repeat([]byte("a {\n"), 20000),
		"deep-oneline":   bytes.Repeat([]byte("{"), 100000),
		"too-big":        bytes.Repeat([]byte("# x\n"), MaxFileBytes/4+1),
		"closers":        bytes.Repeat([]byte("}"), 100000),
		"quotes":         bytes.Repeat([]byte(`"`), 100001),
		"equals":         bytes.Repeat([]byte("a = = = =\n"), 5000),
		"nul":            make([]byte, 4096),
		"unclosed-text":  append([]byte(`x """`), bytes.Repeat([]byte("y\n"), 20000)...),
		"invalid-utf8":   []byte("language \xff\xfe {\n}\n"),
		"backtick-storm": append(bytes.Repeat([]byte("a `b` `"), 5000), '`'),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, fs := Parse(name, src)
			if len(fs) == 0 {
				t.Error("no findings")
			}
			if len(fs) > maxSyntaxErrors+1 {
				t.Errorf("%d findings; recovery must stop at %d", len(fs), maxSyntaxErrors)
			}
			for _, f := range fs {
				if f.Line < 1 || f.Column < 1 || f.Message == "" {
					t.Errorf("unpositioned finding %+v", f)
				}
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestLargeFile parses a valid file of 5,000 statements: no findings,
// and every statement is in the tree.
func TestLargeFile(t *testing.T) {
	f, fs := Parse("big.pdl", entries(5000))
	if len(fs) != 0 {
		t.Fatalf("findings: %s", render(fs))
	}
	if n := len(Stmts(f.Body)); n != 5000 {
		t.Errorf("%d statements, want 5000", n)
	}
}

// TestValues pins how each literal kind decodes.
func TestValues(t *testing.T) {
	src := "s word 12ms \"a\\tb\" `raw \\n` \"\"\"\n    line one\n      indented\n\n    last\n    \"\"\" k=v\n"
	f, fs := Parse("v.pdl", []byte(src))
	if len(fs) > 0 {
		t.Fatal(string(render(fs)))
	}
	s := f.Body[0].(*Stmt)
	var got []string
	for _, a := range s.Args {
		got = append(got, fmt.Sprintf("%s|%s|%q", a.Key, a.Value.Kind(), a.Value.Str()))
	}
	want := []string{
		`|word|"word"`, `|number|"12ms"`, `|string|"a\tb"`, `|raw string|"raw \\n"`,
		`|text block|"line one\n  indented\n\nlast\n"`, `k|word|"v"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestByteOrderMark: a UTF-8 byte order mark at the start of a file is
// skipped and takes no column (docs/pdl.md, "The file"): a clean file
// parses to the same tree and formats to the same text without it, and a
// broken one gives the same findings at the same line:col.
func TestByteOrderMark(t *testing.T) {
	clean, err := os.ReadFile("../../langs/homeflow/homeflow.pdl")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := os.ReadFile("testdata/errors/many_errors.pdl")
	if err != nil {
		t.Fatal(err)
	}
	f, fs := Parse("homeflow.pdl", clean)
	fb, fsb := Parse("homeflow.pdl", append([]byte(textenc.UTF8BOM), clean...))
	if len(fs) > 0 || len(fsb) > 0 {
		t.Fatalf("findings: %s / with a BOM: %s", render(fs), render(fsb))
	}
	if a, b := Format(f), Format(fb); !bytes.Equal(a, b) {
		t.Errorf("the file formats differently with a BOM:\n%s\n---\n%s", a, b)
	}
	if a, b := f.Body[0].At(), fb.Body[0].At(); a.Line != b.Line || a.Column != b.Column || b.Offset != a.Offset+int32(len(textenc.UTF8BOM)) {
		t.Errorf("first node at %+v, with a BOM at %+v: want the same line:col, the offset 3 bytes on", a, b)
	}
	_, want := Parse("many_errors.pdl", broken)
	_, got := Parse("many_errors.pdl", append([]byte(textenc.UTF8BOM), broken...))
	if !bytes.Equal(render(got), render(want)) {
		t.Errorf("findings with a BOM:\n%s\nwithout:\n%s", render(got), render(want))
	}
	// Elsewhere U+FEFF is a character like any other that no token starts with.
	_, fs = Parse("x.pdl", []byte("language \"a/v1\" {\n"+textenc.UTF8BOM+"}\n"))
	if got := render(fs); !bytes.Contains(got, []byte(`x.pdl:2:1-2:2 pdl-syntax: unexpected character '\ufeff'`)) {
		t.Errorf("a BOM inside the file: %s", got)
	}
}

// TestLoneCarriageReturn: a CR not followed by an LF ends a line for
// an editor and the language server but not for PDL, so a file of
// classic Mac line ends read as one line: statements ran together
// ("server takes no block") and every place after the first CR was on
// the wrong line in the editor. It is one error at the first such CR; a
// CRLF file reads as an LF one.
func TestLoneCarriageReturn(t *testing.T) {
	_, fs := Parse("cr.pdl", []byte("server \"x\" version=\"1\"\n\rlanguage \"a/v1\" {\r  mode bogus\r}\r"))
	if got := string(render(fs)); got != "cr.pdl:2:1-2:2 pdl-syntax: a carriage return not followed by a line feed: PDL ends a line with LF or CRLF [hint: save the file with LF or CRLF line ends (mac2unix converts a file of CR alone)]\n" {
		t.Errorf("lone CRs: %s", got)
	}
	lf := "language \"a/v1\" {\n  mode immediate\n}\n"
	f, fs := Parse("crlf.pdl", []byte(strings.ReplaceAll(lf, "\n", "\r\n")))
	g, _ := Parse("lf.pdl", []byte(lf))
	if len(fs) > 0 || !bytes.Equal(Format(f), Format(g)) {
		t.Errorf("a CRLF file: %s, formatted %q, want no finding and %q", render(fs), Format(f), Format(g))
	}
}

// TestHostileSizeBounded: 16 MB files of one-byte tokens (issue 13, item
// 8). A file of NUL bytes lexed into participle's token buffer after the
// scan had given up (3.8 GB); a file of blank lines or of "a;" built a
// tree of 150 to 300 bytes a byte (5 GB). Each is now read in at most 10
// bytes allocated a byte of input: the scan stops at its error cap, a run
// of blank lines is one node, and a tree of one-byte statements or values
// stops at its budget with one finding.
func TestHostileSizeBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MB inputs")
	}
	const size = 16 << 20
	cases := map[string]struct {
		src  []byte
		want string // "" for a clean parse
	}{
		"nul":   {make([]byte, size), "unexpected character '\\x00'"},
		"blank": {bytes.Repeat([]byte("\n"), size), ""},
		"stmts": {bytes.Repeat([]byte("a;"), size/2), "too many statements and values"},
		"args":  {append(bytes.Repeat([]byte("a "), size/2), '\n'), "too many statements and values"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			f, fs, alloc, _ := parseCost(name+".pdl", c.src)
			elapsed := time.Since(start)
			t.Logf("%.1f bytes allocated a byte", float64(alloc)/size)
			if alloc > 10*size {
				t.Errorf("parsing %d bytes allocated %d, %.1f a byte; want at most 10", size, alloc, float64(alloc)/size)
			}
			if elapsed > 15*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if c.want == "" {
				if f == nil || len(fs) > 0 || len(f.Body) != 1 {
					t.Errorf("want a tree of one blank node; got %v and %s", f != nil, render(fs))
				}
				return
			}
			if f != nil || len(fs) == 0 || !strings.Contains(fs[len(fs)-1].Message+fs[0].Message, c.want) {
				t.Errorf("want no tree and a finding saying %q; got tree %v and %s", c.want, f != nil, render(fs))
			}
		})
	}
}
