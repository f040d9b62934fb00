package cmd_test

import (
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/config"
	"slices"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
)

const configPrecedenceYAML = `rules:
  core-guide-size: info
  guide-version-bump: off
overrides:
  - files: ["langs/legacy/**"]
    rules: {core-guide-size: error}
  - files: ["langs/legacy/old/**"]
    rules: {core-guide-size: off}
suppress:
  - files: ["fixtures/bad-*.json"]
    rules: [json-syntax]
    reason: broken on purpose
`

// configFinding is one finding of rule in file at line 2.
func configFinding(rule, file string) report.Finding {
	return report.Finding{Rule: rule, File: file, Line: 2, Column: 3, Severity: report.Warning, Message: rule}
}

// configShown is each finding as "file rule severity [suppressed kind]".
func configShown(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		s := fmt.Sprintf("%s %s %s", f.File, f.Rule, f.Severity)
		for _, sp := range f.Suppressions {
			s += " suppressed " + sp.Kind + ": " + sp.Justification
		}
		out = append(out, s)
	}
	return out
}

// One test per row of docs/config.md's precedence table.
func TestConfigPrecedence(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, err := config.Parse(config.FileName, []byte(configPrecedenceYAML))
	if err != nil {
		t.Fatal(err)
	}
	inline := func(name string, src []byte) []suppress.Directive {
		if name != "langs/a.pdl" {
			return nil
		}
		c, _ := suppress.ParseComment("# pilotage:ignore core-guide-size -- measured, fine")
		at := report.Location{File: name, Line: 1, Column: 1}
		return []suppress.Directive{{Comment: c, At: at, Start: at, End: report.Location{File: name, Line: 3, Column: 1}}}
	}
	run := func(noSup bool, fs ...report.Finding) []string {
		rep := &report.Report{Findings: fs, Sources: map[string][]byte{}}
		for _, f := range fs {
			if !slices.Contains(rep.Files, f.File) {
				rep.Files = append(rep.Files, f.File)
			}
		}
		rep.Recount()
		rep.Order()
		cfg.Apply(rep, config.Apply{Inline: inline, NoSuppressions: noSup, Known: configTestIDs()})
		return configShown(rep)
	}
	for _, c := range []struct {
		row   string
		noSup bool
		in    []report.Finding
		want  []string
	}{
		{"default severity: a rule the file does not name keeps its own", false,
			[]report.Finding{configFinding("language-id", "a.json")}, []string{"a.json language-id warning"}},
		{"rules: sets the severity everywhere", false,
			[]report.Finding{configFinding("core-guide-size", "a.json")}, []string{"a.json core-guide-size info"}},
		{"rules: off drops the finding", false,
			[]report.Finding{configFinding("guide-version-bump", "a.json")}, nil},
		{"overrides: wins over rules: for the files it matches", false,
			[]report.Finding{configFinding("core-guide-size", "langs/legacy/x.pdl")}, []string{"langs/legacy/x.pdl core-guide-size error"}},
		{"overrides: the last matching entry wins", false,
			[]report.Finding{configFinding("core-guide-size", "langs/legacy/old/x.pdl")}, nil},
		{"suppress: marks the finding external, severity kept", false,
			[]report.Finding{configFinding("json-syntax", "fixtures/bad-1.json")}, []string{"fixtures/bad-1.json json-syntax warning suppressed external: broken on purpose"}},
		{"suppress: only for the files it matches", false,
			[]report.Finding{configFinding("json-syntax", "fixtures/good.json")}, []string{"fixtures/good.json json-syntax warning"}},
		{"inline ignore: marks the finding inSource, severity from the file", false,
			[]report.Finding{configFinding("core-guide-size", "langs/a.pdl")}, []string{"langs/a.pdl core-guide-size info suppressed inSource: measured, fine"}},
		{"--no-suppressions: every finding shows, severities still apply", true,
			[]report.Finding{configFinding("core-guide-size", "langs/a.pdl"), configFinding("json-syntax", "fixtures/bad-1.json")},
			[]string{"fixtures/bad-1.json json-syntax warning", "langs/a.pdl core-guide-size info"}},
	} {
		t.Run(c.row, func(t *testing.T) {
			got := run(c.noSup, c.in...)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// The summary counts by the configured severities, and suppressed
// findings under suppressed only, so the verb's exit follows them.
func TestConfigApplyRecounts(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, err := config.Parse(config.FileName, []byte(configPrecedenceYAML))
	if err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Files: []string{"a.json", "fixtures/bad-1.json"}}
	rep.Add(configFinding("core-guide-size", "a.json"), configFinding("json-syntax", "fixtures/bad-1.json"), configFinding("guide-version-bump", "a.json"))
	cfg.Apply(rep, config.Apply{Known: configTestIDs()})
	if s := rep.Summary; s.Errors != 0 || s.Warnings != 0 || s.Infos != 1 || s.Suppressed != 1 {
		t.Fatalf("summary %+v, want 1 info and 1 suppressed", s)
	}
	if rep.Failed(true) {
		t.Fatal("a report of one info and a suppressed finding fails --strict")
	}
}

func TestConfigLanguageForAndIgnored(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg, err := config.Parse(config.FileName, []byte(`ignore: [out/**]
languages:
  - files: ["programs/home/**"]
    lang: langs/homeflow/homeflow.pdl
  - files: ["programs/**"]
    lang: langs/calc/calc.pdl
`))
	if err != nil {
		t.Fatal(err)
	}
	for prog, want := range map[string]string{
		"programs/home/lights.json": "langs/homeflow/homeflow.pdl",
		"programs/sum.json":         "langs/calc/calc.pdl",
		"other/x.json":              "",
		"-":                         "",
	} {
		got, _ := cfg.LanguageFor(prog)
		if got.Value != want {
			t.Errorf("LanguageFor(%s) = %q, want %q", prog, got.Value, want)
		}
	}
	if !cfg.Ignored("out/snapshot.json") || cfg.Ignored("outer/x.json") || cfg.Ignored("../out/x.json") {
		t.Error("ignore: out/** matched the wrong paths")
	}
}
