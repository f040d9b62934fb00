package lspserve

import (
	"encoding/json"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// A finding with an end keeps its range; one without gets the name at
// its start underlined; both in UTF-16 units. Findings in another file
// go to that file's URI, suppressed ones nowhere.
func TestDiagnostics(t *testing.T) {
	src := []byte("😀 risk wirte x\nentry \"a.b\" kind=k\nstrict: \"n\\\"😀\" # x\nbad: \"open\\\nnext\n")
	fs := []report.Finding{
		{Rule: "r1", Section: "5.3", Severity: report.Error, Message: "risk wirte is not defined", Hint: "did you mean write?", File: "f.pdl", Line: 1, Column: 3, EndLine: 1, EndColumn: 13},
		{Rule: "r2", Section: "5.4", Severity: report.Warning, Message: "m", File: "f.pdl", Line: 2, Column: 8},
		{Rule: "r3", Severity: report.Info, Message: "elsewhere", File: "/x/s.json", Line: 1, Column: 1},
		{Rule: "r4", Severity: report.Error, Message: "quiet", File: "f.pdl", Line: 1, Column: 1, Suppressions: []report.Suppression{{Kind: report.InSource}}},
		{Rule: "r5", Message: "quoted", File: "f.pdl", Line: 3, Column: 9},
		{Rule: "r6", Message: "unclosed", File: "f.pdl", Line: 4, Column: 6},
	}
	link := func(rule string) string {
		if rule == "r1" {
			return "https://docs/r1"
		}
		return ""
	}
	got := Diagnostics(fs, "f.pdl", "file:///f.pdl", src, map[string][]byte{"/x/s.json": []byte("{}")}, link)
	own := got["file:///f.pdl"]
	if len(own) != 4 || len(got["file:///x/s.json"]) != 1 {
		t.Fatalf("%+v", got)
	}
	if r := own[0].Range; r.Start.Character != 3 || r.End.Character != 13 || own[0].CodeDescription.HRef != "https://docs/r1" || own[0].Message != "risk wirte is not defined (§5.3)\nhint: did you mean write?" {
		t.Errorf("first: %+v %+v %q", r, own[0].CodeDescription, own[0].Message)
	}
	if r := own[1].Range; r.Start != (protocol.Position{Line: 1, Character: 7}) || r.End != (protocol.Position{Line: 1, Character: 10}) || own[1].CodeDescription != nil {
		t.Errorf("second: %+v", r)
	}
	// Without an end, a quoted string is underlined to its closing quote
	// past escaped ones, as the CLI's snippet underlines it ("n\"😀" is
	// 7 UTF-16 units), and an unclosed one only its quote.
	if r := own[2].Range; r.Start != (protocol.Position{Line: 2, Character: 8}) || r.End != (protocol.Position{Line: 2, Character: 15}) || own[2].Message != "quoted" {
		t.Errorf("quoted: %+v %q", r, own[2].Message)
	}
	if r := own[3].Range; r.Start != (protocol.Position{Line: 3, Character: 5}) || r.End != (protocol.Position{Line: 3, Character: 6}) {
		t.Errorf("unclosed: %+v", r)
	}
	// The quick fix replaces the misspelling, not the other words of the
	// message that the range holds.
	b, _ := json.Marshal(own[0])
	var back protocol.Diagnostic
	json.Unmarshal(b, &back)
	title, edit := FixOf(src, textpos.New(src), back)
	if edit == nil || title != "Change wirte to write" || edit.Range.Start.Character != 8 || edit.Range.End.Character != 13 || edit.NewText != "write" {
		t.Errorf("fix %q %+v", title, edit)
	}
}

func TestWordsAndOccurrences(t *testing.T) {
	src := []byte(`entry "lights.set" {} # lights.setting lights.set`)
	if w, from, to := WordAt(src, 10); w != "lights.set" || from != 7 || to != 17 {
		t.Errorf("WordAt: %q %d %d", w, from, to)
	}
	if occ := Occurrences(src, "lights.set"); len(occ) != 2 || occ[1][0] != 39 {
		t.Errorf("Occurrences: %v", occ)
	}
	if occ := Occurrences(src, ""); occ != nil {
		t.Errorf("empty name: %v", occ)
	}
}

// A codeAction request's diagnostics keep the codes the client sent,
// string or integer, through glsp's decoding; a null or absent code is
// left out rather than echoed as null.
func TestRestoreCodes(t *testing.T) {
	params := []byte(`{"textDocument": {"uri": "file:///a.pdl"}, "context": {"diagnostics": [
		{"message": "a", "code": "pdl-reference"}, {"message": "b", "code": 42},
		{"message": "c", "code": null}, {"message": "d"}]}}`)
	var p protocol.CodeActionParams
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	RestoreCodes(params, p.Context.Diagnostics)
	got, _ := json.Marshal(p.Context.Diagnostics)
	want := `[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"code":"pdl-reference","message":"a"},` +
		`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"code":42,"message":"b"},` +
		`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"c"},` +
		`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"message":"d"}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
