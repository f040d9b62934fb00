package lsp

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

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/lsptest"
)

// start serves on a pipe to a test client, with no project settings.
func start(t testing.TB) *lsptest.Client { return startWith(t, nil) }

// startWith serves with the project settings project gives.
func startWith(t testing.TB, project func(string) Project) *lsptest.Client {
	var opt Options
	if project != nil {
		opt.Project = func(path string, _ Open) Project { return project(path) }
	}
	return serveWith(t, nil, opt)
}

// serveWith serves with opt to a client with the capabilities caps.
func serveWith(t testing.TB, caps map[string]any, opt Options) *lsptest.Client {
	t.Helper()
	return lsptest.Start(t, caps, func(rwc io.ReadWriteCloser, log io.Writer) {
		opt.Log = log
		Serve(context.Background(), rwc, opt)
	})
}

func read(t testing.TB, name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const homeflow = "../../langs/homeflow/homeflow.pdl"

// A clean example Language publishes no diagnostics; a misspelled risk
// gets the compiler's finding at the CLI's range, its rule as code with
// a link to the rule's page, and a quick fix to the suggestion.
func TestPDLDiagnosticsAndQuickFix(t *testing.T) {
	c := start(t)
	src := read(t, homeflow)
	uri := c.Open(homeflow, src)
	if ds := c.WaitDiags(uri, 1); len(ds) != 0 {
		t.Fatalf("clean file: %+v", ds)
	}
	bad := strings.Replace(src, `entry "lights.set" kind=device risk=write`, `entry "lights.set" kind=device risk=wirte`, 1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": bad}}})
	ds := c.WaitDiags(uri, 2)
	if len(ds) != 1 {
		t.Fatalf("want 1 diagnostic, got %+v", ds)
	}
	d := ds[0]
	line := strings.Count(bad[:strings.Index(bad, "risk=wirte")], "\n")
	col := strings.Index(strings.Split(bad, "\n")[line], "risk=wirte")
	if d.Code != "pdl-reference" || d.CodeDescription == nil || !strings.HasSuffix(d.CodeDescription.Href, "docs/pdl.md#diagnostics") {
		t.Errorf("code/link: %+v %+v", d.Code, d.CodeDescription)
	}
	if int(d.Range.Start.Line) != line || int(d.Range.Start.Character) != col || d.Range.End.Character <= d.Range.Start.Character {
		t.Errorf("range %+v, want line %d col %d", d.Range, line, col)
	}
	if !strings.Contains(d.Message, "did you mean write?") {
		t.Errorf("message: %s", d.Message)
	}
	var raw json.RawMessage
	if err := c.Call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri}, "range": d.Range, "context": map[string]any{"diagnostics": []any{d}}}, &raw); err != nil {
		t.Fatal(err)
	}
	var actions []protocol.CodeAction
	var echoed []struct{ Diagnostics []lsptest.Diag }
	if err := json.Unmarshal(raw, &actions); err != nil || json.Unmarshal(raw, &echoed) != nil || len(actions) != 1 {
		t.Fatalf("actions: %s %v", raw, err)
	}
	// The action names the diagnostic it fixes as it was published:
	// its rule as code and the rule's link, never "code": null.
	if e := echoed[0].Diagnostics; strings.Contains(string(raw), `"code":null`) || len(e) != 1 || e[0].Code != d.Code || e[0].CodeDescription == nil || e[0].CodeDescription.Href != d.CodeDescription.Href {
		t.Errorf("the action's diagnostics are not the published one: %s", raw)
	}
	edit := actions[0].Edit.Changes[uri][0]
	if edit.NewText != "write" || int(edit.Range.Start.Character) != col+len("risk=") || int(edit.Range.End.Character) != col+len("risk=wirte") {
		t.Errorf("edit %+v", edit)
	}
}

// Columns are UTF-16 units: a finding after "°C" and an emoji on its
// line sits where the editor counts it, not at the byte or code point.
func TestUTF16Columns(t *testing.T) {
	c := start(t)
	src := "# 😀°\nserver \"x\" version=\"1\"\nrisk safe readOnly \"😀 ok\" bogus=1\n"
	uri := c.Open(filepath.Join(t.TempDir(), "u.pdl"), src)
	ds := c.WaitDiags(uri, 1)
	var found bool
	for _, d := range ds {
		if d.Code == "pdl-unknown" {
			found = true
			// "risk safe readOnly "😀 ok" " is 26 code points, 27 UTF-16 units.
			if d.Range.Start.Line != 2 || d.Range.Start.Character != 27 {
				t.Errorf("range %+v", d.Range)
			}
		}
	}
	if !found {
		t.Fatalf("no pdl-unknown in %+v", ds)
	}
}

func TestPDLRequests(t *testing.T) {
	c := start(t)
	src := read(t, homeflow)
	uri := c.Open(homeflow, src)
	c.WaitDiags(uri, 1)
	lines := strings.Split(src, "\n")
	find := func(s string) (int, int) {
		for i, l := range lines {
			if j := strings.Index(l, s); j >= 0 {
				return i, j
			}
		}
		t.Fatalf("%q not in file", s)
		return 0, 0
	}
	// Hover on an entry: kind, risk and schemas.
	l, ch := find(`entry "sensors.read"`)
	var h protocol.Hover
	if err := c.Call("textDocument/hover", lsptest.At(uri, l, ch+8), &h); err != nil {
		t.Fatal(err)
	}
	hv := fmt.Sprint(h.Contents)
	for _, w := range []string{"sensors.read", "kind=`device`", "risk=`safe`", "output_schema"} {
		if !strings.Contains(hv, w) {
			t.Errorf("entry hover lacks %q: %s", w, hv)
		}
	}
	// Hover on a keyword: its meaning and section.
	l, ch = find("  limits {")
	if err := c.Call("textDocument/hover", lsptest.At(uri, l, ch+3), &h); err != nil || !strings.Contains(fmt.Sprint(h.Contents), "§10.1") {
		t.Errorf("keyword hover: %v %v", h.Contents, err)
	}
	// Completion of statements in the limits block comes from the compiler.
	var items []protocol.CompletionItem
	l, _ = find("    steps 10000")
	if err := c.Call("textDocument/completion", lsptest.At(uri, l, 4), &items); err != nil {
		t.Fatal(err)
	}
	if labels := labelsOf(items); !strings.Contains(labels, "iterations") || strings.Contains(labels, "entry") {
		t.Errorf("limits completion: %s", labels)
	}
	// Completion after risk= offers the declared risk levels.
	l, ch = find(`kind=device risk=safe`)
	if err := c.Call("textDocument/completion", lsptest.At(uri, l, ch+len("kind=device risk=")), &items); err != nil {
		t.Fatal(err)
	}
	if labels := labelsOf(items); labels != "safe write dangerous" {
		t.Errorf("risk completion: %s", labels)
	}
	// Sub-features of a capability.
	l, ch = find("    catalog search changed_since")
	if err := c.Call("textDocument/completion", lsptest.At(uri, l, ch+len("    catalog ")), &items); err != nil || !strings.Contains(labelsOf(items), "changed_since") {
		t.Errorf("sub-feature completion: %s %v", labelsOf(items), err)
	}
	// Definition and references of an entry used in a guide example.
	l, ch = find(`"call": "lights.set"`)
	var locs []protocol.Location
	if err := c.Call("textDocument/definition", lsptest.At(uri, l, ch+10), &locs); err != nil || len(locs) != 1 {
		t.Fatalf("definition: %v %v", locs, err)
	}
	if dl, _ := find(`entry "lights.set"`); int(locs[0].Range.Start.Line) != dl {
		t.Errorf("definition at %+v, want line %d", locs[0].Range, dl)
	}
	if err := c.Call("textDocument/references", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": l, "character": ch + 10}, "context": map[string]any{"includeDeclaration": true}}, &locs); err != nil || len(locs) < 2 {
		t.Fatalf("references: %v %v", locs, err)
	}
	// The principal's pattern "lights.*" and the catch-all "*" use it too.
	var patterns int
	for _, loc := range locs {
		if line := lines[loc.Range.Start.Line]; strings.Contains(line, "sees") {
			patterns++
		}
	}
	if patterns != 2 {
		t.Errorf("references in sees patterns: %d of %+v", patterns, locs)
	}
	// Outline.
	var syms []protocol.DocumentSymbol
	if err := c.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms); err != nil {
		t.Fatal(err)
	}
	if len(syms) == 0 || !strings.Contains(fmt.Sprint(syms), "homeflow/v1") || !strings.Contains(fmt.Sprint(syms), "sensors.read") {
		t.Errorf("symbols: %+v", syms)
	}
	// Formatting a formatted file changes nothing.
	var edits []protocol.TextEdit
	if err := c.Call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits); err != nil || len(edits) != 0 {
		t.Errorf("format of a formatted file: %v %v", edits, err)
	}
}

func labelsOf(items []protocol.CompletionItem) string {
	var ls []string
	for _, it := range items {
		ls = append(ls, it.Label)
	}
	return strings.Join(ls, " ")
}

// Formatting is exactly pilotage fmt (its golden), and a file with a
// syntax error is refused with the error's position.
func TestFormatting(t *testing.T) {
	c := start(t)
	in := "server \"x\"   version=\"1\"\nrisk safe readOnly   \"ok\"\n"
	uri := c.Open(filepath.Join(t.TempDir(), "f.pdl"), in)
	var edits []protocol.TextEdit
	if err := c.Call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &edits); err != nil {
		t.Fatal(err)
	}
	if len(edits) != 1 || edits[0].NewText != "server \"x\" version=\"1\"\nrisk safe readOnly \"ok\"\n" {
		t.Fatalf("edits %+v", edits)
	}
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": "server {{\n"}}})
	c.WaitDiags(uri, 2)
	err := c.Call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &edits)
	if err == nil || !strings.Contains(err.Error(), "f.pdl:1:") {
		t.Fatalf("syntax error: %v", err)
	}
}

// The protocol's failure cases: unknown methods, bad params, documents
// never opened or closed under a request, a message that is JSON but no
// JSON-RPC; the server answers each and keeps serving.
func TestProtocolErrors(t *testing.T) {
	c := start(t)
	var out any
	err := c.Call("pilotage/nope", map[string]any{}, &out)
	var je *jsonrpc2.Error
	if !asRPC(err, &je) || je.Code != jsonrpc2.CodeMethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": 5}, &out); !asRPC(err, &je) || je.Code != jsonrpc2.CodeInvalidParams {
		t.Errorf("bad params: %v", err)
	}
	if err := c.Call("textDocument/hover", lsptest.At("file:///nowhere.pdl", 0, 0), &out); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("unopened: %v", err)
	}
	uri := c.Open(filepath.Join(t.TempDir(), "gone.pdl"), "server \"x\" version=\"1\"\n")
	c.WaitDiags(uri, 1)
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if err := c.Call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &out); err == nil {
		t.Errorf("closed document formatted")
	}
	// A framed body that is JSON but not a message is answered (with id
	// null, which this client ignores) and the next request served.
	body := `{"jsonrpc":"2.0","id":"x","method":7}`
	fmt.Fprintf(c.Raw, "Content-Length: %d\r\n\r\n%s", len(body), body)
	var h *protocol.Hover
	if err := c.Call("textDocument/hover", lsptest.At("file:///nowhere.pdl", 0, 0), &h); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Errorf("after a malformed message: %v", err)
	}
}

// initialize is sent once (LSP 3.17, "Initialize Request"): a second
// is refused with InvalidRequest, and the session goes on as it was.
func TestSecondInitialize(t *testing.T) {
	c := start(t)
	var out any
	var je *jsonrpc2.Error
	err := c.Call("initialize", map[string]any{"capabilities": map[string]any{}}, &out)
	if !asRPC(err, &je) || je.Code != jsonrpc2.CodeInvalidRequest || je.Message != "initialize was already received" {
		t.Fatalf("second initialize: %v, answered %v", err, out)
	}
	uri := c.Open(filepath.Join(t.TempDir(), "after.pdl"), "server \"x\" version=\"1\"\nrisk safe readOnly \"r\" bad=1\n")
	if ds := c.WaitDiags(uri, 1); len(ds) == 0 {
		t.Fatal("no diagnostics after the second initialize")
	}
	var edits []protocol.TextEdit
	if err := c.Call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &edits); err != nil {
		t.Errorf("a request after the second initialize: %v", err)
	}
}

func asRPC(err error, je **jsonrpc2.Error) bool {
	e, ok := err.(*jsonrpc2.Error)
	*je = e
	return ok
}

// A 10 MB file gets one diagnostic saying it is too large, at once, and
// requests on it answer nothing rather than stall.
func TestHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a 10 MB file; run without -short")
	}
	c := start(t)
	big := strings.Repeat("risk safe readOnly \"x\"\n", 10<<20/23+1)
	t0 := time.Now()
	uri := c.Open(filepath.Join(t.TempDir(), "big.pdl"), big)
	ds := c.WaitDiags(uri, 1)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "run pilotage lint") {
		t.Fatalf("huge file: %+v", ds)
	}
	var h *protocol.Hover
	if err := c.Call("textDocument/hover", lsptest.At(uri, 3, 3), &h); err != nil || h != nil {
		t.Errorf("hover on a huge file: %v %v", h, err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// A panic in one document's analysis becomes a diagnostic on it; other
// documents and requests go on.
func TestAnalysisPanic(t *testing.T) {
	analyseHook = func(path string) {
		if strings.HasSuffix(path, "boom.pdl") {
			panic("boom")
		}
	}
	t.Cleanup(func() { analyseHook = nil })
	c := start(t)
	dir := t.TempDir()
	uri := c.Open(filepath.Join(dir, "boom.pdl"), "server \"x\" version=\"1\"\n")
	ds := c.WaitDiags(uri, 1)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "internal error: boom") {
		t.Fatalf("panic: %+v", ds)
	}
	ok := c.Open(filepath.Join(dir, "ok.pdl"), "server \"x\" version=\"1\"\nrisk safe readOnly \"r\" bad=1\n")
	if ds := c.WaitDiags(ok, 1); len(ds) == 0 {
		t.Fatal("the next document got no analysis")
	}
}

// A program file mapped to its Language (cmd maps it from pilotage.yaml) gets validate's diagnostics at
// its JSON Pointer, hover and completion of entries, and its plan's max
// risk as a code lens.
func TestProgramFile(t *testing.T) {
	dir := t.TempDir()
	c := startWith(t, func(path string) Project {
		if filepath.Ext(path) == ".json" {
			return Project{Lang: homeflow}
		}
		return Project{}
	})
	prog := `{"steps": [{"id": "r", "call": "sensors.read", "with": {"room": "\"attic\""}}], "output": "steps.r.output"}`
	uri := c.Open(filepath.Join(dir, "progs", "p.json"), prog)
	if ds := c.WaitDiags(uri, 1); len(ds) != 0 {
		t.Fatalf("valid program: %+v", ds)
	}
	var lens []protocol.CodeLens
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lens); err != nil || len(lens) != 1 || !strings.Contains(lens[0].Command.Title, "max risk safe") {
		t.Errorf("lens: %+v %v", lens, err)
	}
	var h protocol.Hover
	if err := c.Call("textDocument/hover", lsptest.At(uri, 0, strings.Index(prog, "sensors.read")+2), &h); err != nil || !strings.Contains(fmt.Sprint(h.Contents), "risk `safe`") {
		t.Errorf("hover: %v %v", h.Contents, err)
	}
	var items []protocol.CompletionItem
	if err := c.Call("textDocument/completion", lsptest.At(uri, 0, 10), &items); err != nil || !strings.Contains(labelsOf(items), "lights.set") {
		t.Errorf("completion: %v %v", labelsOf(items), err)
	}
	// Inside a call's "with": the entry's argument names; after
	// steps.<id>.output.: the callee's output fields.
	if err := c.Call("textDocument/completion", lsptest.At(uri, 0, strings.Index(prog, `"room"`)), &items); err != nil || labelsOf(items) != "room" {
		t.Errorf("argument completion: %v %v", labelsOf(items), err)
	}
	typing := strings.Replace(prog, `"steps.r.output"`, `"steps.r.output.`, 1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": typing}}})
	if err := c.Call("textDocument/completion", lsptest.At(uri, 0, strings.Index(typing, "output.")+len("output.")), &items); err != nil || labelsOf(items) != "lux temp" {
		t.Errorf("output completion: %v %v", labelsOf(items), err)
	}
	c.WaitDiags(uri, 2)
	bad := strings.Replace(prog, "sensors.read", "sensors.raed", 1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3}, "contentChanges": []any{map[string]any{"text": bad}}})
	ds := c.WaitDiags(uri, 3)
	if len(ds) == 0 || ds[0].Range.Start.Character != uint32(strings.Index(bad, `"sensors.raed"`)) {
		t.Fatalf("invalid program: %+v", ds)
	}
}

// A slow analysis (a large file mid-lint) holds up no request: hover and
// formatting of it and of other documents answer while it runs, and its
// diagnostics arrive after.
func TestSlowAnalysisBlocksNothing(t *testing.T) {
	release := make(chan struct{})
	analyseHook = func(path string) {
		if strings.HasSuffix(path, "slow.pdl") {
			<-release
		}
	}
	t.Cleanup(func() { analyseHook = nil })
	c := start(t)
	dir := t.TempDir()
	slow := c.Open(filepath.Join(dir, "slow.pdl"), "server   \"x\" version=\"1\"\n")
	other := c.Open(filepath.Join(dir, "other.pdl"), "server   \"y\" version=\"1\"\n")
	t0 := time.Now()
	for _, uri := range []string{slow, other} {
		var edits []protocol.TextEdit
		if err := c.Call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri}, "options": map[string]any{}}, &edits); err != nil || len(edits) != 1 {
			t.Fatalf("formatting %s: %v %v", uri, edits, err)
		}
	}
	c.WaitDiags(other, 1)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("requests waited %v for the slow analysis", d)
	}
	close(release)
	c.WaitDiags(slow, 1)
}

// A text program (ledger's syntax text) gets validate's diagnostics at
// their text ranges, and the plan's lens.
func TestTextProgramFile(t *testing.T) {
	c := startWith(t, func(string) Project { return Project{Lang: "../../langs/ledger/ledger.pdl"} })
	src := read(t, "../../langs/ledger/programs/pay.txt")
	uri := c.Open(filepath.Join(t.TempDir(), "pay.txt"), src)
	if ds := c.WaitDiags(uri, 1); len(ds) != 0 {
		t.Fatalf("valid program: %+v", ds)
	}
	var lens []protocol.CodeLens
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lens); err != nil || len(lens) != 1 || !strings.Contains(lens[0].Command.Title, "max risk") {
		t.Errorf("lens: %+v %v", lens, err)
	}
	bad := strings.Replace(src, "ledger.post(", "ledger.pots(", 1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": bad}}})
	ds := c.WaitDiags(uri, 2)
	line := strings.Count(bad[:strings.Index(bad, "ledger.pots")], "\n")
	if len(ds) == 0 || int(ds[0].Range.Start.Line) != line || !strings.Contains(ds[0].Message, "ledger.pots") {
		t.Fatalf("want a diagnostic on line %d: %+v", line, ds)
	}
}

// In a text program, completion offers a call's remaining argument
// names (input_schema) and, after LABEL.output., the labelled call's
// output fields (output_schema), as it does in JSON programs.
func TestTextProgramCompletion(t *testing.T) {
	c := startWith(t, func(string) Project { return Project{Lang: "../../langs/ledger/ledger.pdl"} })
	src := read(t, "../../langs/ledger/programs/pay.txt")
	uri := c.Open(filepath.Join(t.TempDir(), "pay.txt"), src)
	c.WaitDiags(uri, 1)
	typing := strings.Replace(src, `credit: "cash", `, "", 1)
	typing = strings.Replace(typing, "report due.output.items.size()", "report cash.output.", 1)
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2}, "contentChanges": []any{map[string]any{"text": typing}}})
	c.WaitDiags(uri, 2)
	for _, q := range []struct{ after, want string }{
		// Names bound before and after the cursor are left out.
		{`ledger.post(debit: "payables", `, "credit"},
		{"ledger.post(", "credit"},
		{"invoices.flag(id: inv.id, re", "reason"},
		{"report cash.output.", "account amount"},
		{"each inv of due.output.", "items"},
	} {
		off := strings.Index(typing, q.after) + len(q.after)
		line := strings.Count(typing[:off], "\n")
		var items []protocol.CompletionItem
		err := c.Call("textDocument/completion", lsptest.At(uri, line, off-strings.LastIndex(typing[:off], "\n")-1), &items)
		if err != nil || labelsOf(items) != q.want {
			t.Errorf("after %q: %q, want %q (%v)", q.after, labelsOf(items), q.want, err)
		}
	}
}

// Hover on an entry in a program shows what the entry has: its name,
// description and schemas when given, and no empty lines where an
// entry without them would have had them.
func TestEntryHover(t *testing.T) {
	c := startWith(t, func(string) Project { return Project{Lang: "testdata/hover.pdl"} })
	prog := `{"steps": [{"id": "g", "call": "greet", "with": {"name": "\"x\""}}, {"id": "b", "call": "bare"}], "output": "steps.g.output"}`
	uri := c.Open(filepath.Join(t.TempDir(), "p.json"), prog)
	if ds := c.WaitDiags(uri, 1); len(ds) != 0 {
		t.Fatalf("valid program: %+v", ds)
	}
	var got strings.Builder
	for _, name := range []string{"greet", "bare"} {
		var h struct{ Contents protocol.MarkupContent }
		if err := c.Call("textDocument/hover", lsptest.At(uri, 0, strings.Index(prog, `"`+name+`"`)+2), &h); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(h.Contents.Value, "\n\n\n") || strings.HasSuffix(h.Contents.Value, "\n") {
			t.Errorf("%s: hover has blank lines: %q", name, h.Contents.Value)
		}
		fmt.Fprintf(&got, "-- %s --\n%s\n", name, h.Contents.Value)
	}
	golden.Check(t, "testdata/entryhover.golden", []byte(got.String()))
}
