package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
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

// TestStreamSpilled: a Stream whose spool holds one finding in memory,
// so that sarif and junit read every other back from the temporary
// file, writes what Write writes, bytes that are not UTF-8 and
// suppressed findings included, and leaves no file behind, not even
// while it runs (a run that is killed leaves none). Without a usable
// TMPDIR it holds the findings in memory and writes the same report.
func TestStreamSpilled(t *testing.T) {
	dir := t.TempDir()
	for _, tmp := range []string{dir, filepath.Join(dir, "nosuch")} {
		t.Setenv("TMPDIR", tmp)
		for name, report := range map[string]func() *Report{"full": fullReport, "hostile": hostileReport, "suppressed": suppressedReport, "empty": emptyReport} {
			for _, f := range Formats {
				for _, opt := range []Options{{}, {Strict: true, IncludeSuppressed: true}} {
					whole := report()
					whole.Sort()
					var want bytes.Buffer
					if err := Write(&want, f, whole, opt); err != nil {
						t.Fatal(err)
					}
					r := report()
					r.Sort()
					fs := r.Findings
					r.Findings, r.Summary.Errors, r.Summary.Warnings, r.Summary.Infos, r.Summary.Suppressed = nil, 0, 0, 0, 0
					var got bytes.Buffer
					s := NewStream(&got, f, r, opt)
					s.held = newSpool(1)
					for _, x := range fs {
						s.Add(x)
						if err := s.Flush(x.File, x.Line+1); err != nil {
							t.Fatalf("TMPDIR %s: %v", tmp, err)
						}
					}
					if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
						t.Errorf("a spool file is visible while the stream runs: %v", left)
					}
					if err := s.Close(); err != nil {
						t.Fatalf("TMPDIR %s: %v", tmp, err)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("TMPDIR %s, %s %s %+v:\n%s\nwant:\n%s", tmp, name, f, opt, got.Bytes(), want.Bytes())
					}
				}
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestStreamDropsRepeats: with DropRepeats, a finding that repeats one
// already written, or one added with it, is written once and counted
// once, as Report.Dedupe leaves it; and a source lent with a report is
// released once its file is written.
func TestStreamDropsRepeats(t *testing.T) {
	f := Finding{Rule: "r", Section: "1", Severity: Error, Message: "m", File: "g.md", Line: 1, Column: 1}
	r := &Report{Tool: "t", Files: []string{"a.pdl", "b.pdl"}}
	var got bytes.Buffer
	s := NewStream(&got, JSON, r, Options{})
	s.DropRepeats = true
	s.AddReport(&Report{Findings: []Finding{f, f}, Sources: map[string][]byte{"g.md": []byte("x\n")}})
	if err := s.Flush("h", 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Sources["g.md"]; ok {
		t.Error("the source of g.md is kept after its findings are written")
	}
	s.AddReport(&Report{Findings: []Finding{f}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var out jsonReport
	if err := json.Unmarshal(got.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 1 || out.Summary.Errors != 1 {
		t.Errorf("%d findings, %d errors; want 1 of each:\n%s", len(out.Findings), out.Summary.Errors, got.Bytes())
	}
}
