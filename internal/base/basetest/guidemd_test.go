package basetest_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
)

func TestGuidemdTopics(t *testing.T) {
	body := "# Getting started\n\nIntro.\n\n## First program\n\n```\n## not a heading\n```\n\nReading Results\n---------------\n\n> ## Quoted heading\n\n- ## Listed heading\n\n###   Spaces  Around  ###\n"
	doc, err := guidemd.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	got := guidemd.Topics(doc, []byte(body))
	// Headings inside a fence, a quote or a list are not topics: only a
	// top-level heading starts a section a topic fetch can return.
	want := []string{"getting-started", "first-program", "reading-results", "spaces--around"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Topics = %q, want %q", got, want)
	}
}

func TestGuidemdSlug(t *testing.T) {
	for in, want := range map[string]string{"First program": "first-program", "  API ": "api", "Scope Rules": "scope-rules", "a-b c": "a-b-c"} {
		if got := guidemd.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGuidemdParseBounds(t *testing.T) {
	cases := map[string]struct {
		body string
		line int
	}{
		"too large":     {strings.Repeat("a", guidemd.MaxBodyBytes+1), 1},
		"deep quotes":   {"ok\n\n" + strings.Repeat("> ", guidemd.MaxNesting+1) + "x\n", 3},
		"deep lists":    {strings.Repeat("- ", guidemd.MaxNesting+1) + "x", 1},
		"deep ordered":  {"a\nb\n" + strings.Repeat("1. ", guidemd.MaxNesting+1) + "x", 3},
		"deep indented": {"x\n" + strings.Repeat(" ", 4*guidemd.MaxNesting+4) + "- x", 2},
		// Each small block is some hundreds of bytes of syntax tree.
		"many items":    {strings.Repeat("- a\n", 250_000), guidemd.MaxBlocks/2 + 1},
		"many headings": {strings.Repeat("## h\n", 200_000), guidemd.MaxBlocks + 1},
		"wide table":    {"|" + strings.Repeat("a|", 100_000) + "\n|" + strings.Repeat("-|", 100_000) + "\n", 1},
		"quoted cells":  {strings.Repeat("> a | b\n", guidemd.MaxBlocks), guidemd.MaxBlocks/3 + 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := guidemd.Parse([]byte(c.body))
			var tc *guidemd.TooComplexError
			if !errors.As(err, &tc) {
				t.Fatalf("Parse = %v, want a TooComplexError", err)
			}
			if tc.Line != c.line {
				t.Errorf("reported at line %d, want %d: %v", tc.Line, c.line, tc)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refusing took %v", d)
			}
		})
	}
	// At the bound, the body is parsed.
	at := strings.Repeat("> ", guidemd.MaxNesting) + "x\n" + strings.Repeat("- ", guidemd.MaxNesting) + "y\n"
	if _, err := guidemd.Parse([]byte(at)); err != nil {
		t.Errorf("nesting exactly %d must parse: %v", guidemd.MaxNesting, err)
	}
	// MaxBlocks lines, the last one empty, are parsed.
	if _, err := guidemd.Parse([]byte(strings.Repeat("## h\n", guidemd.MaxBlocks-1))); err != nil {
		t.Errorf("%d blocks must parse: %v", guidemd.MaxBlocks, err)
	}
	// Check reads the body in place: refusing costs nothing but time.
	body := []byte(strings.Repeat("- a\n", 250_000))
	if n := testing.AllocsPerRun(3, func() { _ = guidemd.Check(body[:guidemd.MaxBlocks]) }); n != 0 {
		t.Errorf("Check of a body it takes allocated %v times", n)
	}
}

// Bodies just under MaxBodyBytes and MaxBlocks built from what makes Markdown parsers
// slow: goldmark's link parser took 28 s on 200 KB of "[a](" and 19 s on
// '['s then ']'s before guidemd stopped parsing inline content (and grows
// with the square of the size). Each must now parse in well under the
// generous bound, and a table and a heading in it are still read.
func TestGuidemdHostileBodiesAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("parses megabytes of hostile Markdown; run without -short")
	}
	// As many units as the bounds take: bytes, and blocks, a unit's
	// being its lines and table cells.
	fill := func(unit string) string {
		n := (guidemd.MaxBodyBytes - 100) / len(unit)
		if blocks := strings.Count(unit, "\n") + strings.Count(unit, "|"); blocks > 0 {
			n = min(n, (guidemd.MaxBlocks-10)/blocks)
		}
		return strings.Repeat(unit, n)
	}
	half := (guidemd.MaxBodyBytes - 100) / 2
	for name, body := range map[string]string{
		"unclosed links":   fill("[a]("),
		"brackets":         strings.Repeat("[", half) + strings.Repeat("]", half),
		"images":           fill("!["),
		"link definitions": fill("[a]: b\n"),
		"emphasis":         fill("**_"),
		"code spans":       fill("a`"),
		"autolinks":        fill("<a:"),
		"table rows":       "| a | b |\n|---|---|\n" + fill("| [x]( | *y |\n"),
	} {
		t.Run(name, func(t *testing.T) {
			src := []byte("# Top\n\n" + body)
			start := time.Now()
			doc, err := guidemd.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("parsing %d bytes took %v", len(src), d)
			}
			if got := guidemd.Topics(doc, src); len(got) == 0 || got[0] != "top" {
				t.Errorf("topics %q, want the heading \"top\" first", got)
			}
		})
	}
}

// FuzzGuidemdParse checks that Parse and Topics never panic, that Parse ends
// within a bound far above its linear cost, and that every topic is a
// slug (lower case, no spaces).
func FuzzGuidemdParse(f *testing.F) {
	f.Add([]byte("# A\n\n## B c\n\nText.\n"))
	f.Add([]byte("> - 1. ## x\n"))
	// The shapes that were quadratic (TestGuidemdHostileBodiesAreCheap), small,
	// for the fuzzer to grow and vary.
	f.Add([]byte(strings.Repeat("[a](", 64)))
	f.Add([]byte(strings.Repeat("[a]: b\n", 64)))
	f.Fuzz(func(t *testing.T, body []byte) {
		start := time.Now()
		doc, err := guidemd.Parse(body)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("parsing %d bytes took %v", len(body), d)
		}
		if err != nil {
			return
		}
		for _, topic := range guidemd.Topics(doc, body) {
			if topic != guidemd.Slug(topic) {
				t.Fatalf("topic %q is not a slug", topic)
			}
		}
	})
}
