package lint_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
// within the budget's allowance, are linted. -short's member holds
// 1 MiB, its tree still twice the budget's 10 MiB.
func TestDenseDocumentIsOneFinding(t *testing.T) {
	n := 2 << 20
	if testing.Short() {
		n = 1 << 19
	}
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
	got := run(snapshot(n), lint.Config{})
	if len(got) != 1 || got[0].Rule != lint.RuleJSONSyntax || got[0].Line != 1 || got[0].Column != 1 ||
		!strings.Contains(got[0].Message, "too dense to check") || !strings.Contains(got[0].Message, "4 bytes a byte plus 6 MiB") {
		t.Errorf("findings = %+v, want one json-syntax finding at 1:1 naming the budget", got)
	}
	if got := run(snapshot(n), lint.Config{Disabled: map[string]bool{lint.RuleJSONSyntax: true}}); len(got) != 0 {
		t.Errorf("with json-syntax disabled: %+v, want none", got)
	}
	for _, f := range run(snapshot(1000), lint.Config{}) {
		if f.Rule == lint.RuleJSONSyntax {
			t.Errorf("a small snapshot of the same values: %+v", f)
		}
	}
}

// TestLongNamesClipped: a finding quotes a Language's id, an entry's
// id, a guide's id and the values it judges clipped to 120 bytes, and
// lists of at most 20: a Language id of 1 MB quoted whole, twice, by
// the finding of each of its catalog's entries would make 195 MB of
// text report of a 4 MB snapshot of 2,000 entries. The example snapshot
// with a 200 KB Language id, guide id and catalog_version, and 300
// entries of a 200 KB kind naming an unknown Language.
func TestLongNamesClipped(t *testing.T) {
	if testing.Short() {
		t.Skip("lints a 1 MB snapshot; run without -short")
	}
	src, err := os.ReadFile(filepath.Join("..", "docs", "examples", "snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	if err := json.Unmarshal(src, &snap); err != nil {
		t.Fatal(err)
	}
	long := func(s string) string { return s + strings.Repeat("é", 100_000) }
	id := long("homeflow/v")
	manifest := snap["manifest"].(map[string]any)
	lang := manifest["languages"].([]any)[0].(map[string]any)
	lang["id"], lang["retention"] = id, long("P")
	guides := snap["guides"].(map[string]any)["homeflow/v1"].([]any)
	guides[0].(map[string]any)["id"] = long("core")
	catalog := snap["catalog"].(map[string]any)["homeflow/v1"].(map[string]any)
	catalog["catalog_version"] = long("v")
	first := catalog["items"].([]any)[0].(map[string]any)
	var items []any
	for i := range 300 {
		item := maps.Clone(first)
		item["id"], item["languages"], item["kind"] = fmt.Sprint("e", i), []any{"x"}, long("k")
		items = append(items, item)
	}
	catalog["items"] = items
	snap["guides"] = map[string]any{id: guides}
	snap["catalog"] = map[string]any{id: catalog}
	src, err = json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Run(rules.All(), []*lint.Input{{File: "long.json", Src: src}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) < 300 {
		t.Errorf("%d findings, want at least one per entry", len(rep.Findings))
	}
	for _, f := range rep.Findings {
		// A message quotes a few names, each at most 120 bytes; a list at
		// most 20 of them.
		if len(f.Message) > 2000 || len(f.Hint) > 3000 || !utf8.ValidString(f.Message) || !utf8.ValidString(f.Hint) {
			t.Errorf("%s finding of %d bytes, hint %d: %.200s…", f.Rule, len(f.Message), len(f.Hint), f.Message)
		}
	}
	for _, f := range rep.Findings {
		// The Language's id is in every guide's and entry's pointer, as
		// a stand-in of at most 120 bytes (Pass.PartPointer), placed by
		// the finding's line:col.
		if len(f.Pointer) > 300 || f.Line == 0 {
			t.Errorf("%s finding at %d:%d, pointer of %d bytes: %.200s…", f.Rule, f.Line, f.Column, len(f.Pointer), f.Pointer)
		}
	}
	for _, format := range report.Formats {
		var out bytes.Buffer
		if err := report.Write(&out, format, rep, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if out.Len() > len(src) {
			t.Errorf("%d bytes of %s report for %d bytes of snapshot", out.Len(), format, len(src))
		}
	}
}

// TestLongKeysStandIn lints a snapshot of two Languages whose ids are
// long and begin alike, and a catalog keyed by what the first one's
// stand-in would be: each gets a pointer of its own, and each finding's
// line:col is that of the value its pointer stands for.
func TestLongKeysStandIn(t *testing.T) {
	long := "homeflow/" + strings.Repeat("v", 5000)
	ids := []string{long + "a", long + "b"}
	stray := "homeflow/" + strings.Repeat("v", 107) + "…" // its pointer token is 120 bytes, as a stand-in's
	var langs []string
	guides, catalog := map[string]any{}, map[string]any{stray: map[string]any{"catalog_version": "1", "items": []any{}}}
	for _, id := range ids {
		langs = append(langs, fmt.Sprintf(`{"id": %q, "title": "H", "capabilities": {"guides": true, "catalog": true}}`, id))
		guides[id] = []any{}
		catalog[id] = map[string]any{"catalog_version": "1", "items": []any{
			map[string]any{"id": "e0", "kind": "k", "risk": "safe", "name": "E", "languages": []any{"x"}},
			map[string]any{"id": "e1", "kind": "k", "risk": "safe", "name": "E", "languages": []any{"x"}},
		}}
	}
	parts, err := json.MarshalIndent(map[string]any{"guides": guides, "catalog": catalog}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Appendf(nil, `{"snapshot": "1", "manifest": {"pilotage": "1.1", "languages": [%s]},%s`, strings.Join(langs, ",\n"), parts[1:])
	doc, err := jsonpos.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Run(rules.All(), []*lint.Input{{File: "two.json", Src: src}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// whole maps each stand-in seen to the Language whose entries it is
	// the prefix of.
	whole := map[string]string{}
	for _, f := range rep.Findings {
		before, after, ok := strings.Cut(f.Pointer, "/items/")
		if f.Rule != "catalog-entry-languages" || !ok {
			continue
		}
		if len(before) > len("/catalog/")+report.ClipBytes {
			t.Errorf("pointer %.200s… is not clipped", f.Pointer)
			continue
		}
		for _, id := range ids {
			w := "/catalog/" + strings.ReplaceAll(id, "/", "~1")
			pos := doc.Position(doc.Root.At(w + "/items/" + after).Start())
			if pos.Line == f.Line && pos.Column == f.Column {
				if prev, seen := whole[before]; seen && prev != id {
					t.Errorf("%s stands for two Languages", before)
				}
				whole[before] = id
			}
		}
	}
	if len(whole) != 2 {
		t.Errorf("stand-ins %q; want one for each Language, placed at its entries", slices.Collect(maps.Keys(whole)))
	}
	if _, ok := whole["/catalog/"+strings.ReplaceAll(stray, "/", "~1")]; ok {
		t.Errorf("a Language's entries stand under the member %q, which the snapshot has", stray)
	}
}
