package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
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
		var env struct {
			Error struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(a.raw, &env) != nil {
			// envelope has reported it.
			return "", "", false
		}
		if want != "" && env.Error.Kind != want && slices.Contains(requestErrorKinds, env.Error.Kind) {
			c.find(rule, a.op, "/structuredContent/error/kind", "%s is a request error of kind %q; it is %s (%s)", what, env.Error.Kind, wanted, why)
		}
		return env.Error.Kind, env.Error.Message, true
	}
	return "", "", false
}

// changedSince asks lookup changed_since from a baseline the server never
// issued: unknown_baseline where the verb is declared (§6.3), and a request
// error where it is not, since the verb is then unavailable (§6.3; the
// spec fixes no kind for it, so any closed kind is accepted).
func (c *checker) changedSince(man *pilotage.Manifest, l pilotage.LanguageEntry) {
	a := c.call(l.Catalog, map[string]any{"verb": pilotage.VerbChangedSince, "catalog_version": absent})
	if man.EffectiveCapabilities(&l).HasSub(pilotage.CapCatalog, pilotage.SubChangedSince) {
		c.requestErrorOf(RuleLookupChangedSince, a, "lookup changed_since from a catalog_version the server never issued", pilotage.ErrUnknownBaseline, "§6.3: a distinguishable unknown-baseline request error")
		return
	}
	c.requestErrorOf(RuleLookupChangedSince, a, "lookup changed_since, which "+l.ID+" does not declare,", "", "§6.3: the verb is available only when catalog.changed_since is declared")
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
				x[k] = walk(x[k], at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
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

// validateUnknownName validates the program with a name that cannot
// exist: a validation result, not a request error (§8), invalid, with an
// unknown_name diagnostic (§5.5) whose path locates the name.
func (c *checker) validateUnknownName(l pilotage.LanguageEntry, u unknownName) {
	what := fmt.Sprintf("validate of %s calling %q, a name that cannot exist", c.opt.Program.File, u.name)
	a := c.call(l.Loop.Validate, map[string]any{"program": u.prog})
	if !c.processed(RuleValidateUnknownName, a, what) {
		return
	}
	var res struct {
		Valid       bool `json:"valid"`
		Diagnostics []struct {
			Code string          `json:"code"`
			Path json.RawMessage `json:"path"`
		} `json:"diagnostics"`
	}
	_ = json.Unmarshal(a.raw, &res)
	if res.Valid {
		c.find(RuleValidateUnknownName, a.op, "/structuredContent/valid", "%s is valid; an unresolvable name makes the program invalid (§5.5)", what)
	}
	for i, d := range res.Diagnostics {
		if d.Code != "unknown_name" {
			continue
		}
		var at string
		if u.pointer != "" || !syntax.Textual(l.Locator) {
			var p string
			if json.Unmarshal(d.Path, &p) == nil && p == u.pointer {
				return
			}
			at = fmt.Sprintf("%q, the pointer of the name", u.pointer)
		} else {
			var r struct {
				Start struct {
					Line int `json:"line"`
				} `json:"start"`
			}
			if json.Unmarshal(d.Path, &r) == nil && r.Start.Line == u.line {
				return
			}
			at = fmt.Sprintf("a range starting on line %d, where the name is", u.line)
		}
		c.find(RuleValidateUnknownName, a.op, fmt.Sprintf("/structuredContent/diagnostics/%d/path", i), "%s: the unknown_name diagnostic's path is %s; it must locate the name: %s (§5.5)", what, compact(d.Path), at)
		return
	}
	c.find(RuleValidateUnknownName, a.op, "/structuredContent/diagnostics", "%s has no unknown_name diagnostic; an environment-bound name that does not resolve is unknown_name (§5.5)", what)
}

// processed is expect for an answer the spec fixes as a processed
// result: a request error instead is that rule's finding.
func (c *checker) processed(rule string, a answer, what string) bool {
	return c.expectAs(rule, a, what, "; it is a processed result (§8: invalidity is a result, not an operation error)")
}

// refusedRun checks an execute answer that must be a refused Run of
// status want (§6.5.2 steps 2 and 3): ok false, that status, no trace
// steps and no output, since nothing ran. It returns the Run's run_id.
func (c *checker) refusedRun(a answer, what, want, why string) (string, outcome) {
	if !c.processed(RuleExecuteRefusals, a, what) {
		return "", outcome{}
	}
	var run struct {
		RunID   string          `json:"run_id"`
		Outcome outcome         `json:"outcome"`
		Output  json.RawMessage `json:"output"`
		Trace   *struct {
			Steps []json.RawMessage `json:"steps"`
		} `json:"trace"`
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	_ = json.Unmarshal(a.raw, &run)
	o := run.Outcome
	if o.OK == nil || *o.OK || o.Status != want {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/outcome", "%s: the outcome is %s; it must be {\"ok\": false, \"status\": %q} (%s)", what, compact(a.rawOutcome()), want, why)
	}
	if run.Trace != nil && len(run.Trace.Steps) > 0 {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/trace/steps", "%s: the trace has %s; a refused Run executes nothing (%s)", what, count(len(run.Trace.Steps), "step"), why)
	}
	if len(run.Output) > 0 && string(run.Output) != "null" {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/output", "%s: the response has an output; output appears only when outcome.ok is true (§6.5)", what)
	}
	if o.Status == pilotage.StatusValidationError && len(run.Diagnostics) == 0 {
		c.find(RuleExecuteRefusals, a.op, "/structuredContent/diagnostics", "%s: a validation_error outcome without diagnostics; the Server must attach them (%s)", what, why)
	}
	return run.RunID, o
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

// executeRefusals sends the execute requests a conformant server refuses
// before running anything, in the processing order of §6.5.2. base holds
// the arguments of the user's (valid) program; u, when ok, is the program
// made invalid.
func (c *checker) executeRefusals(man *pilotage.Manifest, l pilotage.LanguageEntry, base map[string]any, u unknownName, haveU bool) {
	with := func(extra map[string]any) map[string]any {
		args := map[string]any{}
		for k, v := range base {
			args[k] = v
		}
		for k, v := range extra {
			if v == nil {
				delete(args, k)
			} else {
				args[k] = v
			}
		}
		return args
	}
	step1 := "§6.5.2 step 1: a failure of request well-formedness is a request error"
	eff := man.EffectiveCapabilities(&l)
	catalog := eff.Has(pilotage.CapCatalog)
	file := c.opt.Program.File
	if catalog {
		what := fmt.Sprintf("execute of %s with an expected_catalog_version that cannot be current", file)
		a := c.call(l.Loop.Execute, with(map[string]any{"expected_catalog_version": absent}))
		runID, o := c.refusedRun(a, what, pilotage.StatusCatalogDrift, "§6.5.2 step 2")
		if o.Status == pilotage.StatusCatalogDrift && o.Error != driftText {
			c.find(RuleCatalogDriftText, a.op, "/structuredContent/outcome/error", "%s: the error is %q; §6.5.2 step 2 shows %q", what, o.Error, driftText)
		}
		if runID != "" && l.Loop.Trace != "" && eff.Has(pilotage.CapTraceFetch) {
			c.sameNotFound(l, runID)
		}
		order := c.call(l.Loop.Execute, with(map[string]any{"expected_catalog_version": absent, "trace_level": unknownLevel}))
		c.requestErrorOf(RuleExecuteRefusals, order, fmt.Sprintf("execute of %s with an unknown trace_level and a drifted expected_catalog_version", file), "",
			"§6.5.2: the first failing check determines the response, and step 1 comes before catalog drift")
	}
	if haveU {
		what := fmt.Sprintf("execute of %s calling %q, a name that cannot exist", file, u.name)
		c.refusedRun(c.call(l.Loop.Execute, with(map[string]any{"program": u.prog})), what, pilotage.StatusValidationError,
			"§6.5.2 step 3: an invalid inline program is not executed")
	}
	refKind := ""
	if catalog {
		// Promoted programs live in the catalog, and an unknown reference
		// is not_found like any unknown name (data-model.md §8).
		refKind = pilotage.ErrNotFound
	}
	c.requestErrorOf(RuleExecuteRefusals, c.call(l.Loop.Execute, with(map[string]any{"program": nil, "program_ref": absent})),
		"execute of a program_ref that cannot exist", refKind, step1+"; an unresolvable reference is not_found")
	c.requestErrorOf(RuleExecuteRefusals, c.call(l.Loop.Execute, with(map[string]any{"trace_level": unknownLevel})),
		fmt.Sprintf("execute of %s with trace_level %q", file, unknownLevel), "", step1)
	if l.Retention == pilotage.RetentionNone {
		c.requestErrorOf(RuleExecuteRefusals, c.call(l.Loop.Execute, with(map[string]any{"store": true})),
			fmt.Sprintf("execute of %s with store: true under retention none", file), pilotage.ErrUnsupported, "§6.5: store: true cannot be honoured under retention none")
	}
}

// sameNotFound fetches a refused Run, never retained (§6.6), and an
// unknown run_id: "the following conditions MUST produce the same request
// error", so both are not_found with the same message once each run_id is
// taken out of it.
func (c *checker) sameNotFound(l pilotage.LanguageEntry, runID string) {
	refused := c.call(l.Loop.Trace, map[string]any{"run_id": runID})
	what := fmt.Sprintf("a fetch of run %q, refused for catalog drift and so never retained", runID)
	kind, msg, ok := c.requestErrorOf(RuleRequestErrorChannel, refused, what, pilotage.ErrNotFound, "§6.6")
	if !ok {
		return
	}
	unknown := c.call(l.Loop.Trace, map[string]any{"run_id": absent})
	uKind, uMsg, uok := c.requestErrorOf(RuleRequestErrorChannel, unknown, "a fetch of an unknown run_id", pilotage.ErrNotFound, "§6.6")
	if !uok {
		return
	}
	shape := func(m, id string) string { return strings.ReplaceAll(m, id, "RUN_ID") }
	if kind != uKind || shape(msg, runID) != shape(uMsg, absent) {
		c.find(RuleNotFoundIndistinguishable, refused.op, "/structuredContent/error", "%s answers {kind %q, message %q}, an unknown run_id {kind %q, message %q}; a non-retained Run and an unknown run_id must produce the same request error (§6.6)",
			what, kind, msg, uKind, uMsg)
	}
}
