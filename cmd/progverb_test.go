package cmd_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/progverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/workbench/picture"
)

const evening = "../langs/homeflow/programs/evening.json"

func call(f func(context.Context, progverb.Params, verb.Streams) error, p progverb.Params) verbtest.Result {
	if p.Format == "" {
		p.Format = report.Text
	}
	p.Color = func(io.Writer) bool { return false }
	p.MaxPerRule = cmp.Or(p.MaxPerRule, report.DefaultMaxPerRule)
	return verbtest.Call(func(s verb.Streams) error { return f(context.Background(), p, s) })
}

// TestPlanHomeflow: the homeflow program's plan, as the owner sees it.
func TestPlanHomeflow(t *testing.T) {
	r := call(progverb.Plan, progverb.Params{Program: evening, Lang: homeflow, Principal: "owner"})
	if r.Code != verb.ExitOK || r.Err != "" {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	golden.Check(t, "testdata/progverb/evening.plan.golden", []byte(r.Out))
}

// TestValidateLedgerNoPrincipal: the ledger's text program names entries
// only its principals see, so without --principal it is invalid (exit
// 1), each diagnostic placed in the program's text.
func TestValidateLedgerNoPrincipal(t *testing.T) {
	r := call(progverb.Validate, progverb.Params{Program: "../langs/ledger/programs/pay.txt", Lang: "../langs/ledger/ledger.pdl"})
	if r.Code != verb.ExitFindings || r.Err != "" {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	golden.Check(t, "testdata/progverb/pay.validate.golden", []byte(r.Out))
}

// TestRunHomeflow: the program runs on its input, and --format json
// gives the engine's response.
func TestRunHomeflow(t *testing.T) {
	p := progverb.Params{Program: evening, Lang: homeflow, Principal: "owner", Input: "../langs/homeflow/programs/evening.input.json", Format: report.JSON}
	r := call(progverb.Run, p)
	if r.Code != verb.ExitOK || r.Err != "" {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
	var resp struct {
		Outcome struct{ Status string }
		Output  map[string]any
	}
	if err := json.Unmarshal([]byte(r.Out), &resp); err != nil || resp.Outcome.Status != "success" || resp.Output["lux"] != 150.0 {
		t.Fatalf("response %+v, %v\n%s", resp, err, r.Out)
	}
}

// TestProgRefuses: an unknown principal, a missing program and a
// malformed input are usage errors (exit 2).
func TestProgRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    progverb.Params
		want string
	}{
		{"principal", progverb.Params{Program: evening, Lang: homeflow, Principal: "nobody"}, "nobody"},
		{"missing", progverb.Params{Program: "testdata/progverb/missing.json", Lang: homeflow}, "no such file"},
		{"input", progverb.Params{Program: evening, Lang: homeflow, Input: "testdata/progverb/cut.input.json"}, "cut.input.json:2:1: malformed JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := call(progverb.Run, tc.p); r.Code != verb.ExitUsage || !strings.Contains(r.Err, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.Code, r.Err, tc.want)
			}
		})
	}
}

// TestPlanStartsGraphvizToDraw: plan starts Graphviz (Keep runs its
// start) only once an SVG picture will be drawn, not for a missing
// program, an invalid one (exit 1), a plan too large to draw as SVG
// (exit 2) or another picture format.
func TestPlanStartsGraphvizToDraw(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"steps": [{"id": "x", "call": "no.such"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.json")
	var b strings.Builder
	b.WriteString(`{"output": "1", "steps": [`)
	for i := range picture.MaxBoxes + 1 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"id": "s%d", "call": "todo.list", "with": {}}`, i)
	}
	b.WriteString("]}")
	if err := os.WriteFile(large, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	todo := filepath.Join("..", "workbench", "scaffold", "templates", "json", "todo.pdl")
	for _, tc := range []struct {
		name, program, lang, draw string
		code                      int
		says                      string // in the output or on standard error
		starts                    bool
	}{
		{"svg", evening, homeflow, "svg", verb.ExitOK, "<svg", true},
		{"dot", evening, homeflow, "dot", verb.ExitOK, "digraph plan", false},
		{"missing", filepath.Join(dir, "missing.json"), homeflow, "svg", verb.ExitUsage, "missing.json", false},
		{"invalid", bad, homeflow, "svg", verb.ExitFindings, `no catalog entry named "no.such"`, false},
		{"too large", large, todo, "svg", verb.ExitUsage, "more than the 5000 of an SVG picture", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := false
			r := call(progverb.Plan, progverb.Params{Program: tc.program, Lang: tc.lang, Principal: "owner", Draw: tc.draw,
				Keep: func(start func()) { started = true; start() }})
			if r.Code != tc.code || !strings.Contains(r.Out+r.Err, tc.says) || started != tc.starts {
				t.Errorf("exit %d, Graphviz started %v; want exit %d, %q, started %v (stderr %q)", r.Code, started, tc.code, tc.says, tc.starts, r.Err)
			}
		})
	}
}
