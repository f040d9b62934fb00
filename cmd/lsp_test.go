package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/lspserve"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/pilotage-dev/pilotage/internal/testsupport/lsptest"
	"github.com/pilotage-dev/pilotage/workbench/lsp"
)

// startLSP serves `pilotage lsp`'s options on a pipe to a test client
// with the capabilities caps.
func startLSP(t *testing.T, caps map[string]any) *lsptest.Client {
	return lsptest.Start(t, caps, func(rwc io.ReadWriteCloser, log io.Writer) {
		lsp.Serve(context.Background(), rwc, lspOptions(lsp.DefaultDocsBase, log))
	})
}

// want is a diagnostic as the test expects it: its range in UTF-16
// units, severity, code and message (hint included).
type want struct {
	line, from, to int
	severity       int
	message        string
}

func checkDiags(t *testing.T, what string, got []lsptest.Diag, wants ...want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%s: %d diagnostics, want %d: %+v", what, len(got), len(wants), got)
	}
	for i, w := range wants {
		d := got[i]
		r := d.Range
		if int(r.Start.Line) != w.line || int(r.End.Line) != w.line || int(r.Start.Character) != w.from || int(r.End.Character) != w.to {
			t.Errorf("%s #%d: range %+v, want line %d %d-%d", what, i, r, w.line, w.from, w.to)
		}
		if d.Severity != w.severity || d.Code != "pilotage.yaml" || d.CodeDescription == nil || !strings.HasSuffix(d.CodeDescription.Href, "/docs/config.md") {
			t.Errorf("%s #%d: severity %d code %q link %+v", what, i, d.Severity, d.Code, d.CodeDescription)
		}
		if d.Message != w.message {
			t.Errorf("%s #%d: message\n%s\nwant\n%s", what, i, d.Message, w.message)
		}
	}
}

// The problems of each broken pilotage.yaml of testdata/lsp, as
// `pilotage config show --config FILE` prints them, in UTF-16 units.
var (
	misspeltKey = want{2, 0, 9, 1, `unknown key "langauges" at the top level (did you mean "languages"?)` +
		"\nhint: the keys here are defaults, ignore, languages, overrides, rules, suppress; see docs/config.md"}
	// Column 40 in code points; the emoji before it is two UTF-16 units.
	strictString = want{5, 40, 44, 1, "defaults.strict: expected true or false here, found a string"}
	tabIndent    = want{3, 0, 1, 1, "not valid YAML: found character that cannot start any token\nhint: indent with spaces: YAML does not allow tabs in indentation"}
	unknownRule  = want{2, 2, 17, 1, `unknown rule "core-guide-sise" (did you mean "core-guide-size"?)` +
		"\nhint: list the rules with pilotage lint --list-rules, pilotage replay --list-rules or pilotage conform --list-rules"}
)

// badProgram is homeflow's evening program with an entry misspelt, so
// that validate, when the file is mapped to homeflow, reports it.
func badProgram(t *testing.T) string {
	b, err := os.ReadFile("../langs/homeflow/programs/evening.json")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(string(b), `"sensors.read"`, `"sensors.raed"`, 1)
}

// validated says a program's diagnostics are validate's: the misspelt
// entry, found through the Language pilotage.yaml maps it to.
func validated(p lsptest.Publish) bool {
	return len(p.Diagnostics) > 0 && strings.Contains(p.Diagnostics[0].Message, "sensors.raed")
}

// unchecked says a program's one diagnostic is that pilotage.yaml has
// errors.
func unchecked(p lsptest.Publish) bool {
	return len(p.Diagnostics) == 1 && strings.Contains(p.Diagnostics[0].Message, "has errors, so the Language mapping of this file is unavailable")
}

func none(p lsptest.Publish) bool { return len(p.Diagnostics) == 0 }

// The editor's buffer of pilotage.yaml, broken three ways and fixed: its
// diagnostics are config show's, and the program file it maps is told
// it is not checked while it is broken (a PDL file that its settings are
// not applied), validated again once fixed, and
// left alone when the fixed file maps it nowhere (nor told anything
// when that one breaks).
func TestLSPSettingsBuffer(t *testing.T) {
	c := startLSP(t, nil)
	dir, _ := filepath.Abs("testdata/lsp")
	settings := filepath.Join(dir, "pilotage.yaml")
	text := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	prog := c.Open(filepath.Join(dir, "programs", "evening.json"), badProgram(t))
	// On disk, pilotage.yaml maps programs/ to homeflow.
	c.WaitFor(prog, validated)
	homeflow, err := os.ReadFile("../langs/homeflow/homeflow.pdl")
	if err != nil {
		t.Fatal(err)
	}
	// Its guides and schemas are not beside it here: lint says so, five
	// times, and those findings stay.
	pdlFile := c.Open(filepath.Join(dir, "homeflow.pdl"), string(homeflow))
	linted := len(c.WaitDiags(pdlFile, 1))
	count := func(n int) func(lsptest.Publish) bool {
		return func(p lsptest.Publish) bool { return len(p.Diagnostics) == n }
	}

	uri := c.Open(settings, text("schema.yaml"))
	checkDiags(t, "schema.yaml", c.WaitDiags(uri, 1), misspeltKey, strictString)
	// A PDL file is linted without the settings, and told so.
	ds := c.WaitFor(pdlFile, count(linted+1))
	if last := ds[linted]; last.Severity != 2 || !strings.HasPrefix(last.Message, "pilotage.yaml has errors, so its rule settings and suppressions are not applied to this file: pilotage.yaml:3:1: ") {
		t.Errorf("PDL file: %+v", last)
	}
	ds = c.WaitFor(prog, unchecked)
	d := ds[0]
	wantMsg := `../pilotage.yaml has errors, so the Language mapping of this file is unavailable and it is not validated: ` +
		`../pilotage.yaml:3:1: unknown key "langauges" at the top level (did you mean "languages"?) (and 1 more); fix ../pilotage.yaml and this file is checked again`
	if d.Message != wantMsg || d.Severity != 2 || d.Code != "pilotage.yaml" {
		t.Errorf("program: %d %q %q\nwant %q", d.Severity, d.Code, d.Message, wantMsg)
	}
	if len(d.RelatedInformation) != 2 || d.RelatedInformation[1].Location.URI != uri ||
		d.RelatedInformation[1].Location.Range != (protocol.Range{Start: protocol.Position{Line: 5, Character: 40}, End: protocol.Position{Line: 5, Character: 44}}) ||
		d.RelatedInformation[1].Message != strictString.message {
		t.Errorf("related: %+v", d.RelatedInformation)
	}

	c.Change(uri, 2, text("syntax.yaml"))
	checkDiags(t, "syntax.yaml", c.WaitDiags(uri, 2), tabIndent)
	c.Change(uri, 3, text("rules.yaml"))
	checkDiags(t, "rules.yaml", c.WaitDiags(uri, 3), unknownRule)
	c.WaitFor(prog, func(p lsptest.Publish) bool {
		return unchecked(p) && strings.Contains(p.Diagnostics[0].Message, "core-guide-sise")
	})

	// Fixed: the diagnostics clear, and the program is validated again.
	c.Change(uri, 4, text("pilotage.yaml"))
	checkDiags(t, "fixed", c.WaitDiags(uri, 4))
	c.WaitFor(prog, validated)
	c.WaitFor(pdlFile, count(linted))
	// Hover on a key: its description in the schema, and its section.
	var h protocol.Hover
	if err := c.Call("textDocument/hover", lsptest.At(uri, 4, 5), &h); err != nil ||
		!strings.Contains(fmt.Sprint(h.Contents), "**`languages.lang`** — The PDL file that defines the Language, relative to pilotage.yaml.") ||
		!strings.Contains(fmt.Sprint(h.Contents), "docs/config.md#languages)") {
		t.Errorf("hover: %v %v", h.Contents, err)
	}

	// A mapping elsewhere leaves the program alone; breaking that file
	// again tells a program it did not map nothing.
	c.Change(uri, 5, text("elsewhere.yaml"))
	c.WaitDiags(uri, 5)
	c.WaitFor(prog, none)
	c.Change(uri, 6, text("schema.yaml"))
	c.WaitDiags(uri, 6)
	c.WaitFor(prog, none)
	// Closed, the buffer gives way to the disk's file again.
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.WaitFor(prog, validated)
}

// A pilotage.yaml changed on disk, not open in the editor: the server
// asks a client that can watch files to report pilotage.yaml's changes,
// and each change is applied to the open files under it.
func TestLSPSettingsOnDisk(t *testing.T) {
	dir := t.TempDir()
	homeflow, _ := filepath.Abs("../langs/homeflow/homeflow.pdl")
	src, err := os.ReadFile("testdata/lsp/pilotage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := strings.Replace(string(src), "../../../langs/homeflow/homeflow.pdl", homeflow, 1)
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "pilotage.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	c := startLSP(t, map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}})
	prog := c.Open(filepath.Join(dir, "programs", "evening.json"), badProgram(t))
	c.WaitFor(prog, validated)
	var reg protocol.RegistrationParams
	if rs := c.WaitRequests("client/registerCapability"); len(rs) != 1 || json.Unmarshal(rs[0], &reg) != nil ||
		len(reg.Registrations) != 1 || reg.Registrations[0].Method != "workspace/didChangeWatchedFiles" ||
		!strings.Contains(fmt.Sprint(reg.Registrations[0].RegisterOptions), "**/pilotage.yaml") {
		t.Fatalf("registrations: %s", rs)
	}
	changed := map[string]any{"changes": []any{map[string]any{"uri": lspserve.URIOf(filepath.Join(dir, "pilotage.yaml")), "type": 2}}}
	write("defaults: {strict: maybe}\n" + good)
	c.Notify("workspace/didChangeWatchedFiles", changed)
	ds := c.WaitFor(prog, unchecked)
	if !strings.Contains(ds[0].Message, "../pilotage.yaml:1:20: defaults.strict: expected true or false here, found a string;") {
		t.Errorf("program: %s", ds[0].Message)
	}
	// A lang file that cannot be read is said at its lang value.
	write(strings.Replace(good, homeflow, "nothere.pdl", 1))
	c.Notify("workspace/didChangeWatchedFiles", changed)
	if ds := c.WaitFor(prog, unchecked); !strings.Contains(ds[0].Message, "lang names nothere.pdl, which cannot be read") {
		t.Errorf("program, lang missing: %s", ds[0].Message)
	}
	write(good)
	c.Notify("workspace/didChangeWatchedFiles", changed)
	c.WaitFor(prog, validated)
}

// A client that cannot watch files is asked nothing.
func TestLSPNoWatchWithoutCapability(t *testing.T) {
	c := startLSP(t, nil)
	var h any
	c.Call("shutdown", nil, &h) // a round trip: initialized was handled
	if rs := c.Requests("client/registerCapability"); len(rs) != 0 {
		t.Errorf("registered: %s", rs)
	}
}

// Hostile pilotage.yaml buffers get their problems, or the server's
// too-large diagnostic, at once: none panics, hangs or floods the
// editor with more than config show prints.
func TestLSPSettingsHostile(t *testing.T) {
	c := startLSP(t, nil)
	dir := t.TempDir()
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, l := range "bcdefg" {
		bomb += fmt.Sprintf("%c: &%c [%s]\n", l, l, strings.Repeat("*"+string("abcdefg"[i])+", ", 9)+"*"+string("abcdefg"[i]))
	}
	// Three thousand unknown keys; -short sends three hundred, which
	// take the same way to the same cut-off.
	nkeys := 3000
	if testing.Short() {
		nkeys = 300
	}
	var keys strings.Builder
	for i := range nkeys {
		fmt.Fprintf(&keys, "k%d: 1\n", i)
	}
	for _, tc := range []struct {
		name, text, has string
		max             int
	}{
		{"bomb", bomb, "more than 10000 values once its aliases are expanded", 1},
		{"deep", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), "", 1},
		{"keys", keys.String(), fmt.Sprintf("%d more problems not shown", nkeys-config.MaxDiagnostics), config.MaxDiagnostics + 1},
		{"large", strings.Repeat("# pad\n", 20000), "larger than 64 KiB", 1},
		{"huge", strings.Repeat("x: 1\n", lspserve.MaxLive/5+1), "pilotage lsp analyses files up to", 1},
		{"binary", "\x00\xff\xfe rules: {\n\t\"\x01", "not valid YAML", 1},
		{"empty", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.text) > lspserve.MaxLive && testing.Short() {
				t.Skip("sends 4 MiB through the pipe: -short leaves hostile sizes to the full suite")
			}
			sub := filepath.Join(dir, tc.name)
			t0 := time.Now()
			ds := c.WaitDiags(c.Open(filepath.Join(sub, "pilotage.yaml"), tc.text), 1)
			// Sending 4 MiB through the pipe takes most of a second, ten
			// under -race.
			limit := 5 * time.Second
			if len(tc.text) > lspserve.MaxLive {
				limit = 20 * time.Second
			}
			if d := time.Since(t0); d > limit {
				t.Errorf("took %v", d)
			}
			if len(ds) > tc.max || tc.max > 0 && len(ds) == 0 {
				t.Fatalf("%d diagnostics, want 1 to %d: %+v", len(ds), tc.max, ds)
			}
			all := fmt.Sprint(ds)
			if !strings.Contains(all, tc.has) || strings.Contains(all, "internal error") {
				t.Errorf("want %q: %s", tc.has, all)
			}
		})
	}
}

// FuzzLSPSettings reads arbitrary pilotage.yaml buffers as the server
// does: no panic, at most what config show prints, every problem's
// range inside the text, and the key lookup of hover anywhere in it.
func FuzzLSPSettings(f *testing.F) {
	for _, name := range []string{"pilotage.yaml", "schema.yaml", "syntax.yaml", "rules.yaml", "elsewhere.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata/lsp", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint(40))
	}
	f.Add([]byte("defaults: {baseline: \"😀\", strict: \"\xff\"}\n\t- [&a *a]"), uint(12))
	path := filepath.Join(f.TempDir(), "pilotage.yaml")
	f.Fuzz(func(t *testing.T, text []byte, at uint) {
		p := project(path, func(string) ([]byte, bool) { return text, true })
		if p.File != path || len(p.Problems) > config.MaxDiagnostics+1 || (len(p.Problems) == 0) == (p.Apply == nil) {
			t.Fatalf("project: %+v", p)
		}
		tx := textpos.New(text)
		const uri = "file:///pilotage.yaml"
		for _, d := range lspserve.Diagnostics(p.Problems, path, uri, text, nil, func(string) string { return "" })[uri] {
			if r := d.Range; int(r.End.Line) >= tx.Lines() || tx.Offset(r.Start.Line, r.Start.Character) > tx.Offset(r.End.Line, r.End.Character) {
				t.Fatalf("range %+v outside or reversed in %d lines: %s", r, tx.Lines(), d.Message)
			}
		}
		config.KeyDoc(text, int(at%uint(len(text)+1)))
	})
}
