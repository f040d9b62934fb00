package conform

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// Probes of the refusals Part II fixes exactly. Without --execute they
// only read (lookup, validate, trace fetch); with it they send execute
// requests that a conformant server refuses before anything runs
// (§6.5.2 steps 1 to 3), so only a broken server can act on them.

// unknownLevel is a trace_level no Language recognizes (§5.8.1).
const unknownLevel = "pilotage-conform-unknown-level"

// absentSuffix turns a catalog id into a name that cannot exist while
// keeping its lexical shape, so the program stays well-formed and the
// name is unknown rather than a syntax error.
const absentSuffix = "conformabsent"

// requestErrorOf checks that a is a request error, of kind want unless
// want is "", and returns its kind and message. why says where the spec
// fixes the answer.
func (c *checker) requestErrorOf(rule string, a answer, what, want, why string) (kind, message string, ok bool) {
	wanted := "a request error"
	if want != "" {
		wanted += " of kind " + want
	}
	switch {
	case a.err != nil && c.stopped != nil:
		c.fail(RuleOperationAnswers, a.op, "", a.err, "%s: ", what)
	case a.err != nil:
		c.find(rule, a.op, "", "%s was answered with a JSON-RPC error (%v); it is %s: isError true with the error envelope (%s)", what, a.err, wanted, why)
	case !a.isError:
		c.find(rule, a.op, "/isError", "%s was answered as a processed result; it is %s (%s)", what, wanted, why)
	case a.raw != nil:
		kind, message, ok := requestError(a)
		if !ok {
			return "", "", false
		}
		if want != "" && kind != want && slices.Contains(requestErrorKinds, kind) {
			c.find(rule, a.op, "/structuredContent/error/kind", "%s is a request error of kind %q; it is %s (%s)", what, report.Clip(kind), wanted, why)
		}
		return kind, message, true
	}
	return "", "", false
}

// requestError is the kind and message of a, a request error; ok is
// false when a is none, or its structuredContent does not decode as the
// envelope (which envelope reports).
func requestError(a answer) (kind, message string, ok bool) {
	if a.err != nil || !a.isError || a.raw == nil {
		return "", "", false
	}
	var env struct {
		Error struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(a.raw, &env) != nil {
		return "", "", false
	}
	return env.Error.Kind, env.Error.Message, true
}

// unknownName is the user's program with one catalog name replaced by
// one that cannot exist, and where the replacement sits.
type unknownName struct {
	prog    any    // the program as sent: a JSON value, or a string for text-range
	name    string // the name that cannot exist
	pointer string // json-pointer Languages: the pointer of the replaced string
	line    int    // text-range Languages: the 1-based line of the replacement
}

// withUnknownName replaces the first catalog id the program names by one
// that cannot exist. ok is false when the program names none (a Language
// without catalog, or a program calling nothing), so there is nothing to
// probe with.
func withUnknownName(l pilotage.LanguageEntry, src []byte, ids []string) (unknownName, bool) {
	usable := ids[:0:0]
	for _, id := range ids {
		if id != "" && isNameChar(id[len(id)-1]) {
			usable = append(usable, id)
		}
	}
	if syntax.Textual(l.Locator) {
		s := string(src)
		best := -1
		var bestID string
		for _, id := range usable {
			for from := 0; ; {
				i := strings.Index(s[from:], id)
				if i < 0 {
					break
				}
				i += from
				end := i + len(id)
				if (i == 0 || !isNameChar(s[i-1])) && (end == len(s) || !isNameChar(s[end])) {
					if best < 0 || i < best {
						best, bestID = i, id
					}
					break
				}
				from = i + 1
			}
		}
		if best < 0 {
			return unknownName{}, false
		}
		name := bestID + absentSuffix
		return unknownName{prog: s[:best] + name + s[best+len(bestID):], name: name,
			line: 1 + strings.Count(s[:best], "\n")}, true
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return unknownName{}, false
	}
	known := map[string]bool{}
	for _, id := range usable {
		known[id] = true
	}
	var u unknownName
	var walk func(x any, at string) any
	walk = func(x any, at string) any {
		switch x := x.(type) {
		case string:
			if u.name == "" && known[x] {
				u.name, u.pointer = x+absentSuffix, at
				return u.name
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i], at+"/"+strconv.Itoa(i))
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				x[k] = walk(x[k], at+"/"+pointerEscaper.Replace(k))
			}
		}
		return x
	}
	v = walk(v, "")
	if u.name == "" {
		return unknownName{}, false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return unknownName{}, false
	}
	u.prog = json.RawMessage(raw)
	return u, true
}

// isNameChar reports whether b can continue a name, so a replacement
// lands on a whole name, not inside a longer one.
func isNameChar(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// catalogIDs is the ids of the catalog items of Language lang in the
// saved snapshot.
func catalogIDs(snapSrc []byte, lang string) []string {
	var snap struct {
		Catalog map[string]struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		} `json:"catalog"`
	}
	_ = json.Unmarshal(snapSrc, &snap)
	var ids []string
	for _, it := range snap.Catalog[lang].Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// processed is expect for an answer the spec fixes as a processed
// result: a request error instead is that rule's finding.
func (c *checker) processed(rule string, a answer, what string) bool {
	return c.expectAs(rule, a, what, "; it is a processed result (§8: invalidity is a result, not an operation error)")
}

// outcome is what the refusal probes read of an outcome.
type outcome struct {
	OK     *bool  `json:"ok"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// rawOutcome is the answer's outcome member as the server wrote it.
func (a answer) rawOutcome() json.RawMessage {
	var r struct {
		Outcome json.RawMessage `json:"outcome"`
	}
	_ = json.Unmarshal(a.raw, &r)
	if r.Outcome == nil {
		return json.RawMessage("null")
	}
	return r.Outcome
}

// driftText is the error text §6.5.2 step 2 shows for catalog drift.
// outcome.error is an optional short description (data-model.md §5.7),
// so another text is worth knowing, not wrong.
const driftText = "catalog version mismatch"
