package picture

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// TestTimeline draws an execute response and a trace fetched with its
// narration (a failed step in a partial Run) as timelines.
func TestTimeline(t *testing.T) {
	for _, name := range []string{"replay/success", "timeline/fetched"} {
		f, err := os.Open("testdata/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rec, err := ReadRun("t.json", f)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := NewTimeline(rec).WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/timeline/"+strings.ReplaceAll(name, "/", "-")+".html", b.Bytes())
		if n := strings.Count(b.String(), `<tr class="entry"`); n != len(rec.Trace.Steps) {
			t.Errorf("%s: %d rows for %d entries", name, n, len(rec.Trace.Steps))
		}
	}
}

// TestTimelineLayout places bars by the leaf durations before them: a
// loop and an expanded sub-program call span their inner entries.
func TestTimelineLayout(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tl := NewTimeline(&RunRecord{RunID: "r", Trace: &pilotage.Trace{Level: "full", Steps: []pilotage.TraceStep{
		{ID: "a", Kind: "step", TMs: f(10)},
		{ID: "l", Kind: "loop", TMs: f(20), Decisions: []pilotage.Decision{{Took: "continue"}, {Took: "continue"}, {Took: "exit"}}},
		{ID: "b#1", Kind: "step", TMs: f(10)},
		{ID: "b#2", Kind: "step", TMs: f(10)},
		{ID: "p", Kind: "step", TMs: f(10)},
		{ID: "p/x", Kind: "step", TMs: f(10)},
	}}})
	var got []string
	for _, r := range tl.Rows {
		got = append(got, fmt.Sprintf("%s@%.0f+%.0f/%d", r.ID, r.Left, r.Width, r.Depth))
	}
	want := "a@0+25/0 l@25+50/0 b#1@25+25/1 b#2@50+25/1 p@75+25/0 p/x@75+25/1"
	if strings.Join(got, " ") != want || tl.TotalMs != 40 {
		t.Errorf("layout = %s (total %v), want %s (total 40)", strings.Join(got, " "), tl.TotalMs, want)
	}
	if tl.Rows[1].Decisions != "continue ×2, exit ×1" {
		t.Errorf("loop decisions = %q", tl.Rows[1].Decisions)
	}
}

// TestReadRunStreams reads a trace of 20,002 entries (-short: 2,502)
// keeping only the steps a timeline draws, and each form a trace file
// takes.
func TestReadRunStreams(t *testing.T) {
	var b bytes.Buffer
	n := 20000
	if testing.Short() {
		n = maxTimelineRows + 500
	}
	writeLoopTrace(&b, n)
	rec, err := ReadRun("t.json", &b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Trace.Steps) != maxTimelineRows || rec.More != n+2-maxTimelineRows || rec.RunID != "big" {
		t.Errorf("kept %d steps, counted %d more, run_id %q; want %d, %d, big", len(rec.Trace.Steps), rec.More, rec.RunID, maxTimelineRows, n+2-maxTimelineRows)
	}
	for src, want := range map[string]string{
		`{"run_id": "r", "outcome": {"ok": true, "status": "success"}, "trace": null}`:                     "r: success, no trace",
		`{"run_id": "r", "outcome": {"ok": true, "status": "success"}, "x": [{"y": 1}], "narration": "n"}`: "r: success, no trace",
		`{"steps": [{"id": "a"}], "run_id": "t", "outcome": {"ok": false, "status": "partial"}}`:           "t: partial, 1 steps",
		`{"run_id": 3}`:  "error",
		`[1]`:            "error",
		`{"trace": {}}`:  "error",
		`{"steps": [1]}`: "error",
	} {
		got := "error"
		if rec, err := ReadRun("t.json", strings.NewReader(src)); err == nil {
			got = rec.RunID + ": " + rec.Outcome.Status + ", no trace"
			if rec.Trace != nil {
				got = fmt.Sprintf("%s: %s, %d steps", rec.RunID, rec.Outcome.Status, len(rec.Trace.Steps))
			}
		}
		if got != want {
			t.Errorf("ReadRun(%s) = %s, want %s", src, got, want)
		}
	}
}

// TestReadRunChecksJSON reads a trace file through replay's checked
// reader: what docs/json.md refuses in every JSON file (nesting past
// jsonpos.MaxDepth, a member name twice, bytes that are not UTF-8, data
// after the value) is refused at its file:line:col as plain replay says it.
func TestReadRunChecksJSON(t *testing.T) {
	deep := `{"steps": [` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `]}`
	for src, want := range map[string]string{
		deep: "t.json:1:10010: malformed JSON: nesting deeper",
		`{"run_id": "r", "outcome": {"ok": true, "status": "success"},` + "\n" + ` "run_id": "s"}`: `t.json:2:2: malformed JSON: duplicate member name "run_id"`,
		`{"run_id": "r` + "\xff" + `", "outcome": {"ok": true, "status": "success"}}`:              "t.json:1:14: malformed JSON: invalid UTF-8",
		`{"run_id": "r", "outcome": {"ok": true, "status": "success"}} x`:                          "t.json:1:63: malformed JSON: ",
		`{"run_id": 3}`: "t.json: not a trace",
	} {
		_, err := ReadRun("t.json", strings.NewReader(src))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadRun(%.40q) = %v, want an error starting %q", src, err, want)
		}
	}
}

// TestReadRunEndless: a file refused at its first byte is not read on,
// so one that never ends (/dev/zero) ends at once with the error; the
// checker once drained the rest and ReadRun never returned.
func TestReadRunEndless(t *testing.T) {
	done := make(chan error, 1)
	go func() {
		_, err := ReadRun("t.json", memtest.Endless{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.HasPrefix(err.Error(), `t.json:1:1: malformed JSON: unexpected '\x00'`) {
			t.Errorf("ReadRun(endless) = %v, want malformed JSON at 1:1", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadRun of an endless file of NUL bytes still running after 10 s")
	}
}

// TestTimelineBounded draws at most maxTimelineRows bars of a long trace
// and says how many it left out.
func TestTimelineBounded(t *testing.T) {
	steps := make([]pilotage.TraceStep, maxTimelineRows+500)
	for i := range steps {
		steps[i] = pilotage.TraceStep{ID: fmt.Sprintf("s#%d", i+1), Outcome: pilotage.Outcome{OK: true, Status: "success"}}
	}
	tl := NewTimeline(&RunRecord{RunID: "r", Trace: &pilotage.Trace{Level: "summary", Steps: steps}})
	var b bytes.Buffer
	if err := tl.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if len(tl.Rows) != maxTimelineRows || !strings.Contains(b.String(), "… and 500 more entries, not drawn.") {
		t.Errorf("%d rows drawn; want %d and a line for the 500 left", len(tl.Rows), maxTimelineRows)
	}
}

// FuzzReadRun feeds arbitrary bytes to ReadRun and draws what it
// accepts: an error or a page, never a panic.
func FuzzReadRun(f *testing.F) {
	for _, s := range []string{`{"run_id":"r","outcome":{"ok":true,"status":"success"},"trace":{"steps":[{"id":"a","t_ms":-1}]}}`,
		`{"steps":[{"id":"a/b","kind":"loop","decisions":[{"took":"exit"}]}]}`, `[]`, `{"trace":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		rec, err := ReadRun("t.json", bytes.NewReader(src))
		if err != nil {
			return
		}
		if err := NewTimeline(rec).WriteHTML(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if rec.Trace != nil && len(rec.Trace.Steps) > maxTimelineRows {
			t.Fatalf("%d steps kept, more than %d", len(rec.Trace.Steps), maxTimelineRows)
		}
	})
}

// TestTimelineDeepOutput: an output nested thousands deep is indented
// to report.MaxIndentDepth and cut before it grows: indented whole it
// was hundreds of megabytes for a 20 KB output.
func TestTimelineDeepOutput(t *testing.T) {
	const n = 9990
	out := "{\"x\": " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "}"
	tl := NewTimeline(&RunRecord{RunID: "r", Output: []byte(out)})
	if !strings.HasPrefix(tl.Output, "{\n  \"x\": [\n    [") {
		t.Errorf("output starts %q", tl.Output[:20])
	}
	if len(tl.Output) > len(out)+1000 {
		t.Errorf("a %d-byte output is shown in %d bytes", len(out), len(tl.Output))
	}
	wide := `["` + strings.Repeat("a", maxValueText) + `"]`
	if got := NewTimeline(&RunRecord{RunID: "r", Output: []byte(wide)}).Output; len(got) != maxValueText+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("a long output is shown in %d bytes, ending %q", len(got), got[len(got)-5:])
	}
}
