package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
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
			now, before := entriesByID(p, l.Catalog), entriesByID(p.Baseline, old.Catalog)
			if !v.Is(jsonpos.String) || !ov.Is(jsonpos.String) || now == nil || before == nil {
				continue
			}
			related := p.Baseline.Location(old.Catalog.Pointer+"/catalog_version", "the baseline's catalog_version")
			changes := catalogChanges(now, before)
			switch {
			case len(changes) > 0 && v.Str() == ov.Str():
				p.ReportRelated(report.Error, l.Catalog.Pointer+"/catalog_version",
					fmt.Sprintf("the catalog of %s changed since the baseline (%s) but catalog_version is still %s",
						langLabel(l), summarize(changes), strconv.Quote(v.Str())),
					"compute catalog_version from every defined field of every visible entry except revision, so it changes with them",
					related)
			case len(changes) == 0 && v.Str() != ov.Str():
				p.ReportRelated(report.Warning, l.Catalog.Pointer+"/catalog_version",
					fmt.Sprintf("the catalog of %s is the same as in the baseline but catalog_version changed from %s to %s, which refuses Clients' executions as catalog_drift for nothing",
						langLabel(l), strconv.Quote(ov.Str()), strconv.Quote(v.Str())),
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

// entriesByID maps each entry id of a catalog to its defined fields in a
// canonical JSON form (members sorted, numbers normalised), so a capture
// that merely orders members or entries differently is the same catalog.
// An empty array is left out like an absent field: §1.4, "Receivers MUST
// treat them identically", so `languages: []` for no `languages` is no
// change the token must follow. It returns nil when an id is missing or
// repeats (the schema and catalog-entry-id-unique rules report those):
// entries cannot be paired.
func entriesByID(p *lint.Pass, c *lint.Catalog) map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	for _, e := range c.Entries {
		if e.ID == "" || out[e.ID] != nil {
			return nil
		}
		fields := map[string][]byte{}
		for _, f := range entryFields {
			var v any
			if n := e.Node.Get(f); n.Exists() && p.Decode(n, &v) {
				if a, ok := v.([]any); ok && len(a) == 0 {
					continue
				}
				fields[f], _ = json.Marshal(v)
			}
		}
		out[e.ID] = fields
	}
	return out
}

// catalogChanges lists what differs between two catalogs, one phrase per
// entry: added and changed entries by id, then removed ones by id.
func catalogChanges(now, before map[string]map[string][]byte) []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(now)) {
		old, ok := before[id]
		if !ok {
			out = append(out, "entry "+strconv.Quote(id)+" added")
			continue
		}
		var fields []string
		for _, f := range entryFields {
			if !bytes.Equal(now[id][f], old[f]) {
				fields = append(fields, f)
			}
		}
		if len(fields) > 0 {
			out = append(out, "entry "+strconv.Quote(id)+" changed its "+strings.Join(fields, ", "))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(before)) {
		if _, ok := now[id]; !ok {
			out = append(out, "entry "+strconv.Quote(id)+" removed")
		}
	}
	return out
}

// summarize names the first changes and counts the rest, so the message
// stays one line on a catalog of thousands of entries.
func summarize(changes []string) string {
	const shown = 3
	if len(changes) <= shown {
		return strings.Join(changes, "; ")
	}
	return strings.Join(changes[:shown], "; ") + fmt.Sprintf("; and %d more", len(changes)-shown)
}

func init() { register(catalogVersionChange) }
