package pdl

import (
	"os"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// TestRulesDocumented keeps the rule table of docs/pdl.md#diagnostics and
// Rules in step: the same IDs in the same order, so `lint --list-rules`,
// sarif's rule list and the reference never disagree.
func TestRulesDocumented(t *testing.T) {
	src, err := os.ReadFile("../../docs/pdl.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	md := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(md, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		row, ok := n.(*east.TableRow)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if code, ok := row.FirstChild().FirstChild().(*ast.CodeSpan); ok {
			if id := codeText(code, src); strings.HasPrefix(id, "pdl-") {
				documented = append(documented, id)
			}
		}
		return ast.WalkSkipChildren, nil
	})
	var ids []string
	for _, r := range Rules {
		ids = append(ids, r.ID)
		if r.Category != "pdl" || r.Section == "" || r.Summary == "" || r.Severity == "" || r.Doc != doc {
			t.Errorf("rule %s is incomplete: %+v", r.ID, r)
		}
	}
	if strings.Join(documented, " ") != strings.Join(ids, " ") {
		t.Errorf("docs/pdl.md lists\n  %s\nRules has\n  %s", strings.Join(documented, " "), strings.Join(ids, " "))
	}
}

// codeText is the text of a code span: its text children's segments.
func codeText(code *ast.CodeSpan, src []byte) string {
	var b strings.Builder
	for c := code.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	return b.String()
}
