package cmd_test

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/progverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
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
