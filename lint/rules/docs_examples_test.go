package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestManifestRuleDocExamples keeps the docs pages of the manifest rules
// honest: the failing example raises the rule, and the fixed example is
// clean under every rule.
func TestManifestRuleDocExamples(t *testing.T) {
	for _, r := range manifestRules() {
		t.Run(r.ID, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "..", "docs", "rules", r.ID+".md"))
			if err != nil {
				t.Fatal(err)
			}
			ex := jsonExamples(src)
			fail, fixed := ex["Failing example"], ex["Fixed example"]
			if fail == "" || fixed == "" {
				t.Fatalf("docs/rules/%s.md needs a json block under each of \"Failing example\" and \"Fixed example\"", r.ID)
			}
			if got := lintWith(rulesIn(r.Category), "failing.json", []byte(fail)); !strings.Contains(got, " "+r.ID+" ") {
				t.Errorf("the failing example does not raise %s; got:\n%s", r.ID, got)
			}
			if got := lintWith(All(), "fixed.json", []byte(fixed)); got != "" {
				t.Errorf("the fixed example is not clean:\n%s", got)
			}
		})
	}
}

// jsonExamples maps each level-2 heading of a Markdown page to the first
// json code block under it.
func jsonExamples(src []byte) map[string]string {
	out := map[string]string{}
	heading := ""
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch b := n.(type) {
		case *ast.Heading:
			if b.Level == 2 {
				heading = string(b.Lines().Value(src))
			}
		case *ast.FencedCodeBlock:
			if string(b.Language(src)) != "json" || out[heading] != "" {
				continue
			}
			var code strings.Builder
			for i := 0; i < b.Lines().Len(); i++ {
				seg := b.Lines().At(i)
				code.Write(seg.Value(src))
			}
			out[heading] = code.String()
		}
	}
	return out
}
