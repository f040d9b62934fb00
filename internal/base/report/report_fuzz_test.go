package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzWriters renders a finding built from arbitrary text and numbers,
// quoting an arbitrary source, in every format: no writer panics, none
// lets a control through (text without colour: colour is escapes), text
// quotes a bounded window of the source line, json and sarif stay valid JSON that decodes back to the same text, junit stays
// well-formed XML, and github prints exactly one line per finding.
// gutter starts a quoted source line of the text format.
var gutter = regexp.MustCompile(`^ *-?[0-9]+ \| `)

func FuzzWriters(f *testing.F) {
	f.Add("retention-value", "6.6", "bad \"P7X\"\nnext", "hint: 100%", "a,b:c.json", "{\n \"a\": 1\n}", 2, 3, 2, 9)
	f.Add("", "", "", "", "", "", 0, 0, 0, 0)
	f.Add("r", "1", "\x00\x1b[31m\xff", "\r", "-", strings.Repeat("é", 300), 1, 250, 1, 400)
	f.Add("r", "1", "m", "", "f", "x", -5, -1, -7, -9)
	f.Fuzz(func(t *testing.T, rule, section, msg, hint, file, src string, line, col, endLine, endCol int) {
		fd := Finding{Rule: rule, Section: section, Sections: []string{section, hint}, Severity: Warning, Message: msg, Hint: hint, File: file,
			Line: line, Column: col, EndLine: endLine, EndColumn: endCol, Pointer: "/" + rule,
			Related: []Location{{File: file, Line: line, Column: col, Note: hint}}}
		r := &Report{Tool: "fuzz", Files: []string{file}, Sources: map[string][]byte{file: []byte(src)}}
		r.Add(fd)
		for _, format := range Formats {
			var b bytes.Buffer
			if err := Write(&b, format, r, Options{Color: true}); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			out := b.Bytes()
			if format == Text {
				controlFree(t, format, render(t, r, Text, Options{}))
			} else {
				controlFree(t, format, out)
			}
			switch format {
			case JSON:
				var back jsonReport
				if err := json.Unmarshal(out, &back); err != nil {
					t.Fatalf("json output does not decode: %v\n%s", err, out)
				}
				// Invalid UTF-8 comes back as U+FFFD; valid text comes back as it was.
				if len(back.Findings) != 1 || (utf8.ValidString(msg) && back.Findings[0].Message != msg) {
					t.Fatalf("json output lost the message: %+v", back.Findings)
				}
			case SARIF:
				if !json.Valid(out) {
					t.Fatalf("sarif output is not JSON:\n%s", out)
				}
			case JUnit:
				dec := xml.NewDecoder(bytes.NewReader(out))
				for {
					_, err := dec.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("junit output is not well-formed XML: %v\n%s", err, out)
					}
				}
			case Text:
				// The quoted source line is a window of at most 160
				// characters and an ellipsis at either end, however long
				// the line (checked when no other text can hold a newline).
				if strings.ContainsAny(msg+hint+file+rule+section, "\r\n") {
					break
				}
				for _, l := range strings.Split(string(out), "\n") {
					if m := gutter.FindStringIndex(l); m != nil && utf8.RuneCountInString(l[m[1]:]) > 162 {
						t.Fatalf("quoted line of %d characters:\n%s", utf8.RuneCountInString(l[m[1]:]), l)
					}
				}
			case GitHub:
				if n := bytes.Count(out, []byte("\n")); n != 1 || !bytes.HasPrefix(out, []byte("::warning ")) {
					t.Fatalf("github output is not one annotation line:\n%q", out)
				}
			}
		}
	})
}
