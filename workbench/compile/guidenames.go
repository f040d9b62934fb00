package compile

import (
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// checkGuideNames reports a guide, prose or example, that names a catalog
// entry some principal may not see from the guide's Language (§10.3:
// discovery feedback MUST NOT leak what a caller may not know). Guides
// are the same for every caller of a Language, so a guest's learn would
// hand it a name its validate calls nonexistent. Each name is reported
// once per guide, at its first occurrence, with the principals that may
// not see it. Without principals every caller sees every entry.
//
// The body is cut into words of the characters entry ids are made of and
// each word looked up, so the work is linear in the bodies whatever the
// size of the catalog.
func (c *compiler) checkGuideNames() {
	if len(c.srv.Principals) == 0 {
		return
	}
	for _, ls := range c.langs {
		for j, g := range ls.lang.Guides {
			if g.Generated || j >= len(ls.guideStmts) {
				continue
			}
			reported := map[string]bool{}
			for _, w := range idWords(g.Body) {
				e := c.entryByID[w.text]
				if e == nil || reported[w.text] {
					continue
				}
				reported[w.text] = true
				if blind := c.blindTo(e.e, ls.lang.ID); len(blind) > 0 {
					c.add(pdl.Errorf(pdl.RuleGuideName, c.bodyPos(ls.guideStmts[j], w.line, w.col), c.bodyPos(ls.guideStmts[j], w.line, w.col+len(w.text)),
						"name only entries every principal sees from the Language (give the others their own guide in a Language only they use), or describe them without the name",
						"guide "+g.ID+" of "+ls.lang.ID+" names "+w.text+", which "+principals(blind)+" may not see: every caller of the Language reads the guide (§10.3)"))
				}
			}
		}
	}
}

// principals writes names as "principal a" or "principals a and b".
func principals(names []string) string {
	if len(names) == 1 {
		return "principal " + names[0]
	}
	return "principals " + andWords(names)
}

// blindTo lists the principals that may not see e from Language langID:
// e is not in that Language, or none of their patterns matches its id.
func (c *compiler) blindTo(e *language.Entry, langID string) []string {
	var out []string
	for _, p := range c.srv.Principals {
		sees := len(e.Languages) == 0 || slices.Contains(e.Languages, langID)
		sees = sees && p.SeesID(e.ID)
		if !sees {
			out = append(out, p.Name)
		}
	}
	return out
}

// idWord is a run of entry-id characters in a guide body, at its 1-based
// line and column (in bytes).
type idWord struct {
	text      string
	line, col int
}

// idWords cuts body into runs of the characters entry ids use (letters,
// digits and _ . @ - / :), without a trailing dot, which ends a sentence.
// A run without . @ / or : reads as an id only when quoted (after ` " or
// '): the room entry living is named in `'living'`, not in "the living
// room".
func idWords(body string) []idWord {
	var out []idWord
	line, lineStart, start := 1, 0, -1
	flush := func(end int) {
		if start >= 0 {
			w := strings.TrimRight(body[start:end], ".")
			quoted := start > 0 && strings.IndexByte("`\"'", body[start-1]) >= 0
			if w != "" && (quoted || strings.ContainsAny(w, ".@/:")) {
				out = append(out, idWord{text: w, line: line, col: start - lineStart + 1})
			}
			start = -1
		}
	}
	for i := 0; i < len(body); i++ {
		ch := body[i]
		if idChar(ch) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		if ch == '\n' {
			line, lineStart = line+1, i+1
		}
	}
	flush(len(body))
	return out
}

func idChar(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("_.@-/:", ch) >= 0
}
