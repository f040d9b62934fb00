// Package ruletest checks, in each checker's tests, that its rules keep
// the one shape of internal/base/ruleset: each found from its ID alone.
package ruletest

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
)

// RuleShape checks that every rule of a registry is found from its ID in
// one step, where its Layout says: the code file that defines it (and
// names it), its documentation (a page, or a heading of
// a page whose anchor is the ID) and its fixture. root is the repository
// root, relative to the test's folder. noFixture lists rules whose fixture
// is yet to be written; one of them that has a fixture is an error too, so
// the list only shrinks.
func RuleShape[R ruleset.Rule](t testing.TB, root string, g *ruleset.Registry[R], noFixture ...string) {
	t.Helper()
	anchors := map[string]map[string]bool{}
	for _, r := range g.All() {
		id := r.Info().ID
		code := g.Layout.CodeFile(id)
		if src, err := os.ReadFile(filepath.Join(root, code)); err != nil {
			t.Errorf("rule %s: no code file: %v", id, err)
		} else if !bytes.Contains(src, []byte(id)) {
			t.Errorf("rule %s: %s does not name it", id, code)
		}
		page, anchor, _ := strings.Cut(g.Layout.DocOf(id), "#")
		if _, ok := anchors[page]; !ok {
			src, err := os.ReadFile(filepath.Join(root, page))
			if err != nil {
				t.Errorf("rule %s: no documentation: %v", id, err)
			}
			anchors[page] = headingAnchors(src)
		}
		if anchor != "" && !anchors[page][anchor] {
			t.Errorf("rule %s: %s has no heading whose anchor is #%s", id, page, anchor)
		}
		_, err := os.Stat(filepath.Join(root, g.Layout.FixtureOf(id)))
		switch pending := slices.Contains(noFixture, id); {
		case err != nil && !pending:
			t.Errorf("rule %s: no fixture: %v", id, err)
		case err == nil && pending:
			t.Errorf("rule %s has its fixture now; take it off the list of rules without one", id)
		}
	}
}

// headingAnchors are the anchors a Markdown renderer (GitHub's) gives the
// headings of src: lower case, spaces as -, punctuation but - and _ left
// out.
func headingAnchors(src []byte) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllSubmatch(src, -1) {
		var b strings.Builder
		for _, c := range strings.ToLower(string(m[1])) {
			switch {
			case c == ' ':
				b.WriteByte('-')
			case c == '-' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c):
				b.WriteRune(c)
			}
		}
		out[b.String()] = true
	}
	return out
}
