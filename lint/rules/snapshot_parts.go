package rules

import (
	"fmt"
	"math"
	"mime"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// This file holds what the guide, closed-sets, risk and catalog rules
// share: how guides and entries are named in messages, and when a section
// of the closed-sets guide can be relied on.

// guideLabel names a guide in messages: by its id when it has one, by its
// position otherwise (the schema rule reports the missing id).
func guideLabel(g *lint.Guide) string {
	if g.ID != "" {
		return "guide " + report.Quote(g.ID)
	}
	return "the guide " + guideIndex(g)
}

// guideIndex names a guide by its position, as "guides[2]"; the Language
// id in its pointer is escaped and would only repeat what the message says.
func guideIndex(g *lint.Guide) string {
	return "guides[" + strconv.Itoa(g.Index()) + "]"
}

// entryLabel names a catalog entry in messages.
func entryLabel(e *lint.Entry) string {
	if e.ID != "" {
		return "catalog entry " + report.Quote(e.ID)
	}
	return "the catalog entry " + indexLabel(e.Pointer())
}

// isMarkdown reports whether the guide's media_type is Markdown, the
// default (data-model.md §5.2).
func isMarkdown(g *lint.Guide) bool {
	mt := g.Node.Get("media_type").String()
	if mt == "" {
		return true
	}
	base, _, err := mime.ParseMediaType(mt)
	return err == nil && base == "text/markdown"
}

// closedSetsGuides returns the guides of l that carry the reserved topic.
func closedSetsGuides(l *lint.Language) []*lint.Guide {
	var out []*lint.Guide
	for _, g := range l.Guides {
		if g.HasTopic(pilotage.TopicClosedSets) {
			out = append(out, g)
		}
	}
	return out
}

// section returns l's parsed closed-sets guide when it has the named
// section and that section follows the format. Rules that read a section
// rely on it only then: closed-sets-format reports a section it cannot
// read, and closed-sets-sections a missing one, so a broken table never
// cascades into findings about every value that refers to it.
func section(l *lint.Language, title string) (*lint.ClosedSets, bool) {
	cs := l.ClosedSets()
	if cs == nil || !cs.Parsed.Has(title) {
		return nil, false
	}
	for _, pr := range cs.Parsed.Problems {
		if pr.Section == title || pr.Section == "" {
			return nil, false
		}
	}
	return cs, true
}

// sectionLine is the body line of a section's heading, or of a value's
// row when the value is listed.
func sectionLine(cs *lint.ClosedSets, title, value string) int {
	if line, ok := cs.Parsed.Values[title][value]; ok {
		return line
	}
	return cs.Parsed.Sections[title].Line
}

// sizeValue reads a size: an integral JSON number (1e3 included, as JSON
// Schema counts it); ok is false for anything else. shown is the size as
// a message quotes it: its decimal digits, or the number's own text
// (clipped) from ±2^53 on, which no body's length is and a float64 cannot
// hold exactly (1e16, 1e400, a hundred thousand digits); v is then ±2^53,
// so it compares as larger (or smaller) than any length.
func sizeValue(n jsonpos.Node) (v int64, shown string, ok bool) {
	if !n.Is(jsonpos.Number) {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(n.Str(), 64)
	if math.IsInf(f, 0) || math.Abs(f) >= 1<<53 {
		return int64(math.Copysign(1<<53, f)), report.Clip(n.Str()), true
	}
	if err != nil || f != math.Trunc(f) {
		return 0, "", false
	}
	return int64(f), strconv.FormatInt(int64(f), 10), true
}

// hintsOf reads a risk_hints object whose three members are booleans; ok
// is false otherwise (the schema rule reports the malformed object).
func hintsOf(n jsonpos.Node) (h pilotage.RiskHints, ok bool) {
	ro, d, ow := n.Get("readOnly"), n.Get("destructive"), n.Get("openWorld")
	if !ro.Is(jsonpos.Bool) || !d.Is(jsonpos.Bool) || !ow.Is(jsonpos.Bool) {
		return h, false
	}
	return pilotage.RiskHints{ReadOnly: ro.Bool(), Destructive: d.Bool(), OpenWorld: ow.Bool()}, true
}

// languageIDs returns the ids of the manifest's Languages, in order and
// without repeats, and the same ids as a set for lookups.
func languageIDs(p *lint.Pass) ([]string, map[string]bool) {
	var ids []string
	set := map[string]bool{}
	for _, l := range p.Languages {
		if l.ID != "" && !set[l.ID] {
			set[l.ID] = true
			ids = append(ids, l.ID)
		}
	}
	return ids, set
}

// strayKeys reports the members of the snapshot's top-level object name
// (guides or catalog) whose key is not a Language of the manifest.
func strayKeys(p *lint.Pass, name, what string) {
	ids, known := languageIDs(p)
	obj := p.Doc.Root.Get(name)
	if !obj.Is(jsonpos.Object) {
		return // absent or malformed: the schema rule's business
	}
	for _, m := range obj.Members() {
		if known[m.Key] {
			continue
		}
		hint := fmt.Sprintf("key %q by the id of a Language of the manifest", report.Clip(name))
		if ids != nil {
			hint = nearMiss(m.Key, ids, "Language ids of the manifest")
		}
		p.ReportKey(p.PartPointer(name, m.Key),
			fmt.Sprintf("the snapshot holds %s under %q, which is not a Language of the manifest", what, report.Clip(m.Key)), hint)
	}
}

// checkEntryValues reports catalog entries whose member (kind, risk)
// holds a value that the closed-sets guide's section does not list. The
// severity follows reading 11; effect says what a client does with the
// unknown value (§1.3).
func checkEntryValues(p *lint.Pass, member, title string, listed func(*closedsets.Sets) []string, effect string) {
	for _, l := range p.Languages {
		cs, ok := section(l, title)
		if !ok || l.Catalog == nil {
			continue
		}
		values := listed(&cs.Parsed.Sets)
		known := make(map[string]bool, len(values))
		for _, v := range values {
			known[v] = true
		}
		for _, e := range l.Catalog.Entries {
			v := e.Node.Get(member)
			if !v.Is(jsonpos.String) || known[v.Str()] {
				continue
			}
			sev, ptr := p.ClosedSetSeverity(), e.Pointer()+"/"+member
			if p.CountedAs(sev, ptr) {
				continue
			}
			p.ReportAs(sev, ptr, false,
				fmt.Sprintf("%s has %s %q, which the closed-sets guide's %q do not list; %s", entryLabel(e), member, report.Clip(v.Str()), report.Clip(title), effect),
				nearMiss(v.Str(), values, "values the section lists"))
		}
	}
}

// maxSuggest bounds the sets a hint searches for a near miss: a set this
// large is not a closed set anyone misspells a member of, and comparing
// every value of a hostile document with every other would be quadratic.
const maxSuggest = 64

// nearMiss is didYouMean for sets that come from the linted document, so
// may be of any size.
func nearMiss(v string, set []string, what string) string {
	if len(set) > maxSuggest {
		return "use one of the " + what
	}
	return didYouMean(v, set)
}

// valuesOf lists the first-column values of a closed-sets table, in the
// guide's order.
func valuesOf[T any](rows []T, value func(T) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = value(r)
	}
	return out
}

// andList renders values as "a", "b" and "c": all of them, where
// quoteList offers a choice.
func andList(values []string) string {
	q := quoteList(values)
	if i := strings.LastIndex(q, `" or "`); i >= 0 {
		q = q[:i] + `" and "` + q[i+len(`" or "`):]
	}
	return q
}
