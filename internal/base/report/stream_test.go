package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONAsMarshalIndent: the json writer, a finding at a time, writes
// what json.MarshalIndent made of the whole report (as Write did before
// it streamed), escapes and all; and of a report of no finding.
func TestJSONAsMarshalIndent(t *testing.T) {
	full := fullReport()
	full.Add(Finding{Rule: "r", Section: "1", Severity: Warning, Message: "<&> \u0085\u202e\x7f", File: "a", Line: 2, Column: 1,
		Suppressions: []Suppression{{Kind: InSource, Justification: "why", Location: Location{File: "a", Line: 1}}}})
	for _, r := range []*Report{full, {Tool: "t"}} {
		fs := make([]Finding, len(r.Findings))
		for i, f := range r.Findings {
			f.Sections = f.AllSections()
			fs[i] = f
		}
		b, err := json.MarshalIndent(jsonReport{Findings: fs, Summary: r.Summary}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if _, err := jsonControls.WriteString(&want, string(b)+"\n"); err != nil {
			t.Fatal(err)
		}
		if err := Write(&got, JSON, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("written:\n%s\nMarshalIndent:\n%s", got.Bytes(), want.Bytes())
		}
	}
}

// TestStreamAsWrite: a Stream writes, wherever it is flushed, what Write
// writes of the sorted report, in every format; findings added after a
// Flush only come after the line it released.
func TestStreamAsWrite(t *testing.T) {
	whole := fullReport()
	whole.Sort()
	for _, f := range Formats {
		var want bytes.Buffer
		if err := Write(&want, f, whole, Options{}); err != nil {
			t.Fatal(err)
		}
		for cut := range len(whole.Findings) + 1 {
			// The findings of the first cut sorted ones are added in
			// reverse, the rest after a Flush that releases those.
			r := fullReport()
			r.Findings = nil
			r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos, r.Summary.Suppressed = 0, 0, 0, 0
			var got bytes.Buffer
			s := NewStream(&got, f, r, Options{})
			for i := cut - 1; i >= 0; i-- {
				s.Add(whole.Findings[i])
			}
			if cut < len(whole.Findings) {
				if err := s.Flush(whole.Findings[cut].File, whole.Findings[cut].Line); err != nil {
					t.Fatal(err)
				}
			}
			s.Add(whole.Findings[cut:]...)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s, flushed before finding %d:\n%s\nwant:\n%s", f, cut, got.Bytes(), want.Bytes())
			}
		}
	}
}
