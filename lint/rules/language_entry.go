package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/lint"
)

// This file holds what the manifest and capability rules share: how a
// Language entry is named in messages and where a capability of a
// Language is decided, so that every rule points at the same place.

// langLabel names a Language in messages: by its id when it has one, by
// its position in `languages` otherwise (the schema rule reports the
// missing id).
func langLabel(l *lint.Language) string {
	if l.ID != "" {
		return "Language " + report.Quote(l.ID)
	}
	return "the Language entry " + indexLabel(l.Pointer)
}

// indexLabel turns ".../languages/2" into "languages[2]", and
// "/guides/a~11/0" into "\"a/1\"[0]".
func indexLabel(pointer string) string {
	i := strings.LastIndexByte(pointer, '/')
	if i < 0 {
		return pointer
	}
	rest := pointer[:i]
	parent := unescapeToken(rest[strings.LastIndexByte(rest, '/')+1:])
	if strings.Trim(parent, "abcdefghijklmnopqrstuvwxyz_") != "" {
		parent = report.Quote(parent)
	}
	return parent + "[" + pointer[i+1:] + "]"
}

// tokenUnescaper undoes the RFC 6901 escapes; made once, as a Replacer
// builds its tables on first use (a dense document names thousands of
// tokens).
var tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// unescapeToken undoes the RFC 6901 escapes of one pointer token.
func unescapeToken(t string) string {
	return tokenUnescaper.Replace(t)
}

// serverCaps returns the Server-level capability declaration node and its
// pointer; the node is the zero Node when the manifest has none.
func serverCaps(p *lint.Pass) (jsonpos.Node, string) {
	return p.Manifest.Get("capabilities"), p.ManifestPtr + "/capabilities"
}

// capSite returns where capability c of Language l is decided (§4.2):
// the Language-level member naming c, else the Server-level member naming
// c, with key true ("this member says so"). When neither names c it
// returns, with key false, the declaration the capability belongs in: the
// Language-level one, else the Server-level one, else the Language entry.
func capSite(p *lint.Pass, l *lint.Language, c string) (pointer string, key bool) {
	lc, lptr := l.Node.Get("capabilities"), l.Pointer+"/capabilities"
	sc, sptr := serverCaps(p)
	tok := "/" + pilotage.EscapePointerToken(c)
	switch {
	case lc.Is(jsonpos.Object) && lc.Has(c):
		return lptr + tok, true
	case sc.Is(jsonpos.Object) && sc.Has(c):
		return sptr + tok, true
	case lc.Is(jsonpos.Object):
		return lptr, false
	case sc.Is(jsonpos.Object):
		return sptr, false
	}
	return l.Pointer, false
}

// capMalformed reports whether the member that governs capability c of l
// is neither a boolean nor an object. The pass leaves such values out of
// the effective map and the schema rule reports them, so rules about c
// stay silent rather than report a consequence.
func capMalformed(p *lint.Pass, l *lint.Language, c string) bool {
	ptr, key := capSite(p, l, c)
	if !key {
		return false
	}
	n := p.Doc.Root.At(ptr)
	return !n.Is(jsonpos.Bool) && !n.Is(jsonpos.Object)
}

// reportCap reports a finding about capability c of l at the place capSite
// chooses.
func reportCap(p *lint.Pass, l *lint.Language, c, message, hint string) {
	if ptr, key := capSite(p, l, c); key {
		p.ReportKey(ptr, message, hint)
	} else {
		p.Report(ptr, message, hint)
	}
}

// stringField returns the string value of member name of the Language
// entry and whether the member is a string; other types are the schema
// rule's business.
func stringField(l *lint.Language, name string) (string, bool) {
	n := l.Node.Get(name)
	return n.String(), n.Is(jsonpos.String)
}

// quoteList renders values as "a", "b" or "c".
func quoteList(values []string) string {
	q := report.Clips(values)
	if len(q) > report.ClipNames {
		return quoteAll(values) // "or" would read as one of them
	}
	q = slices.Clone(q)
	for i, v := range q {
		q[i] = strconv.Quote(v)
	}
	return orList(q)
}

// quoteAll renders values as "a", "b", "c".
func quoteAll(values []string) string {
	q := slices.Clone(report.Clips(values))
	for i, v := range q[:min(len(q), report.ClipNames)] {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// didYouMean returns a hint naming the closest value of set to s ("did you
// mean"), or listing the set when nothing is close.
func didYouMean(s string, set []string) string {
	if c := suggest.Closest(s, set); c != "" {
		return fmt.Sprintf("did you mean %q? The values are %s", report.Clip(c), quoteList(set))
	}
	return "the values are " + quoteList(set)
}
