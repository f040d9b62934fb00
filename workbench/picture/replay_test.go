package picture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/replay"
)

// replayDir holds a homeflow plan with two of its traces: one that
// corresponds, one that left the plan (read missing, arm then taken
// without its step) in a Run that ended partial.
const replayDir = "testdata/replay"

// replayPage replays the traces of dir against its plan.json as
// pilotage replay --format html -o OUT/report.html does.
func replayPage(t testing.TB, dir, out string, traces ...string) *Page {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := replay.LoadPlan(filepath.ToSlash(filepath.Join(dir, "plan.json")), src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pic := NewReplay(plan)
	if !pic.DrawsSVG("html") || pic.DrawsSVG("markdown") {
		t.Error("the HTML page, and only it, draws the plan as SVG")
	}
	var inputs []replay.Input
	for _, name := range traces {
		path := filepath.Join(dir, name)
		inputs = append(inputs, replay.Input{File: filepath.ToSlash(path), Open: func() (io.ReadCloser, error) { return os.Open(path) }})
	}
	rep, err := replay.Run(plan, inputs, replay.Options{OnStep: pic.Step, OnTrace: pic.Trace})
	if err != nil {
		t.Fatal(err)
	}
	return pic.Page(rep, PageOptions{Dir: out})
}

// TestReplayReport draws the replay of both traces as HTML and Markdown,
// and the overlaid plan as the SVG docs/replay.md shows.
func TestReplayReport(t *testing.T) {
	p := replayPage(t, replayDir, replayDir, "success.json", "divergent.json")
	var html, md bytes.Buffer
	if err := p.Write(&html, "html"); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(&md, "markdown"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/replay/report.html", html.Bytes())
	golden.Check(t, "testdata/replay/report.md", md.Bytes())
	svg, err := p.SVG()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../../docs/pictures/homeflow-replay.svg", []byte(svg))

	for _, want := range []string{
		// The divergence, on the step it concerns, linked to the trace.
		`<tr id="detail-s2" class="notrun flagged" data-step="fan">`,
		`<a class="loc" href="divergent.json">testdata/replay/divergent.json:11:10</a>`,
		// Both arms taken once, the loop's iterations counted.
		`then (taken 1×); else (taken 1×)`,
		`2 entries, 4 iterations`,
		// The expanded sub-program's own entries, under the step that ran it.
		`sub-program: each ×2, off ×4`,
		// Traces grouped by outcome.
		`<tr><td>partial</td><td>1</td><td>2</td>`,
	} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML report lacks %s", want)
		}
	}
	if strings.Contains(html.String(), "http://") && !strings.Contains(html.String(), `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("the report refers to a network address")
	}
}

// TestMarkdownBounded replays a batch far larger than a job summary can
// show: the Markdown stays under GitHub's 1 MiB limit and says what it
// left out, while the groups still count every trace.
func TestMarkdownBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("draws a huge trace; run without -short")
	}
	src, err := os.ReadFile(filepath.Join(replayDir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := replay.LoadPlan("plan.json", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pic := NewReplay(plan)
	long := strings.Repeat("x|<b>`", 2000)
	var fs []report.Finding
	for i := 0; i < 20000; i++ {
		file := fmt.Sprintf("runs/%05d-%s.json", i, long[:40])
		f := report.Finding{Rule: "entry-order", Section: "5.8.4", Severity: report.Error, File: file, Line: 1, Column: 1, Message: long}
		fs = append(fs, f)
		pic.Step(&replay.Seen{ID: "read", Status: "success", TMs: 1})
		pic.Trace(&replay.TraceSeen{File: file, RunID: long, Outcome: &pilotage.Outcome{Status: "partial"}, Entries: 1, Findings: []report.Finding{f}})
	}
	p := pic.Page(&report.Report{Findings: fs}, PageOptions{})
	var md bytes.Buffer
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if md.Len() >= 1<<20 {
		t.Fatalf("markdown is %d bytes, over GitHub's 1 MiB summary limit", md.Len())
	}
	for _, want := range []string{"… and 19900 more traces", "… and 19800 more findings", "| partial | 20000 | 20000 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Code spans show their text as it is; markup elsewhere would render.
	if strings.Contains(regexp.MustCompile("`[^`]*`").ReplaceAllString(md.String(), ""), "<b>") {
		t.Error("markup from a finding reached the markdown unescaped")
	}
}

// TestHostileReplay reports a trace whose ids, statuses, run_id and
// decisions are markup: the HTML page, the Markdown and the timeline
// carry them as text, never as elements.
func TestHostileReplay(t *testing.T) {
	p := replayPage(t, "testdata/hostile", "testdata/hostile", "trace.json")
	f, err := os.Open("testdata/hostile/trace.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ReadRun("trace.json", f)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range append(ReportFormats, "timeline") {
		var b bytes.Buffer
		if format == "timeline" {
			err = NewTimeline(rec).WriteHTML(&b)
		} else {
			err = p.Write(&b, format)
		}
		if err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if format == "markdown" {
			out = regexp.MustCompile("`[^`]*`").ReplaceAllString(out, "")
		}
		if !strings.Contains(out, "&lt;script") && !strings.Contains(out, "&amp;lt;script") && !strings.Contains(out, `\<script`) {
			t.Errorf("%s: the hostile run_id or id is not in the report as text", format)
		}
		for _, bad := range []string{"<script", "<img", "<svg onload", "<b>ok"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q reached the report unescaped", format, bad)
			}
		}
	}
}

// TestArmFinding replays a trace where fan ran though hot chose else:
// the unselected-arm finding sits on fan and on the then edge, drawn
// red and labelled, where the trace left the plan.
func TestArmFinding(t *testing.T) {
	p := replayPage(t, replayDir, replayDir, "unselected.json")
	var html, md bytes.Buffer
	if err := p.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `class="edge flagged"`) || !strings.Contains(html.String(), "then (not taken) ⚠ ran anyway") {
		t.Error("the HTML graph does not mark the then edge")
	}
	if !strings.Contains(md.String(), `s1 -.->|"then (not taken) ⚠ ran anyway"| s2`) || !strings.Contains(md.String(), "stroke:#c00000") {
		t.Error("the Mermaid graph does not mark the then edge")
	}
	if !strings.Contains(html.String(), "<b>unselected-arm</b>") {
		t.Error("the unselected-arm finding is not listed")
	}
}

// TestLongIDsClippedInPage: the page's tables quote a step id, an arm,
// a run_id, a status and a sub-program clipped (report.Clip), as the
// drawing does: an 8 MB step id made a 53 MB page, about 14 bytes a
// byte, quoted whole in the steps table, its data attribute, each
// child's "inside" and the trace's.
func TestLongIDsClippedInPage(t *testing.T) {
	if testing.Short() {
		t.Skip("draws a page of 300 KB step ids; run without -short")
	}
	long := strings.Repeat("<&|", 100_000)
	q := func(s string) string { return strconv.Quote(s) }
	hints := `"risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}`
	plan := fmt.Sprintf(`{"steps": [
  {"id": %[1]s, "kind": "branch", "arms": [%[2]s, "else"]},
  {"id": %[3]s, "kind": "step", "calls": [%[4]s], "risk": "safe", %[6]s, "arm": {"branch": %[1]s, "label": %[2]s}},
  {"id": %[5]s, "kind": "loop"},
  {"id": "in", "kind": "step", "loop": %[5]s, "calls": ["c"], "risk": "safe", %[6]s}
 ], "max_risk": "safe", "max_risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}}`,
		q("b"+long), q("then"+long), q("s"+long), q("c"+long), q("l"+long), hints)
	trace := fmt.Sprintf(`{"run_id": %[1]s, "level": "summary", "outcome": {"ok": true, "status": %[2]s},
 "steps": [
  {"id": %[3]s, "kind": "branch", "outcome": {"ok": true, "status": "success"}, "decisions": [{"at": %[3]s, "took": %[4]s}]},
  {"id": %[5]s, "kind": "step", "calls": [%[6]s, %[7]s], "outcome": {"ok": true, "status": %[2]s}},
  {"id": %[5]s, "kind": "step", "outcome": {"ok": true, "status": "success"}}
 ]}`, q("r"+long), q("x"+long), q("b"+long), q("then"+long), q("s"+long), q("c"+long), q("p"+long))
	dir := t.TempDir()
	for name, src := range map[string]string{"plan.json": plan, "trace.json": trace} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := replayPage(t, dir, dir, "trace.json")
	for _, f := range ReportFormats {
		var b bytes.Buffer
		if err := p.Write(&b, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b.Len() > 256<<10 {
			t.Errorf("%s: a page of %d bytes for ids of 300 KB, want each quoted clipped", f, b.Len())
		}
	}
	// The same trace as run's and replay --trace-only's timeline.
	rec, err := ReadRun("trace.json", strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := NewTimeline(rec).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 256<<10 {
		t.Errorf("timeline: a page of %d bytes for ids of 300 KB, want each quoted clipped", b.Len())
	}
}

// TestEntryFindingsOnTheirSteps: a finding about a trace entry that
// names no plan step (an outcome whose ok and status disagree, a
// negative t_ms, an unknown kind; deep replay's and the closed sets'
// findings alike) is drawn on the step whose entry it points into, as
// the help promises, not among the findings of no single step.
func TestEntryFindingsOnTheirSteps(t *testing.T) {
	p := replayPage(t, replayDir, replayDir, "entryfindings.json")
	if len(p.General) != 0 {
		t.Errorf("findings of no single step: %+v", p.General)
	}
	want := map[string]string{"read": "step-outcome", "hot": "trace-shape", "each": "entry-kind"}
	for _, row := range p.Steps {
		rule, ok := want[row.ID]
		if !ok {
			continue
		}
		delete(want, row.ID)
		if len(row.Findings) != 1 || row.Findings[0].Rule != rule || !row.Flagged {
			t.Errorf("step %s: flagged %v, findings %+v; want one %s", row.ID, row.Flagged, row.Findings, rule)
		}
	}
	if len(want) != 0 {
		t.Errorf("steps not in the page: %v", want)
	}
}
