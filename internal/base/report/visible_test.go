package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileSrc is a source whose lines carry what a hostile snapshot may: a
// terminal colour sequence, an OSC window-title sequence ended by BEL, a
// CR that would overwrite the line (it ends the line instead, as every
// position counts line ends: textpos.LineEnd), NUL, DEL, a C1 CSI
// (U+009B) and a lone 0x9b byte (CSI to an 8-bit terminal), and a tab.
const hostileSrc = "{\n" +
	"  \"a\": \"\x1b[31mred\x1b]0;owned\x07\", \"b\": 1,\n" +
	"  \"c\": \"x\rhidden\x00\x7f\u009b2J\xff\x9b\",\t\"d\": 2\n" +
	"}\n"

// hostileText is a message, hint, name and note with the same bytes.
const hostileText = "bad \x1b[2J\x1b]8;;http://evil\x07link\rfake\x00nul\x7fdel\u0085nel\xff\x9b\u202erlo\ufeffbom\u200bzw\tend\nsecond line"

// hostileReport carries hostile bytes in every text a writer shows.
func hostileReport() *Report {
	file := "evil\x1b[31m\x00.json"
	r := &Report{
		Tool:     "pilotage lint",
		KeyLabel: "run_id",
		Files:    []string{file},
		Sources:  map[string][]byte{file: []byte(hostileSrc)},
	}
	r.Add(
		// The subjects after the controls: "b" on line 2, "d" on line 4,
		// which the CR began; the carets must stay under them once the
		// controls are escaped.
		Finding{Rule: "r\x1b", Section: "5.1\x00", Severity: Error, Message: hostileText, File: file,
			Line: 2, Column: 30, EndLine: 2, EndColumn: 33, Pointer: "/b\x1b[0m", Hint: hostileText, Key: "run\x1b",
			Related: []Location{{File: file, Line: 3, Column: 3, Pointer: "/c\r", Note: hostileText}}},
		Finding{Rule: "r", Section: "5.1", Severity: Warning, Message: "m", File: file, Line: 4, Column: 17},
	)
	r.Summary.Files = 1
	return r
}

// controlFree fails when out holds a control other than newline and tab,
// or a byte that is not UTF-8: what a terminal or CI log would act on.
func controlFree(t *testing.T, format Format, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Errorf("%s output is not UTF-8:\n%q", format, out)
	}
	for _, r := range string(out) {
		if isControl(r) {
			t.Errorf("%s output holds the control %U:\n%q", format, r, out)
			return
		}
	}
}

// TestHostileBytes: controls from the checked files reach no terminal
// or CI log through any format. Text, github and junit show them as
// escapes, and a message's tab and newline too, as a step id or member
// name it quotes may hold them (a hint keeps its newlines, its lines) (junit is well-formed XML 1.0, which cannot hold NUL or ESC at
// all); json and sarif carry them as JSON escapes that decode back to the
// exact text.
func TestHostileBytes(t *testing.T) {
	r := hostileReport()
	for _, format := range Formats {
		out := render(t, r, format, Options{})
		controlFree(t, format, out)
		switch format {
		case Text, GitHub, JUnit:
			// The message is one line: its tab and newline are escaped
			// too, as a table cell's are.
			for _, want := range []string{`\x1b[2J`, `\x1b]8;;http://evil\x07link\x0dfake\x00nul\x7fdel\u0085nel\xff\x9b\u202erlo\ufeffbom\u200bzw`, `evil\x1b[31m\x00.json`, `zw\x09end\x0asecond line`} {
				if !strings.Contains(string(out), want) {
					t.Errorf("%s output lacks %q:\n%s", format, want, out)
				}
			}
		case JSON:
			var back jsonReport
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			f := back.Findings[0]
			// Bytes that are not UTF-8 cannot be JSON text: they come back
			// as U+FFFD; every control comes back as it was.
			want := strings.ToValidUTF8(hostileText, "\ufffd\ufffd")
			if f.Message != want || f.Hint != want || f.File != r.Findings[0].File || f.Pointer != "/b\x1b[0m" {
				t.Errorf("json does not carry the text as it was: %#v", f)
			}
		case SARIF:
			var back sarifLog
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if msg := back.Runs[0].Results[0].Message.Text; !strings.HasPrefix(msg, "bad \x1b[2J\x1b]8;;http://evil\x07link\rfake\x00nul") {
				t.Errorf("sarif does not carry the message as it was: %q", msg)
			}
		}
		if format == JUnit {
			dec := xml.NewDecoder(bytes.NewReader(out))
			for {
				if _, err := dec.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("junit output is not well-formed XML: %v\n%s", err, out)
				}
			}
		}
	}
	// The carets stay under their subjects: "b" after a colour and an OSC
	// sequence, "d" after NUL, DEL, C1 and two bad bytes. Bad bytes
	// show as U+FFFD in a snippet: the line is decoded as characters.
	text := string(render(t, r, Text, Options{}))
	for _, subject := range []string{`"b"`, `"d"`} {
		lines := strings.Split(text, "\n")
		found := false
		for i, l := range lines[:len(lines)-1] {
			at := strings.Index(l, subject)
			next := lines[i+1]
			if at < 0 || !strings.Contains(next, "^") {
				continue
			}
			if found = strings.Index(next, "^") == utf8.RuneCountInString(l[:at]); !found {
				t.Errorf("the caret is not under %s:\n%s\n%s", subject, l, next)
			}
			break
		}
		if !found && !t.Failed() {
			t.Errorf("no snippet with %s:\n%s", subject, text)
		}
	}
}
