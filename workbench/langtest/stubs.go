package langtest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/testcase"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// stubbed is srv with the case's stubs as its entries' behaviour: a
// copy, so the next case meets the PDL's own. A stub of an entry the
// catalog lacks is a finding at the entry's key, once for its stubs.
//
// Each stub's CEL is checked as the PDL's is (compile.Behaviours), in the
// entry's input_schema, and a problem is a finding at the stub's value:
// the engine would only meet it when the entry is called, and fail the
// Run, or read a condition that is no bool as false.
func stubbed(srv *language.Server, f *testcase.File, c *testcase.Case, cel *compile.Behaviours) (*language.Server, []report.Finding) {
	if len(c.Stubs) == 0 {
		return srv, nil
	}
	cp := *srv
	cp.Catalog = slices.Clone(srv.Catalog)
	ids := make([]string, len(cp.Catalog))
	for i, e := range cp.Catalog {
		ids[i] = e.ID
	}
	var fs []report.Finding
	fresh, told := map[string]bool{}, map[string]bool{}
	for _, s := range c.Stubs {
		i := slices.Index(ids, s.Entry)
		if i < 0 {
			if !told[s.Entry] {
				told[s.Entry] = true
				hint := "stubs name catalog entries of the PDL"
				if near := suggest.DidYouMean(s.Entry, ids); near != "" {
					hint = near
				}
				fs = append(fs, findingAt(f, s.At, "test-stub", fmt.Sprintf("case %q stubs %s, which the catalog does not hold", c.Name, s.Entry), hint))
			}
			continue
		}
		for _, x := range []struct {
			key, src string
			at       testcase.Place
			cond     bool
		}{{"compute", s.Compute, s.ComputeAt, false}, {"when", s.When, s.WhenAt, true}} {
			if x.src == "" {
				continue
			}
			if p := cel.Check(cp.Catalog[i].InputSchema, x.src, x.cond); p != nil {
				fs = append(fs, findingAt(f, celAt(x.at, x.src, p), "test-stub", fmt.Sprintf("case %q stubs %s with %s: %s", c.Name, report.Clip(s.Entry), x.key, p.Msg), p.Hint))
			}
		}
		if s.Call > 0 {
			continue // per call, through engine.Options.Behave
		}
		en := *cp.Catalog[i]
		if !fresh[s.Entry] {
			// The first stub of an entry replaces its behaviour; the
			// next ones add to it, tried in order.
			fresh[s.Entry], en.Behavior = true, language.Behavior{}
		}
		addStub(&en.Behavior, s)
		cp.Catalog[i] = &en
	}
	return &cp, fs
}

// celAt is where p, a problem of src, the CEL a stub writes at at, is:
// at its offset in the value when the value is written as it reads, on
// one line (quotes around it, no escapes), else the whole value.
func celAt(at testcase.Place, src string, p *compile.BehaviourProblem) testcase.Place {
	n := utf8.RuneCountInString(src)
	if p.Whole || at.End == 0 {
		return at
	}
	quote := (at.End - at.Col - n) / 2 // 1 for a quoted value, 0 for a plain one
	return testcase.Place{File: at.File, Line: at.Line, Col: at.Col + quote + p.Offset}
}

// addStub adds s to b: a failure tried after b's, or the output.
func addStub(b *language.Behavior, s testcase.Stub) {
	b.Fails = slices.Clone(b.Fails)
	switch {
	case s.Fail != "":
		b.Fails = append(b.Fails, language.Failure{Status: s.Fail, When: s.When, Message: s.Message})
	case s.Compute != "":
		b.ReturnsExpr, b.Returns = s.Compute, nil
	default:
		b.Returns, b.ReturnsExpr = s.Returns, ""
	}
}

// perCall is the engine's Behave for the case's `calls:` stubs: the
// n-th call of an entry behaves as its n-th stub, later calls as the
// last. Nil when the case has none.
func perCall(c *testcase.Case) func(id string) *language.Behavior {
	seq := map[string][]*language.Behavior{}
	for _, s := range c.Stubs {
		if s.Call > 0 {
			b := &language.Behavior{}
			addStub(b, s)
			seq[s.Entry] = append(seq[s.Entry], b)
		}
	}
	if len(seq) == 0 {
		return nil
	}
	var mu sync.Mutex
	calls := map[string]int{}
	return func(id string) *language.Behavior {
		mu.Lock()
		defer mu.Unlock()
		bs := seq[id]
		if len(bs) == 0 {
			return nil
		}
		n := min(calls[id], len(bs)-1)
		calls[id]++
		return bs[n]
	}
}

// unusedStubs are stubs of entries neither the plan nor the trace names,
// a finding at each entry's key: a case that stubs what its program
// never calls tests nothing.
func unusedStubs(f *testcase.File, c *testcase.Case, got *testcase.Got) []report.Finding {
	called := map[string]bool{}
	if p := got.Validate.Plan; p != nil {
		for _, s := range p.Steps {
			for _, id := range s.Calls {
				called[id] = true
			}
		}
	}
	if x := got.Execute; x != nil && x.Trace != nil {
		for _, s := range x.Trace.Steps {
			for _, id := range s.Calls {
				called[id] = true
			}
		}
	}
	var fs []report.Finding
	for _, s := range c.Stubs {
		if !called[s.Entry] && (got.Validate.Plan != nil || got.Execute != nil) {
			fs = append(fs, findingAt(f, s.At, "test-stub", fmt.Sprintf("case %q stubs %s, which its program never calls", c.Name, s.Entry), "remove the stub, or call the entry"))
			called[s.Entry] = true // its other stubs are at the same key
		}
	}
	return fs
}

// closedSetFindings are expectations no Run could meet: a diagnostic
// code, risk level or status outside the Language's closed sets.
func closedSetFindings(f *testcase.File, c *testcase.Case, l *language.Language) []report.Finding {
	var fs []report.Finding
	e := &c.Expect
	// at is where key states its value: a status's own, a list's for a
	// code or status of one of its items.
	at := func(key string) testcase.Place { return testcase.Place{Line: e.Lines[key], Col: e.Cols[key]} }
	outside := func(where testcase.Place, v string, set []string, msg, setIs string) {
		if v != "" && !slices.Contains(set, v) {
			hint := setIs + fmt.Sprint(set)
			if m := suggest.DidYouMean(v, set); m != "" {
				hint = m + " " + hint
			}
			fs = append(fs, findingAt(f, where, "test-closed-set", msg, hint))
		}
	}
	check := func(where testcase.Place, what, v string, set []string) {
		outside(where, v, set, fmt.Sprintf("case %q expects %s %s, which is not in %s's closed set", c.Name, what, report.QuoteName(v), l.ID), "the set is ")
	}
	codes, risks, statuses, steps := testcase.ClosedSets(l)
	for _, d := range e.Diagnostics {
		check(at("diagnostics"), "diagnostic code", d.Code, codes)
	}
	if e.Plan != nil {
		// A risk level at its value, the plan's place when the value's
		// is unknown.
		riskAt := func(p testcase.Place) testcase.Place { return cmp.Or(p, at("plan")) }
		check(riskAt(e.MaxRiskAt), "risk level", e.Plan.MaxRisk, risks)
		for _, step := range slices.Sorted(maps.Keys(e.Plan.Risks)) {
			check(riskAt(e.RisksAt[step]), "risk level", e.Plan.Risks[step], risks)
		}
	}
	check(at("status"), "run status", e.Status, statuses)
	for _, t := range e.Trace {
		check(at("trace"), "step status", t.Status, steps)
	}
	// A stub fails with a failing step status, as the PDL's fail does
	// (§5.7): the engine would make any other partial, so a typo would
	// pass as a test of partial.
	failing := failingStatuses(l)
	for _, s := range c.Stubs {
		setIs := "the failing step statuses are "
		if slices.Contains(steps, s.Fail) {
			setIs = report.Clip(s.Fail) + " is a step status that does not fail (ok=true); " + setIs
		}
		outside(s.FailAt, s.Fail, failing, fmt.Sprintf("case %q stubs %s to fail with step status %q, which is not a failing step status of %s's closed set",
			c.Name, report.Clip(s.Entry), report.Clip(s.Fail), l.ID), setIs)
	}
	return fs
}

// failingStatuses are the step statuses of l a call fails with (ok=false),
// partial among them: those the engine gives a scripted failure.
func failingStatuses(l *language.Language) []string {
	var out []string
	for _, s := range l.Sets.StepStatuses {
		if !s.OK {
			out = append(out, s.Status)
		}
	}
	return out
}
