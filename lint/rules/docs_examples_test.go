package rules

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestRuleDocExamples keeps every rule's page in docs/rules runnable and
// true. A page's "## Failing example" and "## Fixed example" sections each
// hold one complete document, the first ```json block under the heading,
// that a reader can save as failing.json or fixed.json and lint as it is:
//
//   - the failing document raises the page's rule, and the section's
//     ```console block is "$ pilotage lint failing.json" followed by the
//     first line that command prints, a finding of the page's rule;
//   - the fixed document is clean under every rule;
//   - a ```markdown block under either heading is an excerpt shown for
//     reading (a closed-sets table is hard to read inside a JSON string):
//     it must occur verbatim in the body of a guide of that document;
//   - a page of an evolution rule, which compares two captures, has a
//     "## Baseline" section whose first ```json block is the earlier
//     capture, saved as baseline.json: both examples are linted with
//     --baseline baseline.json, and the console block's command says so.
//
// The documents are linted the way `pilotage lint` lints a JSON file
// (every rule, text output), so a page cannot drift from the tool.
func TestRuleDocExamples(t *testing.T) {
	for _, r := range All() {
		t.Run(r.ID, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules", r.ID+".md"))
			if err != nil {
				t.Fatal(err)
			}
			sections := codeBlocks(src)
			fail, fixed := sections["Failing example"], sections["Fixed example"]
			failDoc, fixedDoc := fail.first("json"), fixed.first("json")
			if failDoc == "" || fixedDoc == "" {
				t.Fatalf("docs/rules/%s.md needs a json block under each of \"Failing example\" and \"Fixed example\"", r.ID)
			}
			wantCmd, base := "$ pilotage lint failing.json", (*lint.Input)(nil)
			if b := sections["Baseline"].first("json"); b != "" {
				wantCmd, base = "$ pilotage lint --baseline baseline.json failing.json", &lint.Input{File: "baseline.json", Src: []byte(b)}
			} else if r.Category == lint.CatEvolution {
				t.Fatalf("docs/rules/%s.md compares two captures and needs a json block under \"Baseline\"", r.ID)
			}

			if got := lintAgainst(All(), "failing.json", []byte(failDoc), base); !strings.Contains(got, " "+r.ID+" ") {
				t.Errorf("the failing example does not raise %s; got:\n%s", r.ID, got)
			}
			cmd, want, _ := strings.Cut(strings.TrimSpace(fail.first("console")), "\n")
			if cmd != wantCmd || strings.Contains(want, "\n") {
				t.Errorf("under \"Failing example\", a console block must hold %q and the first line it prints, got:\n%s", wantCmd, fail.first("console"))
			}
			if got := firstTextLine(t, "failing.json", failDoc, base); want != got {
				t.Errorf("the page says pilotage lint failing.json prints first\n  %s\nbut it prints\n  %s", want, got)
			}
			// A finding may cite a more specific section than its rule's
			// (schema: the member's field table), so only the rule is pinned.
			if tag := " [" + r.ID + " "; !strings.Contains(want, tag) || !strings.HasSuffix(want, "]") {
				t.Errorf("the first finding of the failing example should be %s's, ending in [%s §…]", r.ID, r.ID)
			}

			if got := lintAgainst(All(), "fixed.json", []byte(fixedDoc), base); got != "" {
				t.Errorf("the fixed example is not clean:\n%s", got)
			}

			for _, s := range []struct {
				name string
				doc  string
				b    blocks
			}{{"Failing example", failDoc, fail}, {"Fixed example", fixedDoc, fixed}} {
				for _, excerpt := range s.b["markdown"] {
					if !inGuideBody(s.doc, excerpt) {
						t.Errorf("the markdown block under %q is not part of any guide body of its document:\n%s", s.name, excerpt)
					}
				}
			}
		})
	}
}

// firstTextLine is the first line `pilotage lint NAME` prints for doc
// (with --baseline when base is not nil).
func firstTextLine(t *testing.T, name, doc string, base *lint.Input) string {
	t.Helper()
	rep, err := lint.Run(All(), []*lint.Input{{File: name, Src: []byte(doc)}}, lint.Config{Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.Write(&out, report.Text, rep, report.Options{}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	return first
}

// inGuideBody reports whether excerpt occurs in the body of one of the
// snapshot doc's guides.
func inGuideBody(doc, excerpt string) bool {
	var snap struct {
		Guides map[string][]struct{ Body string }
	}
	if json.Unmarshal([]byte(doc), &snap) != nil {
		return false
	}
	for _, gs := range snap.Guides {
		for _, g := range gs {
			if strings.Contains(g.Body, excerpt) {
				return true
			}
		}
	}
	return false
}

// blocks are the fenced code blocks of one section, by info-string language,
// in page order.
type blocks map[string][]string

func (b blocks) first(lang string) string {
	if len(b[lang]) == 0 {
		return ""
	}
	return b[lang][0]
}

// codeBlocks maps each level-2 heading of a Markdown page to the fenced
// code blocks under it (at the top level of the page).
func codeBlocks(src []byte) map[string]blocks {
	out := map[string]blocks{}
	heading := ""
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.Heading:
			if b.Level == 2 {
				heading = string(b.Lines().Value(src))
				out[heading] = blocks{}
			}
		case *ast.FencedCodeBlock:
			if heading == "" {
				continue
			}
			var code strings.Builder
			for i := 0; i < b.Lines().Len(); i++ {
				seg := b.Lines().At(i)
				code.Write(seg.Value(src))
			}
			lang := string(b.Language(src))
			out[heading][lang] = append(out[heading][lang], code.String())
		}
	}
	return out
}
