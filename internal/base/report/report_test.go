package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// manifestSrc and snapshotSrc are the sources the text writer quotes.
const manifestSrc = `{
  "pilotage": "1.1",
  "languages": [
    {"id": "wörkflow/v1", "title": "Café ☕ orders", "retention": "P7X"}
  ]
}
`

// A minified snapshot: one line longer than the text writer's window.
var snapshotSrc = `{"snapshot":"pilotage/1.1","guides":{"a/1":[{"id":"core","body":"` + strings.Repeat("x", 300) + `","size_bytes":12}]}}`

// fullReport has a finding of every severity and every optional part:
// hints, related locations, end positions, keys, several sections, unicode, and the
// characters GitHub annotations must escape (% \n : ,).
func fullReport() *Report {
	r := &Report{
		Tool:     "pilotage lint",
		KeyLabel: "run_id",
		Files:    []string{"manifest.json", "snap,shot:1.json", "clean.json", "-"},
		Sources: map[string][]byte{
			"manifest.json":    []byte(manifestSrc),
			"snap,shot:1.json": []byte(snapshotSrc),
		},
		Rules: []RuleInfo{
			{ID: "retention-value", Category: "retention", Section: "6.6", Severity: Error,
				Summary: "retention is none, session or an ISO 8601 duration.", Doc: "docs/rules/retention-value.md"},
			{ID: "core-guide-size", Category: "guides", Section: "5.2", Severity: Warning,
				Summary: "A core guide SHOULD be at most 8192 bytes.", Doc: "docs/rules/core-guide-size.md"},
			{ID: "grammar-sections", Category: "closed-sets", Section: "5.2", Severity: Info,
				Summary: "Grammar-dependent sections are checked when the grammar is known."},
		},
	}
	r.Add(
		Finding{Rule: "retention-value", Section: "6.6", Severity: Error,
			Message: `retention "P7X" is not "none", "session" or an ISO 8601 duration`,
			File:    "manifest.json", Line: 4, Column: 66, EndLine: 4, EndColumn: 71,
			Pointer: "/languages/0/retention", Hint: `write a duration such as "P7D" (7 days) or "PT1H"`},
		Finding{Rule: "core-guide-size", Section: "5.2", Severity: Warning,
			Message: "core guide \"core\" is 9000 bytes; 100% of a small context, keep it under 8192\nso clients can fetch it cheaply",
			File:    "snap,shot:1.json", Line: 1, Column: 65, Pointer: "/guides/a~11/0/body",
			Hint:    "move examples to a guide of level \"example\", e.g. topics: a, b",
			Related: []Location{{File: "manifest.json", Line: 4, Column: 5, Pointer: "/languages/0", Note: "the Language \"wörkflow/v1\""}}},
		Finding{Rule: "grammar-sections", Section: "5.2", Severity: Info,
			Message: "the grammar is not visible, so \"Scope rules\" cannot be required",
			File:    "manifest.json", Line: 4, Column: 5, Pointer: "/languages/0", Key: "run-42"},
		Finding{Rule: "unregistered", Section: "5", Severity: Error,
			Message: "malformed JSON from standard input", File: "-", Line: 1, Column: 1},
		// A finding that cites several sections, the first most specific.
		Finding{Rule: "schema", Section: "5.1", Sections: []string{"5.1", "11.1", "1.1"}, Severity: Error,
			Message: `the manifest is missing the required member "pilotage"`,
			File:    "manifest.json", Line: 1, Column: 1},
		// A whole-file finding has no position.
		Finding{Rule: "retention-value", Section: "6.6", Severity: Error,
			Message: "the file as a whole: 日本語 ✓", File: "manifest.json"},
	)
	r.Summary.Files = len(r.Files)
	r.Summary.Checked = map[string]int{"rules": 3, "entries": 12}
	r.Sort()
	return r
}

// emptyReport is a clean run: every writer must still say what it checked,
// and sarif must carry `results: []`, never null.
func emptyReport() *Report {
	return &Report{
		Tool:    "pilotage lint",
		Files:   []string{"clean.json"},
		Sources: map[string][]byte{"clean.json": []byte("{}\n")},
		Rules: []RuleInfo{{ID: "schema", Category: "syntax", Section: "1.1", Severity: Error,
			Summary: "Every structure must have its required members.", Doc: "docs/rules/schema.md"}},
		Summary: Summary{Files: 1, Checked: map[string]int{"rules": 1}},
	}
}

// goldenFormats are the golden file extensions: every format, and text
// both without and with colour.
var goldenFormats = []struct {
	ext    string
	format Format
	opt    Options
}{
	{"text", Text, Options{}},
	{"color.text", Text, Options{Color: true}},
	{"json", JSON, Options{}},
	{"sarif", SARIF, Options{}},
	{"github", GitHub, Options{}},
	{"junit", JUnit, Options{}},
	// --strict fails a file on its warnings too, and junit shows it failing.
	{"strict.junit", JUnit, Options{Strict: true}},
}

func render(t *testing.T, r *Report, f Format, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, r, opt); err != nil {
		t.Fatalf("Write %s: %v", f, err)
	}
	return b.Bytes()
}

// TestGolden renders each report in each format and compares it with
// testdata/<case>.<format>; go test -run TestGolden -update rewrites them.
func TestGolden(t *testing.T) {
	cases := map[string]func() *Report{"full": fullReport, "empty": emptyReport, "hostile": hostileReport}
	if len(Formats) != 5 {
		t.Fatalf("a format was added or removed; give it golden files here")
	}
	for name, mk := range cases {
		for _, gf := range goldenFormats {
			t.Run(name+"."+gf.ext, func(t *testing.T) {
				golden.Check(t, filepath.Join("testdata", name+"."+gf.ext), render(t, mk(), gf.format, gf.opt))
			})
		}
	}
}

// The colourless writer never emits an escape sequence; the colour writer
// does, and only around what it paints.
func TestTextColor(t *testing.T) {
	plain := render(t, fullReport(), Text, Options{})
	if bytes.Contains(plain, []byte("\x1b[")) {
		t.Error("text without colour contains ANSI escapes")
	}
	color := render(t, fullReport(), Text, Options{Color: true})
	stripped := strings.NewReplacer(ansiReset, "", ansiBold, "", ansiRed, "", ansiYellow, "", ansiBlue, "", ansiDim, "").Replace(string(color))
	if stripped != string(plain) {
		t.Errorf("colour text minus its escapes differs from plain text:\n%s\n---\n%s", stripped, plain)
	}
}

// GitHub workflow commands end at a newline and split properties at ':'
// and ','; every finding must be exactly one line with escaped values.
func TestGitHubEscaping(t *testing.T) {
	out := string(render(t, fullReport(), GitHub, Options{}))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(fullReport().Findings) {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(fullReport().Findings), out)
	}
	for _, l := range lines {
		cmd, msg, ok := strings.Cut(strings.TrimPrefix(l, "::"), "::")
		if !ok || !strings.HasPrefix(l, "::") {
			t.Fatalf("not a workflow command: %q", l)
		}
		if strings.Contains(msg, "\r") {
			t.Errorf("raw CR in message %q", msg)
		}
		_, props, _ := strings.Cut(cmd, " ")
		for _, p := range strings.Split(props, ",") {
			k, v, ok := strings.Cut(p, "=")
			if !ok || strings.ContainsAny(v, ":,\n") || k == "" {
				t.Errorf("property %q in %q is not escaped", p, l)
			}
		}
	}
	for _, want := range []string{"file=snap%2Cshot%3A1.json", "100%25 of", `8192\x0aso clients`, "%0Ahint: move examples", "title=core-guide-size (§5.2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("github output lacks %q:\n%s", want, out)
		}
	}
}

func TestReportModel(t *testing.T) {
	r := fullReport()
	if r.Summary.Errors != 4 || r.Summary.Warnings != 1 || r.Summary.Infos != 1 {
		t.Errorf("summary = %+v", r.Summary)
	}
	if !r.Failed(false) {
		t.Error("errors must fail")
	}
	w := &Report{}
	w.Add(Finding{Severity: Warning}, Finding{Severity: Info})
	if w.Failed(false) || !w.Failed(true) {
		t.Error("warnings fail only with strict; info never")
	}
	// Sort orders by file, line, column, rule, message.
	var order []string
	for _, f := range r.Findings {
		order = append(order, f.File+":"+f.Rule)
	}
	want := "-:unregistered manifest.json:retention-value manifest.json:schema manifest.json:grammar-sections manifest.json:retention-value snap,shot:1.json:core-guide-size"
	if strings.Join(order, " ") != want {
		t.Errorf("order = %s\nwant    %s", strings.Join(order, " "), want)
	}
	for _, s := range []string{"text", "json", "sarif", "github", "junit"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "text, json, sarif, github, junit") {
		t.Errorf("ParseFormat(xml) error %v does not list the formats", err)
	}
	if err := Write(&bytes.Buffer{}, Format("xml"), r, Options{}); err == nil {
		t.Error("Write accepted an unknown format")
	}
}

// failingWriter fails after n bytes, like a full disk.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, os.ErrClosed
	}
	w.n -= len(p)
	return len(p), nil
}

// A write error is returned, never swallowed, in every format.
func TestWriteErrors(t *testing.T) {
	for _, f := range Formats {
		if err := Write(&failingWriter{n: 10}, f, fullReport(), Options{}); err == nil {
			t.Errorf("%s: a failing writer gave no error", f)
		}
	}
}

// SARIF artifact locations must be URI references (the schema checks the
// format): a ':' in the first segment, spaces and '#' need care.
func TestToURI(t *testing.T) {
	for in, want := range map[string]string{
		"-":                "stdin",
		"manifest.json":    "manifest.json",
		"dir/a b#1.json":   "dir/a%20b%231.json",
		"snap,shot:1.json": "./snap,shot:1.json",
		`sub\win.json`:     "sub/win.json",
		"/abs/path.json":   "file:///abs/path.json",
		`C:\work\m.json`:   "file:///C:/work/m.json",
		"ünï/日本.json":      "%C3%BCn%C3%AF/%E6%97%A5%E6%9C%AC.json",
		"100%.json":        "100%25.json",
		"q?.json":          "q%3F.json",
		"comma,file.json":  "comma,file.json",
		"x:y/z.json":       "./x:y/z.json",
		"plain/x:y.json":   "plain/x:y.json",
		"brackets[1].json": "brackets%5B1%5D.json",
	} {
		if got := toURI(in); got != want {
			t.Errorf("toURI(%q) = %q, want %q", in, got, want)
		}
	}
}
