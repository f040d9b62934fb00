package pdllint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

func lintFiles(t *testing.T, names ...string) *report.Report {
	t.Helper()
	var inputs []*lint.Input
	for _, n := range names {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, &lint.Input{File: n, Src: src})
	}
	rep, err := Run(rules.All(), inputs, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestExamplesLintClean: every Language in langs/ passes every lint rule
// and every PDL check with zero findings, warnings and infos included.
func TestExamplesLintClean(t *testing.T) {
	files, _ := filepath.Glob("../../langs/*/*.pdl")
	if len(files) < 3 {
		t.Fatalf("found %d examples", len(files))
	}
	rep := lintFiles(t, files...)
	for _, f := range rep.Findings {
		t.Errorf("%s:%d:%d %s %s: %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Message)
	}
	if rep.Summary.Files != len(files) || rep.Summary.Checked["rules"] != len(rules.All()) {
		t.Errorf("summary %+v", rep.Summary)
	}
}

// TestFindingsPointIntoPDL: rules that run on the built snapshot report
// at the PDL line of the construct the value came from.
func TestFindingsPointIntoPDL(t *testing.T) {
	name := filepath.Join("testdata", "floor.pdl")
	src, _ := os.ReadFile(name)
	rep := lintFiles(t, name)
	if len(rep.Findings) == 0 {
		t.Fatal("no findings")
	}
	lines := strings.Split(string(src), "\n")
	found := map[string]bool{}
	for _, f := range rep.Findings {
		if f.File != name || f.Line < 1 || f.Line > len(lines) {
			t.Errorf("finding outside the PDL: %+v", f)
			continue
		}
		found[f.Rule+" "+strings.TrimSpace(lines[f.Line-1])] = true
	}
	// The line each rule must point at is the construct that breaks it.
	for _, want := range []string{
		"capability-floor capabilities {",
		"capability-dependencies trace_fetch",
	} {
		if !found[want] {
			t.Errorf("no finding %q; got %v", want, found)
		}
	}
	var text bytes.Buffer
	report.Write(&text, report.Text, rep, report.Options{})
	if !strings.Contains(text.String(), "|   capabilities {") && !strings.Contains(text.String(), "| capabilities {") {
		t.Errorf("text report shows no PDL snippet:\n%s", text.String())
	}
}

// TestBrokenPDLReportsCompileErrors: a PDL file with errors gives its
// compile findings (no lint rules run on a partial build), next to
// findings of other inputs in the same run.
func TestBrokenPDLReportsCompileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pdl")
	os.WriteFile(bad, []byte("language \"x/v1\" {\n  mode sometimes\n}\n"), 0o644)
	rep := lintFiles(t, bad)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%d:%d %s", f.Line, f.Column, f.Rule))
	}
	if strings.Join(got, ", ") != "1:1 pdl-required, 2:3 pdl-value, 2:8 pdl-value" {
		t.Errorf("findings = %v", got)
	}
	if !rep.Failed(false) || len(rep.Files) != 1 {
		t.Errorf("report %+v", rep.Summary)
	}
}

// TestDisablePDLRule: --disable takes PDL rule IDs like lint's: their
// findings go, the other findings stay, the disabled rule is not listed
// as run, and a file whose only errors are disabled ones is linted on its
// build.
func TestDisablePDLRule(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pdl")
	os.WriteFile(bad, []byte("language \"x/v1\" {\n  mode sometimes\n}\n"), 0o644)
	rep, err := Run(rules.All(), []*lint.Input{{File: bad, Src: mustRead(t, bad)}}, lint.Config{Disabled: map[string]bool{"pdl-value": true}})
	if err != nil {
		t.Fatal(err)
	}
	got := findingKeys(rep)
	if strings.Join(got, ", ") != "1:1 pdl-required" {
		t.Errorf("findings = %v", got)
	}
	for _, r := range rep.Rules {
		if r.ID == "pdl-value" {
			t.Error("disabled rule pdl-value is listed among the rules run")
		}
	}

	// Without its only error (a guide example the Language rejects), the
	// build is linted: floor.pdl's missing validate is then reported.
	src := strings.Replace(string(mustRead(t, "testdata/floor.pdl")), `body "# Core"`,
		"body \"\"\"\n      ```json\n      {\"steps\": [{\"id\": \"a#1\"}]}\n      ```\n      \"\"\"", 1)
	in := []*lint.Input{{File: "floor.pdl", Src: []byte(src)}}
	rep, err = Run(rules.All(), in, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Rule != "pdl-example" || hasRule(rep, "capability-floor") {
		t.Fatalf("an example error must stop lint on the build: %+v", rep.Findings)
	}
	rep, err = Run(rules.All(), in, lint.Config{Disabled: map[string]bool{"pdl-example": true}})
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(rep, "pdl-example") || !hasRule(rep, "capability-floor") {
		t.Errorf("with pdl-example disabled the build must be linted: %+v", rep.Findings)
	}

	// The rules of suppressions, which run when the report is brought
	// under pilotage.yaml, may be disabled too; the report lists those on.
	rep, err = Run(rules.All(), in, lint.Config{Disabled: map[string]bool{suppress.RuleUnusedSuppression: true}})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range rep.Rules {
		if r.Category == "suppression" {
			listed = append(listed, r.ID)
		}
	}
	slices.Sort(listed)
	if strings.Join(listed, " ") != "suppression-reason suppression-syntax" {
		t.Errorf("rules of suppressions listed with unused-suppression disabled: %v", listed)
	}

	// Unknown IDs are still a configuration error.
	if _, err := Run(rules.All(), in, lint.Config{Disabled: map[string]bool{"pdl-nothing": true}}); err == nil || !strings.Contains(err.Error(), `unknown rule "pdl-nothing"`) {
		t.Errorf("err = %v", err)
	}
}

// TestRulesListsBoth: the rule list of `lint --list-rules` holds every
// lint rule, every PDL rule and every rule of suppressions, once each.
func TestRulesListsBoth(t *testing.T) {
	infos := Rules(rules.All())
	seen := map[string]int{}
	for _, r := range infos {
		seen[r.ID]++
	}
	for _, id := range []string{"json-syntax", "capability-floor", "pdl-syntax", "pdl-cel", "pdl-example", "unused-suppression", "suppression-reason"} {
		if seen[id] != 1 {
			t.Errorf("%s listed %d times", id, seen[id])
		}
	}
	if len(seen) != len(infos) || len(infos) != len(rules.All())+len(pdl.Rules)+len(suppress.Rules()) {
		t.Errorf("%d distinct ids in %d rules", len(seen), len(infos))
	}
}

func hasRule(rep *report.Report, id string) bool {
	for _, f := range rep.Findings {
		if f.Rule == id {
			return true
		}
	}
	return false
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStdinKind: standard input has no .pdl suffix, so its content says
// whether it is PDL (a comment or a keyword first) or JSON (a value
// first); JSON's literals true, false and null stay JSON.
func TestStdinKind(t *testing.T) {
	for src, want := range map[string]bool{
		"language \"a/v1\" {}":        true,
		"\n  # comment\nserver \"s\"": true,
		"\ufeffrisk safe \"Reads.\"":  true,
		`{"pilotage": "1.1"}`:         false,
		" [1]":                        false,
		"true":                        false,
		"null\n":                      false,
		"":                            false,
		"\x00\x01":                    false,
	} {
		if got := isPDLInput(&lint.Input{File: "-", Src: []byte(src)}); got != want {
			t.Errorf("isPDLInput(- = %q) = %v, want %v", src, got, want)
		}
	}
	// A named file goes by its suffix only.
	if isPDLInput(&lint.Input{File: "x.json", Src: []byte("language \"a/v1\" {}")}) {
		t.Error("x.json holding PDL text was taken for PDL")
	}

	// Linted from standard input, a PDL file's findings point into it.
	src := mustRead(t, filepath.Join("testdata", "floor.pdl"))
	rep, err := Run(rules.All(), []*lint.Input{{File: "-", Src: src}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].File != "-" || rep.Findings[0].Rule == "json-syntax" {
		t.Fatalf("PDL on standard input was not compiled: %+v", rep.Findings)
	}
	got, want := findingKeys(rep), findingKeys(lintFiles(t, filepath.Join("testdata", "floor.pdl")))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("standard input gave %v, the file %v", got, want)
	}
}

// findingKeys is each finding's rule and position, without the file name.
func findingKeys(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, fmt.Sprintf("%d:%d %s", f.Line, f.Column, f.Rule))
	}
	return out
}

// TestGeneratedIDsNeedTheScheme: a Language with syntax text generates
// the ids of unlabeled statements (§3.4), so closed-sets-sections
// requires its Step identifiers section as an error; a snapshot of
// langs/ledger with that section removed is reported, the built one is
// clean, and a JSON Language has native ids.
func TestGeneratedIDsNeedTheScheme(t *testing.T) {
	res, _, err := compile.Load("../../langs/ledger/ledger.pdl", 100)
	if err != nil || !res.OK() {
		t.Fatalf("%v %+v", err, res.Findings)
	}
	g := Grammars(res.Server)
	if g["ledger/v1"].NativeStepIDs {
		t.Fatal("ledger/v1 generates step ids, its grammar facts say native")
	}
	snap, _ := json.Marshal(emit.Snapshot(res.Server))
	section := regexp.MustCompile(`## Step identifiers\\n\\n[^#]*`)
	stripped := section.ReplaceAll(snap, nil)
	if bytes.Equal(stripped, snap) {
		t.Fatal("the ledger's closed-sets guide has no Step identifiers section to remove")
	}
	for _, c := range []struct {
		src  []byte
		want bool
	}{{snap, false}, {stripped, true}} {
		rep, err := lint.Run(rules.All(), []*lint.Input{{File: "s.json", Src: c.src, Grammars: g}}, lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, f := range rep.Findings {
			got = got || f.Rule == "closed-sets-sections" && f.Severity == report.Error && strings.Contains(f.Message, `"Step identifiers"`)
		}
		if got != c.want {
			t.Errorf("section removed %v: Step identifiers reported %v", c.want, got)
		}
	}
}

// TestBaselineQuotesPDL: a PDL baseline's findings are placed in the PDL
// (its Locator), so the report quotes the PDL and the files it reads
// under their names, never the snapshot built from it.
func TestBaselineQuotesPDL(t *testing.T) {
	name := filepath.Join("..", "..", "langs", "homeflow", "homeflow.pdl")
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	base, _, err := Input(name, src, compile.Options{Dir: filepath.Dir(name)}, nil)
	if err != nil || base == nil {
		t.Fatalf("baseline: %v", err)
	}
	calc := filepath.Join("..", "..", "langs", "calc", "calc.pdl")
	csrc, _ := os.ReadFile(calc)
	rep, err := Run(rules.All(), []*lint.Input{{File: calc, Src: csrc}}, lint.Config{Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rep.Sources[name], src) {
		t.Errorf("the report quotes %.60q… for the baseline %s, not its PDL", rep.Sources[name], name)
	}
	guide := filepath.Join(filepath.Dir(name), "guides", "core.md")
	if want, _ := os.ReadFile(guide); !bytes.Equal(rep.Sources[guide], want) {
		t.Errorf("the report does not quote the baseline's guide file %s", guide)
	}
}
