package report

import (
	"encoding/json"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// Every sarif golden output is valid SARIF 2.1.0 (golden.ValidSARIF,
// whose own test shows that the schema refuses a bad log).
func TestSARIFSchema(t *testing.T) {
	for name, mk := range map[string]func() *Report{"full": fullReport, "empty": emptyReport} {
		golden.ValidSARIF(t, name+" report", render(t, mk(), SARIF, Options{}))
	}
}

// GitHub code scanning reads a handful of fields; check them by hand so a
// schema-valid but useless log cannot pass.
func TestSARIFCodeScanningShape(t *testing.T) {
	type result struct {
		RuleID    string `json:"ruleId"`
		RuleIndex *int   `json:"ruleIndex"`
		Level     string `json:"level"`
		Message   struct {
			Text string `json:"text"`
		} `json:"message"`
		Locations []struct {
			PhysicalLocation struct {
				ArtifactLocation struct {
					URI string `json:"uri"`
				} `json:"artifactLocation"`
				Region *struct {
					StartLine   int `json:"startLine"`
					StartColumn int `json:"startColumn"`
				} `json:"region"`
			} `json:"physicalLocation"`
		} `json:"locations"`
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct {
							Text string `json:"text"`
						} `json:"shortDescription"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			ColumnKind string    `json:"columnKind"`
			Results    *[]result `json:"results"`
		} `json:"runs"`
	}
	decode := func(r *Report) {
		t.Helper()
		if err := json.Unmarshal(render(t, r, SARIF, Options{}), &log); err != nil {
			t.Fatal(err)
		}
		if log.Version != "2.1.0" || log.Schema == "" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "pilotage" {
			t.Fatalf("header: %+v", log)
		}
		if log.Runs[0].ColumnKind != "unicodeCodePoints" {
			t.Errorf("columnKind = %q; columns count characters", log.Runs[0].ColumnKind)
		}
	}

	decode(emptyReport())
	if log.Runs[0].Results == nil || len(*log.Runs[0].Results) != 0 {
		t.Errorf("a clean run must have results: [], got %v", log.Runs[0].Results)
	}

	full := fullReport()
	decode(full)
	results := *log.Runs[0].Results
	if len(results) != len(full.Findings) {
		t.Fatalf("%d results for %d findings", len(results), len(full.Findings))
	}
	rules := log.Runs[0].Tool.Driver.Rules
	for i, res := range results {
		f := full.Findings[i]
		want := map[Severity]string{Error: "error", Warning: "warning", Info: "note"}[f.Severity]
		if res.RuleID != f.Rule || res.Level != want || res.Message.Text == "" {
			t.Errorf("result %d = %+v for finding %+v", i, res, f)
		}
		if res.RuleIndex == nil || *res.RuleIndex >= len(rules) || rules[*res.RuleIndex].ID != f.Rule {
			t.Errorf("result %d: ruleIndex does not point at rule %s", i, f.Rule)
		}
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Fatalf("result %d has no artifact location", i)
		}
		region := res.Locations[0].PhysicalLocation.Region
		switch {
		case f.Line == 0 && region != nil:
			t.Errorf("result %d: a whole-file finding has a region", i)
		case f.Line > 0 && (region == nil || region.StartLine != f.Line || region.StartColumn != f.Column):
			t.Errorf("result %d: region %+v, want %d:%d", i, region, f.Line, f.Column)
		}
	}
	if results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "stdin" {
		t.Errorf("standard input is %q, want stdin", results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	// Every rule that produced a result is described, including one the
	// report did not list.
	ids := map[string]bool{}
	for _, r := range rules {
		ids[r.ID] = true
		if r.ShortDescription.Text == "" || r.Help.Text == "" {
			t.Errorf("rule %s lacks a description or help", r.ID)
		}
	}
	for _, f := range full.Findings {
		if !ids[f.Rule] {
			t.Errorf("rule %s is not in the driver's rules", f.Rule)
		}
	}
}
