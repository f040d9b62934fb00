package testcase

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// TestUpdateNothingToWrite: an expectation the engine gave no answer for
// (a narration the trace fetch did not give) is a Refusal, left as it
// was, so the case is not counted as updated while it still fails.
func TestUpdateNothingToWrite(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    expect:\n      narration:\n"
	f, err := Parse(filepath.Join(dir, "tests", "case.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Cases[0]
	got := &Got{Validate: &pilotage.ValidateResponse{Valid: true}, Execute: &pilotage.ExecuteResponse{}}
	failed := Check(c, got)
	if len(failed) != 1 || failed[0].Key != "narration" {
		t.Fatalf("Check: %+v, want the blank narration's failure", failed)
	}
	refused, err := Update(c, got, failed)
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 1 || refused[0].Key != "narration" || !strings.Contains(refused[0].Msg, "gave no narration") {
		t.Errorf("refused %+v, want the narration's", refused)
	}
	b, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "narration:\n") {
		t.Errorf("the narration was rewritten:\n%s", b)
	}
}

// TestUpdateTrace: --update's rewrite of a failed trace or diagnostics
// expectation, golden. Each archive holds the case file before
// (tests/case.yaml), the trace steps the engine answered (trace.json) or
// the diagnostics validate answered (diagnostics.json, diag-*.txtar),
// and the file after (want), with what Update refused (refused) when it
// refused any. A kept entry gets only the members it stated, its
// comments kept; the file after passes.
func TestUpdateTrace(t *testing.T) {
	golden.Archives(t, "testdata/update/*.txtar", func(t *testing.T, a *golden.Archive) {
		dir := extract(t, a)
		name := filepath.Join(dir, "tests", "case.yaml")
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var trace pilotage.Trace
		if steps, ok := a.File("trace.json"); ok {
			if err := json.Unmarshal(steps, &trace.Steps); err != nil {
				t.Fatal(err)
			}
		}
		var diags []pilotage.Diagnostic
		if b, ok := a.File("diagnostics.json"); ok {
			if err := json.Unmarshal(b, &diags); err != nil {
				t.Fatal(err)
			}
		}
		f, err := Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		after, refusals := updateTrace(t, f, &trace, diags)
		a.Check(t, "want", after)
		if _, ok := a.File("refused"); ok || refusals != "" {
			a.Check(t, "refused", []byte(refusals))
		}
	})
}

// updateTrace updates each case of f to the trace and diagnostics, as
// --update does, and returns the file after and what Update refused,
// one line each. A program with an error among its diagnostics does not
// validate, so it has no Run. When Update refused nothing, the file
// after must parse and pass.
func updateTrace(t *testing.T, f *File, trace *pilotage.Trace, diags []pilotage.Diagnostic) (after []byte, refusals string) {
	t.Helper()
	valid := !slices.ContainsFunc(diags, func(d pilotage.Diagnostic) bool { return d.Severity == pilotage.SeverityError })
	got := &Got{Validate: &pilotage.ValidateResponse{Valid: valid, Diagnostics: diags}}
	if valid {
		got.Execute = &pilotage.ExecuteResponse{Outcome: pilotage.Outcome{OK: true, Status: "success"}, Output: json.RawMessage("1"), Trace: trace}
	}
	var b strings.Builder
	for _, c := range f.Cases {
		refused, err := Update(c, got, Check(c, got))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refused {
			fmt.Fprintf(&b, "%s: %s\n", r.Key, r.Msg)
		}
	}
	after, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() > 0 {
		return after, b.String()
	}
	again, err := Parse(f.Name, after)
	if err != nil {
		t.Fatalf("the file after does not parse: %v\n%s", err, after)
	}
	for _, c := range again.Cases {
		if failed := Check(c, got); len(failed) > 0 {
			t.Errorf("case %q still fails after --update: %+v\n%s", c.Name, failed, after)
		}
	}
	return after, ""
}

// FuzzUpdateTrace: whatever case file parses, Update of its cases to a
// Run of output 1 and a trace of three steps, or to a program that does
// not validate and the diagnostics of diag-entries.txtar, never panics,
// and the file after parses and passes unless Update refused a case.
func FuzzUpdateTrace(f *testing.F) {
	for _, s := range golden.Sections(f, "testdata/update/*.txtar", func(n string) bool { return n == "tests/case.yaml" }) {
		f.Add(s, false)
		f.Add(s, true)
	}
	steps := golden.Sections(f, "testdata/update/stated.txtar", func(n string) bool { return n == "trace.json" })
	var trace pilotage.Trace
	if err := json.Unmarshal(steps[0], &trace.Steps); err != nil {
		f.Fatal(err)
	}
	answer := golden.Sections(f, "testdata/update/diag-entries.txtar", func(n string) bool { return n == "diagnostics.json" })
	var diags []pilotage.Diagnostic
	if err := json.Unmarshal(answer[0], &diags); err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	name := filepath.Join(dir, "tests", "case.yaml")
	f.Fuzz(func(t *testing.T, src []byte, invalid bool) {
		file, err := Parse(name, src)
		if err != nil {
			return
		}
		if invalid {
			updateTrace(t, file, nil, slices.Clone(diags))
			return
		}
		steps := slices.Clone(trace.Steps)
		updateTrace(t, file, &pilotage.Trace{Steps: steps}, nil)
	})
}

// TestUpdateTraceHostile: a trace or diagnostics rewrite is linear in
// the entries stated and answered, aliases included: 5,000 entries
// stated against a trace of 3 (or 3 diagnostics), 1 against one of
// 100,000 (or 100,000 diagnostics), and 20,000 aliases of one anchored
// entry (each written out in its place, the anchor left as it is) each
// take Update well under the bound; an entry nested deep is the
// parse's error at its line. -short runs a tenth of each.
func TestUpdateTraceHostile(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 500
	}
	steps := func(n int) *pilotage.Trace {
		tr := &pilotage.Trace{}
		for i := range n {
			tr.Steps = append(tr.Steps, pilotage.TraceStep{ID: fmt.Sprintf("s%d", i), Calls: []string{"todo.add"}, Outcome: pilotage.Outcome{Status: "success"}})
		}
		return tr
	}
	head := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    expect:\n      trace:\n"
	anchored := "cases:\n  - name: anchor\n    program: {steps: [], output: '1'}\n    expect:\n      trace: [&e {id: s0, status: full}]\n" +
		"  - name: a\n    program: {steps: [], output: '1'}\n    expect:\n      trace:\n"
	diags := func(n int) *pilotage.ValidateResponse {
		v := &pilotage.ValidateResponse{}
		for i := range n {
			v.Diagnostics = append(v.Diagnostics, pilotage.Diagnostic{Code: "unknown_name", Severity: "error", Message: "no catalog entry named x", Path: pilotage.Path{Pointer: fmt.Sprintf("/steps/%d/call", i)}})
		}
		return v
	}
	diagHead := "cases:\n  - name: a\n    program: {steps: [], output: '1'}\n    expect:\n      diagnostics:\n"
	for _, tc := range []struct {
		name, src string
		got       int
		diags     bool   // got is that many diagnostics, not trace steps
		want      string // in the file after
	}{
		{"many stated", head + strings.Repeat("        - {id: x, status: full}\n", n/4), 3, false, "- {id: s2, status: success}\n"},
		{"many answered", head + "        - {id: s0, status: full}\n", 5 * n, false, fmt.Sprintf("- {id: s%d, status: success}\n", 5*n-1)},
		{"many aliases", anchored + strings.Repeat("        - *e\n", n), n, false, fmt.Sprintf("- {id: s%d, status: success}\n", n-1)},
		{"many diagnostics stated", diagHead + strings.Repeat("        - {code: constraint, path: /x}\n", n/4), 3, true, "- {code: unknown_name, path: /steps/2/call}\n"},
		{"many diagnostics answered", diagHead + "        - {code: unknown_name, path: /steps/0/call}\n", 5 * n, true, fmt.Sprintf("- {code: unknown_name, path: /steps/%d/call}\n", 5*n-1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lang.pdl"), []byte("\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Parse(filepath.Join(dir, "tests", "case.yaml"), []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			got := &Got{Validate: &pilotage.ValidateResponse{Valid: true}, Execute: &pilotage.ExecuteResponse{Trace: steps(tc.got)}}
			if tc.diags {
				got = &Got{Validate: diags(tc.got)}
			}
			// Update alone is timed: Check's diff and go-yaml's writing
			// of the file (2 s of 100,000 entries on a loaded machine)
			// are not the rewrite's.
			var took time.Duration
			for _, c := range f.Cases {
				failed := Check(c, got)
				start := time.Now()
				if _, err := Update(c, got, failed); err != nil {
					t.Fatal(err)
				}
				took += time.Since(start)
			}
			t.Logf("Update took %v", took)
			if took > 2*time.Second {
				t.Errorf("Update took %v", took)
			}
			b, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.want) || strings.Contains(string(b), "calls:") || strings.Contains(string(b), "message") {
				t.Errorf("the file after lacks %q, or gained calls or a message:\n%.400s", tc.want, b)
			}
		})
	}

	deep := head + "        - {id: a, calls: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "}\n"
	_, err := Parse("tests/case.yaml", []byte(deep))
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 6 {
		t.Errorf("an entry nested 300 deep: %v, want an *Error at line 6", err)
	}
}
