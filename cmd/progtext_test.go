package cmd_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/workbench/progtext"
)

// progtextFiles reads the program X.json that the response X.<op>.json is about.
func progtextFiles(t *testing.T, response string) *progtext.Files {
	t.Helper()
	program := strings.SplitN(response, ".", 2)[0] + ".json"
	src, err := os.ReadFile(program)
	if err != nil {
		t.Fatal(err)
	}
	return &progtext.Files{Program: program, Docs: progdiag.Files{Program: progdiag.NewDoc(program, src, false)},
		Sources: map[string][]byte{program: src}}
}

// TestProgtextText renders real responses of pilotage validate|plan|run --format
// json (testdata/*.validate.json, *.execute.json) as the text those verbs
// print, compared with testdata/*.txt: a valid program's plan (or the
// line for a Language without plan), an invalid one's diagnostics in its
// source, a Run's outcome, output and trace. long.json's first step id
// is wider than a column grows (progtext.MaxColumn): it is written whole (it is
// within report.ClipBytes) and the other rows keep their width;
// oddids.json's ids hold controls, a tab and a newline among them, each
// shown escaped in its cell.
func TestProgtextText(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "progtext"))
	golden.Files(t, "*.validate.json", func(t *testing.T, path string, src []byte) {
		resp := progtextDecode[pilotage.ValidateResponse](t, src)
		var out bytes.Buffer
		var err error
		if resp.Valid {
			err = progtext.Plan(&out, &resp)
		} else {
			err = progtext.Diagnostics(&out, resp.Diagnostics, progtextFiles(t, path), report.DefaultMaxPerRule, false)
		}
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, strings.TrimSuffix(path, ".json")+".txt", out.Bytes())
	})
	golden.Files(t, "*.execute.json", func(t *testing.T, path string, src []byte) {
		resp := progtextDecode[pilotage.ExecuteResponse](t, src)
		// The engine's output is compact; the fixture was indented by
		// --format json.
		var compact bytes.Buffer
		if len(resp.Output) > 0 {
			if err := json.Compact(&compact, resp.Output); err != nil {
				t.Fatal(err)
			}
			resp.Output = compact.Bytes()
		}
		var out bytes.Buffer
		if err := progtext.Run(&out, &resp, nil, progtextFiles(t, path), report.DefaultMaxPerRule, false); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, strings.TrimSuffix(path, ".json")+".txt", out.Bytes())
	})
}

type progtextFullDisk struct{ writes int }

func (f *progtextFullDisk) Write([]byte) (int, error) {
	f.writes++
	return 0, errors.New("no space left on device")
}

// TestProgtextRunWritesOnce: a Run is written in one write, so a full disk is
// one error returned, not a part of the trace lost unseen.
func TestProgtextRunWritesOnce(t *testing.T) {
	resp := progtextDecode[pilotage.ExecuteResponse](t, progtextFixture(t, "evening.execute.json"))
	w := &progtextFullDisk{}
	if err := progtext.Run(w, &resp, nil, &progtext.Files{}, report.DefaultMaxPerRule, false); err == nil || w.writes != 1 {
		t.Errorf("Run on a full disk: %v after %d writes, want the error after 1", err, w.writes)
	}
}

// progtextPlanRows are the rows of the plan table of testdata/evening (Plan).
func progtextPlanRows(t testing.TB) [][]string {
	resp := progtextDecode[pilotage.ValidateResponse](t, progtextFixture(t, "evening.validate.json"))
	rows := [][]string{{"STEP", "KIND", "RISK", "CALLS", "INSIDE"}}
	for _, s := range resp.Plan.Steps {
		rows = append(rows, []string{s.ID, s.Kind, cmp.Or(s.Risk, "-"), cmp.Or(strings.Join(s.Calls, ","), "-"), "-"})
	}
	return rows
}

// progtextTable lays rows out as a Table of them does.
func progtextTable(rows [][]string) string {
	var t progtext.Table
	for _, r := range rows {
		t.Row(r...)
	}
	return t.String()
}

// progtextTabwritten lays rows out as the tables were before table: through
// text/tabwriter, padding 2.
func progtextTabwritten(rows [][]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	return b.String()
}

// TestProgtextTableLikeTabwriter: rows whose cells are all within MaxColumn are
// laid out byte for byte as text/tabwriter laid them out, multi-byte
// characters and cells exactly MaxColumn wide included.
func TestProgtextTableLikeTabwriter(t *testing.T) {
	for _, rows := range [][][]string{
		progtextPlanRows(t),
		{{"  é", "ok", "-"}, {"  " + strings.Repeat("ü", progtext.MaxColumn-2), "failed", "x"}, {"  a", "ok", ""}},
		{{strings.Repeat("a", progtext.MaxColumn), "b"}, {"c", "d"}},
		{{"only"}},
	} {
		if got, want := progtextTable(rows), progtextTabwritten(rows); got != want {
			t.Errorf("table:\n%s\ntabwriter:\n%s", got, want)
		}
	}
}

// BenchmarkProgtextPlanTable lays out the plan table of testdata/evening by
// table and, in the same loop, by text/tabwriter as before, and reports
// table's time over tabwriter's.
func BenchmarkProgtextPlanTable(b *testing.B) {
	rows := progtextPlanRows(b)
	var now, before time.Duration
	for b.Loop() {
		start := time.Now()
		progtextTable(rows)
		mid := time.Now()
		progtextTabwritten(rows)
		now, before = now+mid.Sub(start), before+time.Since(mid)
	}
	b.ReportMetric(float64(now)/float64(before), "table/tabwriter")
}

// progtextFixture is testdata/progtext/name.
func progtextFixture(t testing.TB, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "progtext", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// progtextDecode is src, a response the verbs print with --format json.
func progtextDecode[T any](t testing.TB, src []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestProgtextTablesEscapeControls: a step id, an outcome's error and an output
// reach the terminal escaped as every text report escapes what it quotes
// (report.Visible): an id holding ESC [2J cleared the screen from plan's
// and run's tables, and a U+202E reordered what followed it.
func TestProgtextTablesEscapeControls(t *testing.T) {
	id := "x\x1b[2J\u202e"
	var b strings.Builder
	if err := progtext.Plan(&b, &pilotage.ValidateResponse{Valid: true, Plan: &pilotage.Plan{MaxRisk: "safe",
		Steps: []pilotage.PlanStep{{ID: id, Kind: pilotage.KindStep, Risk: "safe", Calls: []string{"todo.list"}}}}}); err != nil {
		t.Fatal(err)
	}
	resp := &pilotage.ExecuteResponse{RunID: "r", Outcome: pilotage.Outcome{Status: "partial", Error: "at " + id}, Output: json.RawMessage("\"a\u202eb\""),
		Trace: &pilotage.Trace{Level: pilotage.LevelFull, Steps: []pilotage.TraceStep{{ID: id, Kind: pilotage.KindStep, Outcome: pilotage.Outcome{Status: "success"}}}}}
	if err := progtext.Run(&b, resp, nil, &progtext.Files{}, report.DefaultMaxPerRule, false); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.ContainsAny(got, "\x1b\u202e") || strings.Count(got, `x\x1b[2J\u202e`) != 3 || !strings.Contains(got, `output: "a\u202eb"`) {
		t.Errorf("tables and lines show the controls raw or not as escapes:\n%q", got)
	}
}

// TestProgtextTablesEscapeTabsAndNewlines: a step id holding a tab or a newline,
// which the tables' layout is made of, is shown as \x09 or \x0a, as
// other controls are: raw, it moved its row's columns or split the row
// in two (testdata/oddids.json).
func TestProgtextTablesEscapeTabsAndNewlines(t *testing.T) {
	var b strings.Builder
	steps := []pilotage.PlanStep{{ID: "a\tb", Kind: pilotage.KindStep, Risk: "safe"}, {ID: "new\nline", Kind: pilotage.KindStep, Risk: "safe"}}
	if err := progtext.Plan(&b, &pilotage.ValidateResponse{Valid: true, Plan: &pilotage.Plan{MaxRisk: "safe", Steps: steps}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.Contains(got, "\t") || strings.Count(got, "\n") != 4 || !strings.Contains(got, `a\x09b `) || !strings.Contains(got, `new\x0aline `) {
		t.Errorf("the plan table shows a tab or newline of an id raw:\n%q", got)
	}
}

// TestProgtextTablesClipLongCells: a cell past report.ClipBytes (a 200,000-byte
// step id) is clipped, as replay's text and the pictures clip ids: the
// table line was as long as the id.
func TestProgtextTablesClipLongCells(t *testing.T) {
	id := strings.Repeat("s", 200_000)
	out := progtextTable([][]string{{"STEP", "KIND"}, {id, "call"}, {"b", "call"}})
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 2*report.ClipBytes {
			t.Errorf("a line of %d bytes: %.200q", len(line), line)
		}
	}
	if !strings.Contains(out, strings.Repeat("s", report.ClipBytes-3)+"…  call") {
		t.Errorf("the id is not clipped with an ellipsis:\n%.500s", out)
	}
}
