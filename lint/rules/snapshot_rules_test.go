package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
)

// snapshotRules are the rules of the guides, closed-sets, risk and catalog
// categories: the ones that read a snapshot's guides and catalogs.
func snapshotRules() []*lint.Rule {
	var out []*lint.Rule
	for _, r := range All() {
		switch r.Category {
		case lint.CatGuides, lint.CatClosedSets, lint.CatRisk, lint.CatCatalog:
			out = append(out, r)
		}
	}
	return out
}

// fixture returns one document of a rule's txtar file.
func fixture(t testing.TB, rule, name string) []byte {
	t.Helper()
	data, ok := golden.ReadArchive(t, filepath.Join("testdata", rule+".txtar")).File(name)
	if !ok {
		t.Fatalf("%s.txtar has no %s", rule, name)
	}
	return data
}

// TestClosedSetsSectionsWithGrammar checks reading 14 from the PDL side:
// when the grammar is known, the grammar-dependent sections are errors
// exactly when the grammar needs them, and never info.
func TestClosedSetsSectionsWithGrammar(t *testing.T) {
	// A closed-sets guide with only "Diagnostic codes", for a Language
	// declaring guides and validate.
	src := fixture(t, "closed-sets-sections", "fail-grammar-sections-are-info.json")
	cases := []struct {
		grammar lint.Grammar
		want    []string
	}{
		{lint.Grammar{NativeStepIDs: true}, nil},
		{lint.Grammar{HasBranchesOrLoops: true, NativeStepIDs: true, SummarizedLoops: true}, []string{"Loop decisions", "Scope rules"}},
		{lint.Grammar{AcceptsInput: true}, []string{"Parameter binding", "Step identifiers"}},
	}
	for _, c := range cases {
		in := &lint.Input{File: "g.json", Src: src, Grammars: map[string]*lint.Grammar{"calc/v1": &c.grammar}}
		rep, err := lint.Run([]*lint.Rule{closedSetsSections}, []*lint.Input{in}, lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.Severity != "error" {
				t.Errorf("grammar %+v: a known grammar gives errors only, got %s: %s", c.grammar, f.Severity, f.Message)
			}
			for _, title := range []string{"Loop decisions", "Scope rules", "Parameter binding", "Step identifiers"} {
				if strings.Contains(f.Message, `"`+title+`"`) {
					got = append(got, title)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("grammar %+v: missing sections reported %v, want %v", c.grammar, got, c.want)
		}
	}
}

// TestSnapshotRulesHostile feeds snapshots built to hurt: thousands of
// Languages, a huge catalog and closed-sets tables, hostile guide bodies.
// Each must finish quickly with findings and never panic.
func TestSnapshotRulesHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("lints huge and deep snapshots; run without -short")
	}
	cases := map[string]string{
		"many languages": manyLanguages(3000),
		"huge catalog":   hugeCatalog(10000),
		"deep body":      withClosedSetsBody(strings.Repeat("- ", 100000) + "x"),
		"huge body":      withClosedSetsBody("## Diagnostic codes\n\n| code | meaning |\n|---|---|\n" + strings.Repeat("| c | m |\n", 90000)),
		"wrong types":    `{"snapshot": 1, "manifest": {"pilotage": "1.1", "languages": [{"id": "a/1"}]}, "guides": {"a/1": [1, "x", {"topics": "closed-sets"}, {"topics": [1], "body": 2}]}, "catalog": {"a/1": {"items": {"id": 1}}}}`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			got := lintWith(snapshotRules(), "h.json", []byte(src))
			if got == "" {
				t.Fatal("no findings on a broken snapshot")
			}
			if d := time.Since(start); d > time.Minute {
				t.Fatalf("took %v", d)
			}
		})
	}
}

const hostileGuides = `[{"id": "core", "title": "c", "level": "core", "version": "1", "size_bytes": 1, "body": "x"},
 {"id": "cs", "title": "cs", "level": "reference", "version": "1", "size_bytes": 0, "topics": ["closed-sets"], "body": %s}]`

// manyLanguages is a snapshot of n Languages, each with guides and a
// catalog, plus as many catalogs and guides under ids of no Language.
func manyLanguages(n int) string {
	var langs, guides, cats []string
	for i := range n {
		id := fmt.Sprintf("l%d/v1", i)
		langs = append(langs, fmt.Sprintf(`{"id": %q, "capabilities": {"guides": true, "validate": true, "catalog": true}, "guides": "g", "catalog": "c", "loop": {"validate": "v"}, "locator": "json-pointer"}`, id))
		guides = append(guides, fmt.Sprintf(`%q: `+hostileGuides, id, `"## Risk levels\n\n| risk | readOnly | destructive | openWorld |\n|---|---|---|---|\n| safe | true | true | false |\n"`))
		guides = append(guides, fmt.Sprintf(`"stray%d/v1": []`, i))
		cats = append(cats, fmt.Sprintf(`%q: {"catalog_version": "1", "items": [{"id": "e", "kind": "k", "risk": "r", "risk_hints": {"readOnly": true, "destructive": true, "openWorld": false}, "languages": ["nowhere/v%d"]}]}`, id, i))
		cats = append(cats, fmt.Sprintf(`"stray%d/v1": {"catalog_version": "1", "items": []}`, i))
	}
	return `{"snapshot": "pilotage/1.1", "manifest": {"pilotage": "1.1", "languages": [` + strings.Join(langs, ",") +
		`]}, "guides": {` + strings.Join(guides, ",") + `}, "catalog": {` + strings.Join(cats, ",") + `}}`
}

// hugeCatalog is one Language whose catalog has n entries with one id,
// an unknown kind, risk and Language, and schemas that do not compile.
func hugeCatalog(n int) string {
	var items []string
	for i := range n {
		items = append(items, fmt.Sprintf(`{"id": "same", "kind": "k%d", "risk": "r%d", "risk_hints": {"readOnly": true, "destructive": true, "openWorld": true}, "languages": ["x/%d"], "input_schema": {"type": 3}}`, i, i, i))
	}
	body := `"## Catalog entry kinds\n\n| kind | callable | promoted | meaning |\n|---|---|---|---|\n| k0 | yes | yes | m |\n\n## Risk levels\n\n| risk | readOnly | destructive | openWorld |\n|---|---|---|---|\n| r0 | false | false | false |\n"`
	return `{"snapshot": "pilotage/1.1", "manifest": {"pilotage": "1.1", "languages": [{"id": "a/1", "capabilities": {"guides": true, "validate": true, "catalog": true}, "guides": "g", "catalog": "c", "loop": {"validate": "v"}, "locator": "json-pointer"}]},
 "guides": {"a/1": ` + fmt.Sprintf(hostileGuides, body) + `}, "catalog": {"a/1": {"catalog_version": "1", "items": [` + strings.Join(items, ",") + `]}}}`
}

// withClosedSetsBody is one Language whose closed-sets guide has body.
func withClosedSetsBody(body string) string {
	q := fmt.Sprintf("%q", body)
	return `{"snapshot": "pilotage/1.1", "manifest": {"pilotage": "1.1", "languages": [{"id": "a/1", "capabilities": {"guides": true, "validate": true}, "guides": "g", "loop": {"validate": "v"}, "locator": "json-pointer"}]},
 "guides": {"a/1": ` + fmt.Sprintf(hostileGuides, q) + `}}`
}

// FuzzSnapshotRules runs the guide, closed-sets, risk and catalog rules
// over arbitrary bytes, seeded with every fixture of their txtar files.
// Findings must point at a real position; nothing may panic.
func FuzzSnapshotRules(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(examples, "broken-snapshot.json")); err == nil {
		f.Add(b)
	}
	fuzzRules(f, snapshotRules())
}
