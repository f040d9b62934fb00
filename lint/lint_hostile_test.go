package lint_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// Hostile snapshots run through every rule: deep nesting where rules
// descend (capabilities, entry schemas, guide topics), huge strings, many
// entries with one id. Each must end with findings in bounded time, never a
// panic or a hang.
func TestLintHostileSnapshots(t *testing.T) {
	if testing.Short() {
		t.Skip("lints huge and deep snapshots; run without -short")
	}
	manifest := `{"pilotage": "1.1", "capabilities": {"guides": true, "validate": true, "catalog": true},
	  "languages": [{"id": "h/1", "guides": "h_learn", "catalog": "h_lookup", "loop": {"validate": "h_validate"}, "locator": "json-pointer"}]}`
	snapshot := func(guides, items string) string {
		return `{"snapshot": "pilotage/1.1", "manifest": ` + manifest + `, "guides": {"h/1": ` + guides +
			`}, "catalog": {"h/1": {"catalog_version": "1", "items": ` + items + `}}}`
	}
	entry := func(id, extra string) string {
		return `{"id": "` + id + `", "kind": "table", "risk": "safe", "risk_hints": {"readOnly": true, "destructive": false, "openWorld": false}` + extra + `}`
	}
	deep := func(open, leaf, close string, n int) string {
		return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
	}
	many := make([]string, 20000)
	for i := range many {
		many[i] = entry("same", "")
	}
	// Each case names a rule that must report on it.
	tests := map[string]struct{ src, rule string }{
		"deep input_schema":           {snapshot(`[]`, `[`+entry("e", `, "input_schema": `+deep(`{"items": `, `{"type": "nope"}`, `}`, 3000))+`]`), "entry-schemas"},
		"deep unknown member":         {snapshot(`[]`, `[`+entry("e", `, "x-extra": `+deep(`[`, ``, `]`, jsonpos.MaxDepth-10))+`]`), ""},
		"too deep":                    {snapshot(`[]`, `[`+entry("e", `, "x": `+deep(`[`, ``, `]`, jsonpos.MaxDepth+1))+`]`), "json-syntax"},
		"deep capabilities":           {strings.Replace(snapshot(`[]`, `[]`), `"catalog": true}`, `"catalog": true, "plan": `+deep(`{"a": `, `true`, `}`, 5000)+`}`, 1), "schema"},
		"huge body":                   {snapshot(`[{"id": "core", "title": "c", "level": "core", "version": "1", "size_bytes": 1, "topics": ["closed-sets"], "body": "# `+strings.Repeat("|a", 1<<21)+`"}]`, `[]`), "guide-size-bytes"},
		"many topics and headings":    {snapshot(`[{"id": "core", "title": "c", "level": "core", "version": "1", "size_bytes": 1, "topics": [`+strings.Repeat(`"x", `, 50000)+`"y"], "body": "`+strings.Repeat(`## x\n`, 50000)+`"}]`, `[]`), "guide-size-bytes"},
		"20000 entries with one id":   {snapshot(`[]`, `[`+strings.Join(many, ",")+`]`), "catalog-entry-id-unique"},
		"self-referencing schema":     {snapshot(`[]`, `[`+entry("e", `, "input_schema": {"$ref": "#"}, "output_schema": {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`)+`]`), ""}, // valid: cycles are legal JSON Schema
		"remote ref is never fetched": {snapshot(`[]`, `[`+entry("e", `, "input_schema": {"$ref": "https://example.invalid/schema.json"}`)+`]`), "entry-schemas"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			rep, err := lint.Run(rules.All(), []*lint.Input{{File: "h.json", Src: []byte(tt.src)}}, lint.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Summary.Errors+rep.Summary.Warnings == 0 {
				t.Errorf("no findings on a hostile snapshot")
			}
			found := tt.rule == ""
			for _, f := range rep.Findings {
				found = found || f.Rule == tt.rule
			}
			if !found {
				t.Errorf("no %s finding among %d findings", tt.rule, len(rep.Findings))
			}
			// A generous bound: the point is "no hang", on a shared machine.
			if d := time.Since(start); d > time.Minute {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestDenseDocumentIsOneFinding: a snapshot whose member holds 4 MiB of
// one-character values, whose tree would take 20 bytes a byte, is one
// json-syntax finding at 1:1 naming the budget, made without building
// the tree (TestHostilePeakRSS in cmd measures the process), and nothing
// once json-syntax is disabled; the same values in a small snapshot,
// within the budget's allowance, are linted.
func TestDenseDocumentIsOneFinding(t *testing.T) {
	snapshot := func(n int) []byte {
		return []byte(`{"x": [` + strings.Repeat("0,", n) + `0], "snapshot": "pilotage/1.1", "manifest": {"pilotage": "1.1", "languages": []}}`)
	}
	run := func(src []byte, cfg lint.Config) []report.Finding {
		rep, err := lint.Run(rules.All(), []*lint.Input{{File: "dense.json", Src: src}}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Findings
	}
	got := run(snapshot(2<<20), lint.Config{})
	if len(got) != 1 || got[0].Rule != lint.RuleJSONSyntax || got[0].Line != 1 || got[0].Column != 1 ||
		!strings.Contains(got[0].Message, "too dense to check") || !strings.Contains(got[0].Message, "4 bytes a byte plus 6 MiB") {
		t.Errorf("findings = %+v, want one json-syntax finding at 1:1 naming the budget", got)
	}
	if got := run(snapshot(2<<20), lint.Config{Disabled: map[string]bool{lint.RuleJSONSyntax: true}}); len(got) != 0 {
		t.Errorf("with json-syntax disabled: %+v, want none", got)
	}
	for _, f := range run(snapshot(1000), lint.Config{}) {
		if f.Rule == lint.RuleJSONSyntax {
			t.Errorf("a small snapshot of the same values: %+v", f)
		}
	}
}
