package rules

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
)

// manifestRules are the rules of the manifest, capability, retention and
// syntax categories, the ones that read a manifest's own members.
func manifestRules() []*lint.Rule {
	return rulesIn(lint.CatManifest, lint.CatCapabilities, lint.CatRetention, lint.CatSyntax)
}

// rulesIn returns the rules of the given categories.
func rulesIn(categories ...string) []*lint.Rule {
	return slices.DeleteFunc(All(), func(r *lint.Rule) bool { return !slices.Contains(categories, r.Category) })
}

// TestManifestRulesHostile feeds inputs built to hurt: many Languages, a
// deep and a self-referencing context_schema, huge strings. Each must
// finish quickly with findings, never a panic.
func TestManifestRulesHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("lints huge and deep manifests; run without -short")
	}
	var many strings.Builder
	many.WriteString(`{"pilotage": "1.1", "capabilities": {"guides": true, "validate": true, "trace_fetch": true}, "languages": [`)
	for i := range 5000 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"id": "l/%d", "guides": "", "loop": {"validate": "v", "trace": "t"}, "locator": "x", "retention": "none"}`, i%100)
	}
	many.WriteString(`]}`)
	deep := `{"pilotage": "1.1", "capabilities": {"guides": true, "validate": true}, "languages": [{"id": "a/1", "guides": "g", "loop": {"validate": "v"}, "locator": "text-range", "context_schema": ` +
		strings.Repeat(`{"items": `, 2000) + `{"type": "nope"}` + strings.Repeat(`}`, 2000) + `}]}`
	self := `{"pilotage": "1.1", "capabilities": {"guides": true, "validate": true}, "languages": [{"id": "a/1", "guides": "g", "loop": {"validate": "v"}, "locator": "text-range",
	  "context_schema": {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}}]}`
	long := `{"pilotage": "` + strings.Repeat("9", 1<<20) + `.1", "languages": [{"id": "` + strings.Repeat("/", 1<<20) +
		`", "guides": "g", "loop": {"validate": "v"}, "locator": "` + strings.Repeat("j", 1<<20) + `", "retention": "P` + strings.Repeat("9", 1<<16) + `D"}]}`
	for _, c := range []struct {
		name, src string
		want      []string // findings (as .want lines) that must be among the output
	}{
		{"many", many.String(), []string{
			"error language-id-unique §3.3 /languages/4999/id",
			"error manifest-consistency §4.3 /languages/4999/guides",
			"error retention-obligation §4.3 /languages/4999/retention",
			"error language-field-value §5.1 /languages/4999/locator",
		}},
		{"deep", deep, []string{"1:186 warning context-schema §5.1 /languages/0/context_schema"}},
		{"self-ref", self, []string{"2:22 error context-schema §5.1 /languages/0/context_schema"}},
		{"long", long, []string{
			"error pilotage-version §11.1 /pilotage",
			"error language-id §3.3 /languages/0/id",
			"error language-field-value §5.1 /languages/0/locator",
			"error retention-value §6.6 /languages/0/retention",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The bound is for hangs (quadratic blow-ups), not speed: the
			// cases take well under a second on an idle machine.
			start := time.Now()
			got := lintWith(manifestRules(), c.name+".json", []byte(c.src))
			if d := time.Since(start); d > time.Minute {
				t.Fatalf("took %v", d)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("missing finding %q in:\n%.2000s", w, got)
				}
			}
		})
	}
}

// FuzzManifestRules runs the manifest rules over arbitrary bytes, seeded
// with every fixture of their txtar files. Findings must point at a real
// position; nothing may panic.
func FuzzManifestRules(f *testing.F) { fuzzRules(f, manifestRules()) }

// fuzzRules seeds f with every .json fixture of the rules' txtar files and
// checks, for any input, that linting does not fail or panic and that every
// finding points at a real line and column of the document.
//
// -short takes one seed in four: TestRuleFixtures lints every fixture
// with its rule, and every passing one with all.
func fuzzRules(f *testing.F, rules []*lint.Rule) {
	isJSON := func(name string) bool { return strings.HasSuffix(name, ".json") }
	i := 0
	for _, r := range rules {
		for _, seed := range golden.Sections(f, filepath.Join("testdata", r.ID+".txtar"), isJSON) {
			if i++; !testing.Short() || i%4 == 1 {
				f.Add(seed)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		rep, err := lint.Run(rules, []*lint.Input{{File: "f.json", Src: src}}, lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, fd := range rep.Findings {
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 || fd.Message == "" {
				t.Fatalf("finding at %d:%d (document has %d lines): %+v", fd.Line, fd.Column, lines, fd)
			}
		}
	})
}

// BenchmarkManifestRules lints a clean manifest of 1,000 Languages, each
// declaring every capability and its own context_schema, with the
// manifest rules.
func BenchmarkManifestRules(b *testing.B) {
	var src strings.Builder
	src.WriteString(`{"pilotage": "1.1", "capabilities": {"guides": {"topic_fetch": true}, "validate": true}, "languages": [`)
	for i := range 1000 {
		if i > 0 {
			src.WriteString(",\n")
		}
		fmt.Fprintf(&src, `{"id": "w/%[1]d", "capabilities": {"catalog": {"search": true}, "plan": true, "execute": true, "trace_fetch": true},
 "guides": "w_%[1]d_learn", "catalog": "w_%[1]d_lookup", "loop": {"validate": "w_%[1]d_validate", "execute": "w_%[1]d_execute", "trace": "w_%[1]d_trace"},
 "locator": "json-pointer", "execution_mode": "both", "trace_level": "full", "retention": "P7D",
 "context_schema": {"type": "object", "properties": {"tenant_%[1]d": {"type": "string"}}}}`, i)
	}
	src.WriteString("]}")
	data := []byte(src.String())
	rules := manifestRules()
	if got := lintWith(rules, "bench.json", data); got != "" {
		b.Fatalf("benchmark input is not clean:\n%.1000s", got)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := lint.Run(rules, []*lint.Input{{File: "bench.json", Src: data}}, lint.Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCapSite checks where capability findings point (§4.2): the member
// that governs the capability — Language-level first — or, when none
// names it, the declaration it belongs in.
func TestCapSite(t *testing.T) {
	src := `{"pilotage": "1.1", "capabilities": {"plan": true},
	  "languages": [
	    {"id": "a/1", "capabilities": {"plan": false}},
	    {"id": "b/1", "capabilities": {}},
	    {"id": "c/1"}
	  ]}`
	noServer := `{"pilotage": "1.1", "languages": [{"id": "d/1"}]}`
	for _, c := range []struct {
		src      string
		lang     int
		cap      string
		wantPtr  string
		wantKey  bool
		language string
	}{
		{src, 0, "plan", "/languages/0/capabilities/plan", true, "a/1"}, // Language-level governs
		{src, 1, "plan", "/capabilities/plan", true, "b/1"},             // Server-level governs
		{src, 1, "execute", "/languages/1/capabilities", false, "b/1"},  // add it to the Language's declaration
		{src, 2, "execute", "/capabilities", false, "c/1"},              // or to the Server-level one
		{noServer, 0, "execute", "/languages/0", false, "d/1"},          // or to the entry itself
	} {
		var got string
		var key bool
		probe := &lint.Rule{ID: "probe", Check: func(p *lint.Pass) {
			l := p.Languages[c.lang]
			if l.ID != c.language {
				t.Fatalf("language %d is %q", c.lang, l.ID)
			}
			got, key = capSite(p, l, c.cap)
		}}
		if _, err := lint.Run([]*lint.Rule{probe}, []*lint.Input{{File: "x.json", Src: []byte(c.src)}}, lint.Config{}); err != nil {
			t.Fatal(err)
		}
		if got != c.wantPtr || key != c.wantKey {
			t.Errorf("%s %s: capSite = %q key=%v, want %q key=%v", c.language, c.cap, got, key, c.wantPtr, c.wantKey)
		}
	}
}

// TestSizeValue: a size past 2^53, which a float64 cannot hold exactly,
// still compares as larger than any body and is quoted as written, not
// skipped (lint passed a guide whose size_bytes was 1e16).
func TestSizeValue(t *testing.T) {
	for _, c := range []struct {
		src   string
		v     int64
		shown string
		ok    bool
	}{
		{"14", 14, "14", true},
		{"1e3", 1000, "1000", true},
		{"1e16", 1 << 53, "1e16", true},
		{"9223372036854775807", 1 << 53, "9223372036854775807", true},
		{"9007199254740993", 1 << 53, "9007199254740993", true}, // rounds to 2^53 as a float64
		{"9007199254740991", 1<<53 - 1, "9007199254740991", true},
		{"1e400", 1 << 53, "1e400", true},
		{"-1e400", -(1 << 53), "-1e400", true},
		{strings.Repeat("9", 100_000), 1 << 53, strings.Repeat("9", 117) + "…", true},
		{"1.5", 0, "", false},
		{`"14"`, 0, "", false},
	} {
		doc, err := jsonpos.Parse([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		v, shown, ok := sizeValue(doc.Root)
		if v != c.v || shown != c.shown || ok != c.ok {
			t.Errorf("sizeValue(%.20s) = %d, %.30q, %v; want %d, %.30q, %v", c.src, v, shown, ok, c.v, c.shown, c.ok)
		}
	}
}
