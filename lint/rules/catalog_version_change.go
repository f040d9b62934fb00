package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// catalogVersionChange checks §5.4 across two captures of one catalog: the
// token "MUST change whenever" a visible entry is added or removed or "any
// defined field of a visible entry changes, except revision", and "SHOULD
// NOT change for any other reason". An unchanged token over a changed
// catalog lets a Client execute against a vocabulary it never validated
// (no catalog_drift); a changed token over an unchanged catalog causes
// avoidable drift refusals. Both captures must be made in the same
// authorization scope, since the token covers only the visible catalog.
var catalogVersionChange = &lint.Rule{
	ID:       "catalog-version-change",
	Category: lint.CatEvolution,
	Section:  "5.4",
	Severity: report.Error,
	Summary:  "`catalog_version` must change when a catalog entry is added, removed or changed since the baseline, and should not change otherwise.",
	Check: func(p *lint.Pass) {
		for _, pair := range p.BaselinePairs() {
			l, old := pair.Now, pair.Before
			if l.Catalog == nil || old.Catalog == nil {
				continue
			}
			v, ov := l.Catalog.Node.Get("catalog_version"), old.Catalog.Node.Get("catalog_version")
			now, before := entriesByID(l.Catalog), entriesByID(old.Catalog)
			if !v.Is(jsonpos.String) || !ov.Is(jsonpos.String) || now == nil || before == nil {
				continue
			}
			related := p.Baseline.Location(old.Catalog.Pointer+"/catalog_version", "the baseline's catalog_version")
			changes := catalogChanges(p, now, before)
			switch {
			case changes.n > 0 && v.Str() == ov.Str():
				p.ReportRelated(report.Error, l.Catalog.Pointer+"/catalog_version",
					fmt.Sprintf("the catalog of %s changed since the baseline (%s) but catalog_version is still %s",
						langLabel(l), changes, report.Quote(v.Str())),
					"compute catalog_version from every defined field of every visible entry except revision, so it changes with them",
					related)
			case changes.n == 0 && v.Str() != ov.Str():
				p.ReportRelated(report.Warning, l.Catalog.Pointer+"/catalog_version",
					fmt.Sprintf("the catalog of %s is the same as in the baseline but catalog_version changed from %s to %s, which refuses Clients' executions as catalog_drift for nothing",
						langLabel(l), report.Quote(ov.Str()), report.Quote(v.Str())),
					"derive catalog_version from the visible entries only (not from time, revision or entries the Client cannot see)",
					related)
			}
		}
	},
}

// entryFields are the defined fields of a catalog entry (data-model.md
// §5.4) whose change must change catalog_version: all but revision. A
// member the spec does not define is not compared.
var entryFields = []string{"id", "kind", "name", "description", "tags", "languages",
	"input_schema", "output_schema", "risk", "risk_hints"}

// entriesByID maps each entry id of a catalog to its entry. It returns
// nil when an id is missing or repeats (the schema and
// catalog-entry-id-unique rules report those): entries cannot be paired.
func entriesByID(c *lint.Catalog) map[string]*lint.Entry {
	out := make(map[string]*lint.Entry, len(c.Entries))
	for _, e := range c.Entries {
		if e.ID == "" || out[e.ID] != nil {
			return nil
		}
		out[e.ID] = e
	}
	return out
}

// changes counts what differs between two catalogs, one phrase per
// entry, and keeps the first phrases, which the message names.
type changes struct {
	first []string
	n     int
}

// shownChanges is how many changes a message names before it counts the
// rest, so that it stays one line on a catalog of thousands of entries.
const shownChanges = 3

func (c *changes) add(phrase string) {
	if c.n < shownChanges {
		c.first = append(c.first, phrase)
	}
	c.n++
}

// String names the first changes and counts the rest.
func (c changes) String() string {
	s := strings.Join(c.first, "; ")
	if c.n > len(c.first) {
		s += fmt.Sprintf("; and %d more", c.n-len(c.first))
	}
	return s
}

// catalogChanges finds what differs between the catalogs of p and of its
// baseline: added and changed entries by id, then removed ones by id.
// Entries are compared a pair at a time, as they are read: holding both
// catalogs in a canonical form took 14 bytes a byte of a large baseline.
func catalogChanges(p *lint.Pass, now, before map[string]*lint.Entry) changes {
	var out changes
	for _, id := range slices.Sorted(maps.Keys(now)) {
		old, ok := before[id]
		if !ok {
			out.add("entry " + report.Quote(id) + " added")
			continue
		}
		if fields := changedFields(p, now[id], old); len(fields) > 0 {
			out.add("entry " + report.Quote(id) + " changed its " + strings.Join(fields, ", "))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(before)) {
		if _, ok := now[id]; !ok {
			out.add("entry " + report.Quote(id) + " removed")
		}
	}
	return out
}

// changedFields lists the defined fields in which entry e of p differs
// from old of p's baseline. Values of the same text are the same, and
// only others are compared in their canonical form.
func changedFields(p *lint.Pass, e, old *lint.Entry) []string {
	var fields []string
	for _, f := range entryFields {
		n, o := e.Node.Get(f), old.Node.Get(f)
		if n.Exists() && o.Exists() && bytes.Equal(p.Doc.Raw(n), p.Baseline.Doc.Raw(o)) {
			continue
		}
		if !bytes.Equal(canonical(p, n), canonical(p.Baseline, o)) {
			fields = append(fields, f)
		}
	}
	return fields
}

// canonical is the value at n of p's document in a canonical JSON form
// (members sorted, numbers normalised), so a capture that merely orders
// members differently has the same entries; nil when it is absent, and
// for an empty array too, as for an absent field: §1.4, "Receivers MUST
// treat them identically", so `languages: []` for no `languages` is no
// change the token must follow.
func canonical(p *lint.Pass, n jsonpos.Node) []byte {
	var v any
	if !n.Exists() || !p.Decode(n, &v) {
		return nil
	}
	if a, ok := v.([]any); ok && len(a) == 0 {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

func init() { register(catalogVersionChange) }
