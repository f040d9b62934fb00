package progdiag

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

func diag(code, pointer string, r *pilotage.CharRange) pilotage.Diagnostic {
	return pilotage.Diagnostic{Code: code, Severity: pilotage.SeverityError, Message: "m", Path: pilotage.PointerPath(pointer), Range: r}
}

func TestFindingsPositions(t *testing.T) {
	src, err := os.ReadFile("testdata/program.json")
	if err != nil {
		t.Fatal(err)
	}
	input := NewDoc("input.json", []byte("{\n  \"rooms\": 3\n}\n"), false)
	files := Files{Program: NewDoc("program.json", src, false), Input: input}
	for _, c := range []struct {
		name                   string
		d                      pilotage.Diagnostic
		file                   string
		line, col, eLine, eCol int
	}{
		// The value "sensors.read" on line 2, columns 26–39, quotes included.
		{"value", diag("unknown_name", "/steps/0/call", nil), "program.json", 2, 26, 2, 40},
		// The if string opens at column 24; range 0..5 is "steps".
		{"range", diag("scope", "/steps/1/if", &pilotage.CharRange{Start: 0, End: 5}), "program.json", 3, 25, 3, 30},
		// "café" ends the string at code points 31..35: the é is written
		// \u00e9, six bytes for one code point, so the extent is 56..65.
		{"range over an escape", diag("type", "/steps/1/if", &pilotage.CharRange{Start: 31, End: 35}), "program.json", 3, 56, 3, 65},
		// "\"attic\"" opens at column 59; code point 0 is the escaped
		// quote, two bytes.
		{"escaped quote", diag("type", "/steps/0/with/room", &pilotage.CharRange{Start: 0, End: 1}), "program.json", 2, 60, 2, 62},
		// A range past the string's end falls back to the whole value.
		{"range too long", diag("type", "/steps/0/id", &pilotage.CharRange{Start: 2, End: 99}), "program.json", 2, 10, 2, 16},
		// A missing member points at the object that lacks it, no extent.
		{"missing", diag("constraint", "/steps/1/loop", nil), "program.json", 3, 3, 0, 0},
		{"whole document", diag("syntax", "", nil), "program.json", 1, 1, 0, 0},
		{"input", diag("input_binding", "/rooms", nil), "input.json", 2, 12, 2, 13},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Findings([]pilotage.Diagnostic{c.d}, files)[0]
			if f.File != c.file || f.Line != c.line || f.Column != c.col || f.EndLine != c.eLine || f.EndColumn != c.eCol {
				t.Fatalf("got %s %d:%d-%d:%d, want %s %d:%d-%d:%d", f.File, f.Line, f.Column, f.EndLine, f.EndColumn,
					c.file, c.line, c.col, c.eLine, c.eCol)
			}
			if f.Rule != c.d.Code || f.Section != "5.5" || f.Pointer != c.d.Path.Pointer {
				t.Fatalf("finding %+v", f)
			}
		})
	}
}

func TestTextRangeAndUnparsable(t *testing.T) {
	text := NewDoc("q.sql", []byte("SELECT nme FROM t"), true)
	d := pilotage.Diagnostic{Code: "unknown_name", Severity: "fatal", Message: "m",
		Path: pilotage.Path{Text: &pilotage.TextRange{Start: pilotage.LineCol{Line: 1, Column: 8}, End: pilotage.LineCol{Line: 1, Column: 11}}}}
	f := Findings([]pilotage.Diagnostic{d}, Files{Program: text})[0]
	if f.Line != 1 || f.Column != 8 || f.EndColumn != 11 || f.Pointer != "" {
		t.Fatalf("text range: %+v", f)
	}
	if f.Severity != "error" {
		t.Fatalf("unknown severity %q must read as error (§1.3)", f.Severity)
	}
	// The engine's syntax diagnostic about a program that is not JSON
	// (path "") points where the JSON goes wrong, as lint's json-syntax
	// does (issue 13 item 13); any other diagnostic of it at line 1.
	bad := NewDoc("p.json", []byte("{\"steps\": [\n  1,]"), false)
	f = Findings([]pilotage.Diagnostic{diag("syntax", "", nil)}, Files{Program: bad})[0]
	if f.Line != 2 || f.Column != 4 || f.Pointer != "" {
		t.Fatalf("unparsable program: %+v; want 2:4, the trailing comma", f)
	}
	f = Findings([]pilotage.Diagnostic{diag("unknown_name", "/steps", nil)}, Files{Program: bad})[0]
	if f.Line != 1 || f.Column != 1 {
		t.Fatalf("unparsable program, another code: %+v", f)
	}
}

// Any program, pointer and range: a finding with a position inside the
// file (its line at most the file's last) and an underline that does not
// end before it starts, never a panic.
func FuzzFindings(f *testing.F) {
	src, _ := os.ReadFile("testdata/program.json")
	f.Add(src, "/steps/1/if", 3, 9)
	f.Add([]byte(`"\ud83d\ude00x\u00"`), "", 0, 2)
	f.Add([]byte(`{"a":"\\`), "/a", 0, 1)
	f.Fuzz(func(t *testing.T, prog []byte, pointer string, from, to int) {
		d := diag("type", pointer, &pilotage.CharRange{Start: from, End: to})
		fs := Findings([]pilotage.Diagnostic{d}, Files{Program: NewDoc("p.json", prog, false)})
		if len(fs) != 1 || fs[0].Line < 1 || fs[0].Column < 1 {
			t.Fatalf("finding %+v", fs)
		}
		if x := fs[0]; x.Line > bytes.Count(prog, []byte("\n"))+1 || x.EndLine != 0 && (x.EndLine != x.Line || x.EndColumn < x.Column) {
			t.Fatalf("finding %+v outside the program or with its end before its start", x)
		}
		// A file found to be JSON is placed whole as its tree would place it.
		if jsonpos.Check(prog) == nil {
			whole := []pilotage.Diagnostic{diag(pilotage.CodeInputBinding, "", nil)}
			want := Findings(whole, Files{Program: NewDoc("p.json", prog, false)})[0]
			got := Findings(whole, Files{Program: NewCheckedDoc("p.json", prog)})[0]
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Fatalf("checked %+v, parsed %+v", got, want)
			}
		}
	})
}

// TestDocParsedOnDemand: preparing a 16 MB file of one-character values
// builds no tree (the CLI prepares every file before the engine answers,
// and a program over its size limit is refused without a diagnostic); the
// first diagnostic that points into it parses it.
func TestDocParsedOnDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("a 16 MB input; run without -short")
	}
	src := []byte("[" + strings.Repeat("1,", 8<<20) + "1]")
	var doc *Doc
	if n := memtest.Allocated(func() { doc = NewDoc("big.json", src, false) }); n > 64<<10 {
		t.Errorf("NewDoc of a 16 MB file allocated %d bytes, want no tree", n)
	}
	f := Findings([]pilotage.Diagnostic{diag(pilotage.CodeInputBinding, "/3", nil)}, Files{Program: doc})
	if f[0].Line != 1 || f[0].Column != 8 {
		t.Errorf("/3 placed at %d:%d, want 1:8", f[0].Line, f[0].Column)
	}
}

// TestCheckedDocWhole: a diagnostic about the whole of a checked file is
// placed as the parsed file would place it (the value's first character,
// with an extent when it is one line), without parsing it: the input
// refused for its size is 16 MB of one-character values, whose tree
// would take 160 MB; placing takes the line marks of a scan, 4 MB.
func TestCheckedDocWhole(t *testing.T) {
	for _, src := range []string{`{"a": 1}`, "  \n\t{\"a\": [1,\n 2]}\r\n", `"é"`, "\n[1]  "} {
		d := []pilotage.Diagnostic{diag(pilotage.CodeInputBinding, "", nil)}
		want := Findings(d, Files{Program: NewDoc("in.json", []byte(src), false)})[0]
		got := Findings(d, Files{Program: NewCheckedDoc("in.json", []byte(src))})[0]
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("%q: checked %+v, parsed %+v", src, got, want)
		}
	}
	big := NewCheckedDoc("big.json", []byte("["+strings.Repeat("1,", 8<<20)+"1]"))
	var f []report.Finding
	n := memtest.Allocated(func() {
		f = Findings([]pilotage.Diagnostic{diag(pilotage.CodeInputBinding, "", nil)}, Files{Program: big})
	})
	if n > 8<<20 || f[0].Line != 1 || f[0].Column != 1 {
		t.Errorf("placed at %d:%d, allocating %d bytes; want 1:1 and no tree", f[0].Line, f[0].Column, n)
	}
}
