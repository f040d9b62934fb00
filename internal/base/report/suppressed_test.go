package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// suppressedReport has one finding suppressed in source, one by
// pilotage.yaml and one open.
func suppressedReport() *Report {
	r := &Report{Tool: "pilotage lint", Files: []string{"lang.pdl", "bad.json"}, Sources: map[string][]byte{}}
	r.Add(
		Finding{Rule: "core-guide-size", Section: "5.2", Severity: Warning, Message: "big", File: "lang.pdl", Line: 4, Column: 3,
			Suppressions: []Suppression{{Kind: InSource, Justification: "measured, fine", Location: Location{File: "lang.pdl", Line: 3, Column: 3}}}},
		Finding{Rule: "json-syntax", Section: "5", Severity: Error, Message: "malformed", File: "bad.json", Line: 1, Column: 1,
			Suppressions: []Suppression{{Kind: External, Justification: "broken on purpose", Location: Location{File: "pilotage.yaml", Line: 9, Column: 5}}}},
		Finding{Rule: "language-id", Section: "3.3", Severity: Error, Message: "open", File: "lang.pdl", Line: 9, Column: 1},
	)
	return r
}

// Suppressed findings count apart and do not fail the run; json keeps
// them marked; text, github and junit leave them out; sarif keeps them
// only with IncludeSuppressed, and that log is valid SARIF 2.1.0 with
// each result's suppressions.
func TestSuppressedFindings(t *testing.T) {
	r := suppressedReport()
	if s := r.Summary; s.Errors != 1 || s.Warnings != 0 || s.Suppressed != 2 {
		t.Fatalf("summary %+v, want 1 error and 2 suppressed", s)
	}
	text := string(render(t, r, Text, Options{}))
	if strings.Contains(text, "malformed") || !strings.Contains(text, "1 error, 0 warnings, 2 suppressed") {
		t.Errorf("text output:\n%s", text)
	}
	for _, f := range []Format{GitHub, JUnit} {
		if out := string(render(t, r, f, Options{})); strings.Contains(out, "malformed") || strings.Contains(out, "big") {
			t.Errorf("%s output lists a suppressed finding:\n%s", f, out)
		}
	}
	var js jsonReport
	if err := json.Unmarshal(render(t, r, JSON, Options{}), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Findings) != 3 || js.Summary.Suppressed != 2 {
		t.Fatalf("json has %d findings, summary %+v", len(js.Findings), js.Summary)
	}
	type sarifOut struct {
		Runs []struct {
			Results []struct {
				RuleID       string             `json:"ruleId"`
				Suppressions []sarifSuppression `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	var dropped, kept sarifOut
	plain := render(t, r, SARIF, Options{})
	full := render(t, r, SARIF, Options{IncludeSuppressed: true})
	golden.ValidSARIF(t, "sarif with suppressed results", full)
	golden.ValidSARIF(t, "sarif without suppressed results", plain)
	if err := json.Unmarshal(plain, &dropped); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(full, &kept); err != nil {
		t.Fatal(err)
	}
	if res := dropped.Runs[0].Results; len(res) != 1 || res[0].RuleID != "language-id" {
		t.Errorf("sarif without IncludeSuppressed has %+v", res)
	}
	kinds := map[string]string{}
	for _, res := range kept.Runs[0].Results {
		for _, s := range res.Suppressions {
			kinds[res.RuleID] = s.Kind + ": " + s.Justification + " at " + s.Location.PhysicalLocation.ArtifactLocation.URI
		}
	}
	want := map[string]string{"core-guide-size": "inSource: measured, fine at lang.pdl", "json-syntax": "external: broken on purpose at pilotage.yaml"}
	for id, w := range want {
		if kinds[id] != w {
			t.Errorf("%s: suppression %q, want %q", id, kinds[id], w)
		}
	}
}
