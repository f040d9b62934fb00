package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The official SARIF 2.1.0 schema is third-party and may not be committed,
// so the test takes it from a registry package that ships it: the npm
// package @microsoft/jest-sarif carries the OASIS schema as
// lib/schemas/sarif-2.1.0-rtm.5.json (rtm.5 is the 2.1.0 release schema).
const (
	sarifSchemaPackage = "@microsoft/jest-sarif@1.0.0-beta.0"
	sarifSchemaFile    = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
)

// sarifSchema fetches the schema once into the user cache directory with
// `npm pack` and compiles it; the test is skipped, saying why, when npm or
// the registry is not reachable.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pilotage-test", "sarif-schema")
	path := filepath.Join(dir, sarifSchemaFile)
	if _, err := os.Stat(path); err != nil {
		fetchSchemaPackage(t, dir)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s did not ship %s: %v", sarifSchemaPackage, sarifSchemaFile, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := doc.(map[string]any)["id"].(string) // a draft-04 schema names itself with "id"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return s
}

func fetchSchemaPackage(t *testing.T, dir string) {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("SARIF schema validation skipped: npm is not installed (it fetches %s)", sarifSchemaPackage)
	}
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pack := exec.CommandContext(ctx, npm, "pack", "--silent", sarifSchemaPackage)
	pack.Dir = tmp
	out, err := pack.CombinedOutput()
	if err != nil {
		t.Skipf("SARIF schema validation skipped: npm pack %s failed (no network?): %v\n%s", sarifSchemaPackage, err, out)
	}
	tgz, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgz) != 1 {
		t.Fatalf("npm pack left %v", tgz)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-xzf", tgz[0], "-C", dir, sarifSchemaFile).CombinedOutput(); err != nil {
		t.Fatalf("unpacking %s: %v\n%s", tgz[0], err, out)
	}
}

// Every sarif golden output is valid SARIF 2.1.0, and a document the
// schema must refuse is refused (so the validation is not vacuous).
func TestSARIFSchema(t *testing.T) {
	s := sarifSchema(t)
	for name, mk := range map[string]func() *Report{"full": fullReport, "empty": emptyReport} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(render(t, mk(), SARIF, Options{})))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("%s report is not valid SARIF 2.1.0: %v", name, err)
		}
	}
	bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{}},"results":[{"level":"fatal","message":{"text":"x"}}]}]}`)))
	if s.Validate(bad) == nil {
		t.Error("the schema accepted a result without a driver name and with level fatal")
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
