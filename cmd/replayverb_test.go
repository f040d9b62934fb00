package cmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/replayverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/replay"
)

const (
	plan  = "../replay/testdata/plan.json"
	trace = "../replay/testdata/trace.json"
)

func replayTraces(p replayverb.Params) verbtest.Result {
	p.Report, p.Progress = verbtest.Reporter{}, progress.Never
	if p.MaxPerRule == 0 {
		p.MaxPerRule = report.DefaultMaxPerRule
	}
	return verbtest.Call(func(s verb.Streams) error { return replayverb.Replay(context.Background(), p, s) })
}

// TestReplayFindings: replay's own trace fixture follows its plan, whose
// steps carry no risk (§5.3): exit 1 with those findings, reported as
// text or drawn as a Markdown page.
func TestReplayFindings(t *testing.T) {
	r := replayTraces(replayverb.Params{Traces: []string{trace}, Plan: plan})
	if r.Code != verb.ExitFindings || r.Err != "" {
		t.Fatalf("exit %d, stderr %q\n%s", r.Code, r.Err, r.Out)
	}
	golden.Check(t, "testdata/replayverb/findings.golden", []byte(r.Out))
	r = replayTraces(replayverb.Params{Traces: []string{trace}, Plan: plan, Draw: "markdown"})
	if r.Code != verb.ExitFindings || !strings.Contains(r.Out, "plan-risk") {
		t.Fatalf("markdown: exit %d, stderr %q\n%s", r.Code, r.Err, r.Out)
	}
}

// TestReplayRefuses: what the command line refuses is refused by the
// function, exit 2 with the reason.
func TestReplayRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    replayverb.Params
		want string
	}{
		{"no trace", replayverb.Params{Plan: plan}, "replay needs at least one TRACE"},
		{"no plan", replayverb.Params{Traces: []string{trace}}, "replay needs --plan PLAN"},
		{"both languages", replayverb.Params{Traces: []string{trace}, Plan: plan, Snapshot: "s.json", Lang: "l.pdl"}, "give --snapshot or --lang, not both"},
		{"deep alone", replayverb.Params{Traces: []string{trace}, Plan: plan, Deep: true}, "--deep and --input need --program and --lang"},
		{"trace only", replayverb.Params{Traces: []string{trace}, TraceOnly: true, Draw: "markdown"}, "--trace-only draws one TRACE as a timeline"},
		{"missing plan", replayverb.Params{Traces: []string{trace}, Plan: "testdata/replayverb/missing.json"}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := replayTraces(tc.p); r.Code != verb.ExitUsage || !strings.Contains(r.Err, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.Code, r.Err, tc.want)
			}
		})
	}
}

// TestReplayLargeProgramAsTrace: a program over the 1 MiB replay keeps
// whole, given as the trace, is the usage error a small one is, told by
// what the walk saw of its steps, not the trace-shape findings of each.
func TestReplayLargeProgramAsTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("a program of 1.5 MiB; left to the full suite")
	}
	name := filepath.Join(t.TempDir(), "big.json")
	step := `{"id": "init", "call": "scene.init", "with": {}},` + "\n"
	src := `{"steps": [` + "\n" + strings.Repeat(step, 3<<19/len(step)) + `{"id": "end", "if": "true", "then": [], "else": []}], "output": "1"}`
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := replayTraces(replayverb.Params{Traces: []string{name}, Plan: plan})
	want := name + ":1:1: this looks like a program, not a trace"
	if r.Code != verb.ExitUsage || !strings.Contains(r.Err, want) || r.Out != "" {
		t.Fatalf("exit %d, stdout %d bytes, stderr %q; want exit 2 and %q", r.Code, len(r.Out), r.Err, want)
	}
}

// TestReplayStreamsAsWhole: replay writes each trace's report as it
// reads the trace, in every format, byte for byte what it wrote of the
// whole report held to the end, the plan's findings in their place
// among the traces named out of order.
func TestReplayStreamsAsWhole(t *testing.T) {
	const dir = "../docs/examples/replay/"
	files := []string{dir + "trace.json", dir + "broken.json", trace}
	planSrc, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.LoadPlan(plan, planSrc, report.DefaultMaxPerRule)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := replay.Run(p, replay.Inputs(files, nil), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	streamsAsWhole(t, whole, func(s verb.Streams, r verb.Reporter) error {
		return replayverb.Replay(context.Background(), replayverb.Params{Traces: files, Plan: plan, MaxPerRule: report.DefaultMaxPerRule,
			Report: r, Progress: progress.Never}, s)
	})
}
