package golden

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// RuleFixtures checks the fixtures of one rule, kept in the archive at
// path (lint's and replay's convention). Its documents come in pairs:
//
//	-- NAME.json --   a document the rule checks (NAME.pdl for a PDL file)
//	-- NAME.want --   the findings of this rule alone, one per line
//	                  (empty for a passing fixture)
//
// A NAME.json that isFixture rejects is context the others share (replay's
// plan), not a fixture; so is a NAME.baseline.json, the earlier capture
// lint's evolution rules compare NAME.json with (findings reads it). findings renders the findings on NAME.json in the
// .want form: of the rule alone, or of every rule when all is set. A
// fixture whose name starts with "pass" must be clean under every rule, so
// a passing fixture is a conformant document; and every rule needs at
// least one failing and one passing fixture, so its test can fail.
func RuleFixtures(t testing.TB, path string, isFixture func(name string) bool, findings func(a *Archive, name string, all bool) string) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("every rule needs %s with failing and passing fixtures: %v", path, err)
	}
	a := &Archive{Path: path, Archive: ar}
	var sawFail, sawPass bool
	for _, f := range ar.Files {
		name, ok := strings.CutSuffix(f.Name, ".json")
		if !ok {
			name, ok = strings.CutSuffix(f.Name, ".pdl")
		}
		if !ok || strings.HasSuffix(name, ".baseline") || !isFixture(name) {
			continue
		}
		want, ok := a.File(name + ".want")
		if !ok {
			t.Fatalf("%s: fixture %s has no %s.want", path, f.Name, name)
		}
		wantText := strings.TrimSpace(string(want))
		if got := findings(a, name, false); strings.TrimSpace(got) != wantText {
			t.Errorf("%s: %s\n got:\n%s\nwant:\n%s", path, f.Name, got, want)
		}
		if wantText == "" {
			sawPass = true
		} else {
			sawFail = true
		}
		if strings.HasPrefix(name, "pass") {
			if all := findings(a, name, true); all != "" {
				t.Errorf("%s: %s must be clean under every rule, got:\n%s", path, f.Name, all)
			}
		}
	}
	if !sawFail || !sawPass {
		t.Errorf("%s needs at least one failing and one passing fixture (fail=%v pass=%v)", path, sawFail, sawPass)
	}
}
