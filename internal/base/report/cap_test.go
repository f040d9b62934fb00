package report

import (
	"fmt"
	"slices"
	"testing"
)

func finding(file, rule string, sev Severity, line int) Finding {
	return Finding{Rule: rule, Section: "5.2", Severity: sev, File: file, Line: line, Column: 1,
		Message: fmt.Sprintf("%s at %d", rule, line)}
}

// messages lists "file: severity: message" of fs, in order.
func messages(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s: %s: %s", f.File, f.Severity, f.Message))
	}
	return out
}

// TestCapAdmit: a cap lists the first N findings of each rule in each
// file and counts the rest in one finding per rule and file, at the
// gravest severity left out, so a left-out error still fails.
func TestCapAdmit(t *testing.T) {
	c := NewCap(2)
	var listed []Finding
	for i, f := range []Finding{
		finding("a.pdl", "r1", Info, 1),
		finding("a.pdl", "r1", Info, 2),
		finding("a.pdl", "r1", Info, 3),
		finding("a.pdl", "r2", Warning, 4),
		finding("b.pdl", "r1", Info, 1),
		finding("a.pdl", "r1", Error, 5),
		finding("a.pdl", "r1", Warning, 6),
	} {
		if c.Admit(f) {
			listed = append(listed, f)
		} else if i < 2 {
			t.Errorf("finding %d left out under the cap", i)
		}
	}
	want := []string{"a.pdl: info: r1 at 1", "a.pdl: info: r1 at 2", "a.pdl: warning: r2 at 4", "b.pdl: info: r1 at 1"}
	if got := messages(listed); !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
	left := c.Left()
	if got, want := messages(left), []string{"a.pdl: error: 3 more r1 findings in this file are not listed"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	if f := left[0]; f.Rule != "r1" || f.Section != "5.2" || f.Hint != capHint || f.Line != 0 || !f.CountsLeft() {
		t.Errorf("the counting finding is %+v", f)
	}
	if slices.ContainsFunc(listed, Finding.CountsLeft) {
		t.Errorf("a listed finding counts others: %q", messages(listed))
	}
}

// TestCapInclude: what another cap left out is counted by the one that
// includes it, for the rules kept only.
func TestCapInclude(t *testing.T) {
	a, b := NewCap(1), NewCap(1)
	for i := range 3 {
		a.Admit(finding("t.json", "r1", Warning, i))
		b.Admit(finding("t.json", "r1", Error, i))
		b.Admit(finding("t.json", "dropped", Error, i))
	}
	all := NewCap(1)
	all.Admit(finding("t.json", "r1", Info, 9))
	all.Admit(finding("t.json", "r1", Info, 10))
	all.Include(a, func(string) bool { return true })
	all.Include(b, func(rule string) bool { return rule != "dropped" })
	want := []string{"t.json: error: 5 more r1 findings in this file are not listed"}
	if got := messages(all.Left()); !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
}

// TestReportCap: a report with a Cap keeps only what is listed, Sort adds
// the counts, the summary counts what is listed, and findings added after
// a Sort (pdllint adds the compiler's after lint's) update the count
// instead of adding a second one.
func TestReportCap(t *testing.T) {
	r := &Report{Cap: NewCap(1)}
	for i := range 1000 {
		r.Add(finding("x.pdl", "r1", Warning, i+1))
	}
	r.Sort()
	want := []string{"x.pdl: warning: 999 more r1 findings in this file are not listed", "x.pdl: warning: r1 at 1"}
	if got := messages(r.Findings); !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if r.Summary.Warnings != 2 || r.Summary.Errors != 0 {
		t.Errorf("summary %+v, want 2 warnings", r.Summary)
	}
	r.Add(finding("x.pdl", "r1", Error, 2000), finding("x.pdl", "r2", Error, 7))
	r.Sort()
	want = []string{"x.pdl: error: 1000 more r1 findings in this file are not listed", "x.pdl: warning: r1 at 1", "x.pdl: error: r2 at 7"}
	if got := messages(r.Findings); !slices.Equal(got, want) {
		t.Errorf("after more findings: %q, want %q", got, want)
	}
	if r.Summary.Warnings != 1 || r.Summary.Errors != 2 {
		t.Errorf("summary %+v, want 2 errors and 1 warning", r.Summary)
	}
	if !r.Failed(false) {
		t.Error("a report whose left-out findings hold an error passes")
	}
}

// TestReportNoCap: without a Cap every finding is kept and Sort adds
// nothing.
func TestReportNoCap(t *testing.T) {
	r := &Report{}
	for i := range 100 {
		r.Add(finding("x.pdl", "r1", Warning, i+1))
	}
	r.Sort()
	if len(r.Findings) != 100 || r.Summary.Warnings != 100 {
		t.Errorf("%d findings, summary %+v", len(r.Findings), r.Summary)
	}
}

// TestReportAddListed: findings a producer offered to the report's own
// Cap and completed there (the PDL compiler: Admit, then Keep with the
// message) are listed once: the report equals one that offered every
// finding to Add, listed findings, count and summary alike; and findings
// the cap handed on (Take) and added with AddListed are not listed again.
func TestReportAddListed(t *testing.T) {
	shared := &Report{Cap: NewCap(2)}
	offered := &Report{Cap: NewCap(2)}
	taken := &Report{Cap: NewCap(2)}
	for i := range 10 {
		f := finding("x.pdl", "r1", Error, 10-i)
		if shared.Cap.Admit(Finding{Rule: f.Rule, Section: f.Section, Severity: f.Severity, File: f.File, Line: f.Line}) {
			shared.Cap.Keep(f)
		}
		offered.Add(f)
		taken.Cap.Admit(f)
	}
	taken.AddListed(taken.Cap.Take()...)
	want := []string{"x.pdl: error: 8 more r1 findings in this file are not listed", "x.pdl: error: r1 at 1", "x.pdl: error: r1 at 2"}
	for _, r := range []*Report{shared, offered, taken} {
		r.Sort()
		if got := messages(r.Findings); !slices.Equal(got, want) {
			t.Errorf("findings %q, want %q", got, want)
		}
		if r.Summary.Errors != 3 {
			t.Errorf("summary %+v, want 3 errors", r.Summary)
		}
	}
}

// TestCapCountCitesTheRule: the finding that counts a rule's left-out
// findings cites the rule's section, not the first left out's, when the
// rule's findings cite sections of their own (schema: the member's field
// table, §5.1, §4.2, …, while the rule is §1.1).
func TestCapCountCitesTheRule(t *testing.T) {
	r := &Report{Cap: NewCap(1), Rules: []RuleInfo{{ID: "schema", Section: "1.1", Severity: Error}}}
	missing := Finding{Rule: "schema", Severity: Error, File: "m.json", Line: 1, Column: 1, Message: "missing"}
	missing.CiteSections([]string{"5.1", "11.1", "1.1"})
	mistyped := Finding{Rule: "schema", Section: "4.2", Severity: Error, File: "m.json", Line: 2, Column: 1, Message: "mistyped"}
	missing.Line = 3
	r.Add(mistyped, missing, mistyped)
	if count := leftCount(t, r); count.Section != "1.1" || count.Sections != nil {
		t.Errorf("the counting finding cites %q %q, want the rule's 1.1 alone: %+v", count.Section, count.Sections, count)
	}
}

// TestCapCountCitesWhatTheyCite: when every finding a count stands for
// cites the same sections, other than its rule's (a principal defined
// twice is pdl-duplicate's, §10.3, where the rule's is §5.4), the count
// cites them too: it summarises those findings, not the rule.
func TestCapCountCitesWhatTheyCite(t *testing.T) {
	r := &Report{Cap: NewCap(1), Rules: []RuleInfo{{ID: "pdl-duplicate", Section: "5.4", Severity: Error}}}
	for line := 1; line <= 3; line++ {
		f := Finding{Rule: "pdl-duplicate", Severity: Error, File: "a.pdl", Line: line, Column: 1, Message: "twice"}
		f.CiteSections([]string{"10.3"})
		r.Add(f)
	}
	if count := leftCount(t, r); count.Section != "10.3" || count.Sections != nil {
		t.Errorf("the counting finding cites %q %q, want 10.3 as the findings do: %+v", count.Section, count.Sections, count)
	}
}

// leftCount sorts r and returns the finding that counts those its cap
// left out.
func leftCount(t *testing.T, r *Report) Finding {
	t.Helper()
	r.Sort()
	i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.Hint == capHint })
	if i < 0 {
		t.Fatalf("no finding counts those left out: %+v", r.Findings)
	}
	return r.Findings[i]
}
