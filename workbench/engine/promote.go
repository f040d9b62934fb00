package engine

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// promotion is what the server records when a program is promoted (§5.4):
// the immutable body, who promoted it, and the baseline of every entry the
// body references (nil for an entry that did not exist).
type promotion struct {
	Body     json.RawMessage
	BodyHash string
	Promoter string
	Baseline map[string]*pilotage.Baseline
}

// references lists the catalog ids a body names, read with the grammar
// and depth bound of each Language in langs: a body is written for the
// Languages that run it, and another Language's grammar may spell calls
// differently. A body none of them parses references nothing (it fails
// when it runs).
func references(body []byte, langs []*lang) []string {
	seen := map[string]bool{}
	for _, l := range langs {
		parsed, err := l.syntax.Parse(syntax.Source(l.Locator, body), l.limits.Depth)
		if err != nil || !pilotage.Valid(parsed.Diagnostics) {
			continue
		}
		program.Walk(parsed.Program.Steps, func(s *program.Step) {
			if s.Kind == program.Call || s.Kind == program.Run {
				seen[s.Target] = true
			}
		})
	}
	return slices.Sorted(maps.Keys(seen))
}

// unrecorded stands, in a baseline restored from the store, for a name
// the body uses that the record lacks: one a version that misread the
// body left out (before 3350286 a body could be read with another
// Language's grammar). How the entry was at promotion is not known, and
// taking its value now could hide a real drift, so the name drifts
// (§5.4); the program needs a new reference, as for any drift.
var unrecorded = &pilotage.Baseline{}

// completed returns p, or, when its body read by the Languages langs uses
// names p's baseline lacks, a copy whose baseline marks them unrecorded.
// p itself is left as it is: states that Runs hold may share it.
func completed(p *promotion, langs []*lang) *promotion {
	missing := slices.DeleteFunc(references(p.Body, langs), func(id string) bool {
		_, recorded := p.Baseline[id]
		return recorded
	})
	if len(missing) == 0 {
		return p
	}
	c := *p
	c.Baseline = maps.Clone(p.Baseline)
	for _, id := range missing {
		c.Baseline[id] = unrecorded
	}
	return &c
}

// baseline records the load-bearing fields of what body, run by the
// Languages langs, references. Its keys are all the names the body uses:
// drift and what a body conceals from a caller are judged by them
// (§6.5.2 step 3, §10.3).
func (st *state) baseline(body []byte, langs []*lang) map[string]*pilotage.Baseline {
	out := map[string]*pilotage.Baseline{}
	for _, id := range references(body, langs) {
		if en := st.entries[id]; en != nil {
			b := en.wire.Baseline()
			out[id] = &b
		} else {
			out[id] = nil
		}
	}
	return out
}

// runners lists the Languages that may run en: those that see it.
func (st *state) runners(en *entry) []*lang {
	var out []*lang
	for _, l := range st.order {
		if st.visible(serverAuthority, l.ID, en) {
			out = append(out, l)
		}
	}
	return out
}

// reach visits the names p's body uses in sorted order, with the
// baseline p recorded for each, and returns the path to the first for
// which stop holds, or nil. With deep it goes on, depth first, into the
// baseline of each promoted program the body runs, at any depth; each
// program is walked once, so a cycle of programs that run each other
// ends. The path names the promoted programs walked into on the way, the
// outermost first, and ends with that name. drifted and conceals share
// it, so that what a caller must hold and what a body conceals from it
// are judged over the same names.
func (st *state) reach(p *promotion, deep bool, stop func(id string, want *pilotage.Baseline) bool) []string {
	walked := map[*promotion]bool{}
	var walk func(p *promotion) []string
	walk = func(p *promotion) []string {
		walked[p] = true
		for _, id := range slices.Sorted(maps.Keys(p.Baseline)) {
			if stop(id, p.Baseline[id]) {
				return []string{id}
			}
			if ref := st.entries[id]; deep && ref != nil && ref.prom != nil && !walked[ref.prom] {
				if path := walk(ref.prom); path != nil {
					return append([]string{id}, path...)
				}
			}
		}
		return nil
	}
	return walk(p)
}

// drifted names the first entry p references whose load-bearing fields
// differ from the baseline, read with the authority scope from Language
// langID, or "" (§6.5.2 step 3); driftPath gives the way to it.
func (st *state) drifted(p *promotion, langID, scope string) string {
	return last(st.driftPath(p, langID, scope, st.stale))
}

// last is the last name of path, or "".
func last(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return path[len(path)-1]
}

// driftPath is the path (see reach) to the entry drifted names, or nil;
// stale says which promoted programs no longer identify what they were
// promoted as (st.stale, but see mismatch).
// An entry scope may not see is, to it, absent, and drifts as a removed
// one does. Under the default caller authority the caller must hold
// every name the body uses at any depth (§10.4), and the promoted
// programs it runs run with that authority, so their baselines are
// checked too, before anything runs; under promoter authority each
// promoted program is checked with its own promoter's authority when it
// is called (§10.3). A PDL program whose body changed is drifted whoever
// looks, so under either authority one at any depth drifts p before
// anything runs (§5.4).
func (st *state) driftPath(p *promotion, langID, scope string, stale func(*entry) bool) []string {
	if st.langs[langID].PromotionAuthority != pilotage.AuthorityPromoter {
		return st.reach(p, true, st.differs(langID, scope, stale))
	}
	if path := st.reach(p, false, st.differs(langID, scope, stale)); path != nil {
		return path
	}
	return st.reach(p, true, func(id string, _ *pilotage.Baseline) bool {
		en := st.entries[id]
		return en != nil && stale(en)
	})
}

// differs reports whether the entry id, seen with the authority scope
// from Language langID, no longer matches want, its recorded baseline;
// stale is as for driftPath.
func (st *state) differs(langID, scope string, stale func(*entry) bool) func(id string, want *pilotage.Baseline) bool {
	return func(id string, want *pilotage.Baseline) bool {
		en := st.entries[id]
		if en != nil && !st.visible(scope, langID, en) {
			en = nil
		}
		switch {
		case want == unrecorded:
			return true
		case en != nil && stale(en):
			// A program it runs no longer has the body its reference
			// identified when the program was promoted, or met
			// promotion_drift, which is terminal (§5.4).
			return true
		case en == nil && want == nil:
			return false
		case en == nil || want == nil:
			return true
		default:
			now := en.wire.Baseline()
			return string(canonical(mustJSON(now))) != string(canonical(mustJSON(want)))
		}
	}
}

// mismatch says why the promoted program en may not run from Language
// langID with the authority scope, or "" when its body and what it
// references, at any depth under caller authority, are as recorded at
// promotion (§5.4, §6.5.2 step 3), and it did not meet promotion_drift
// before. A mismatch is terminal for the reference (see terminal), so the
// words say what to do instead. They are for viewer,
// the caller: they name a referenced entry only when viewer sees it, so
// one hidden from viewer reads exactly as a removed one (§10.3).
func (st *state) mismatch(en *entry, langID, scope, viewer string) string {
	id := en.wire.ID
	if en.bodyChanged {
		return changedBody(id)
	}
	advice := "promote the program again"
	if en.prom.Promoter == serverAuthority {
		// The PDL author chose the id; a new promotion is a new id.
		advice = "give it a new reference such as " + nextRef(id)
	}
	// What differs now is told before a program en runs that met
	// promotion_drift, in the words it gets whether the caller may not
	// see an entry or it is gone (§10.3): that program may have ended
	// because an entry hidden from this caller changed for everyone.
	name := last(st.driftPath(en.prom, langID, scope, func(en *entry) bool { return en.bodyChanged }))
	if name == "" {
		name = st.drifted(en.prom, langID, scope)
	}
	if name == "" {
		if st.terminal.has(id) {
			return terminalWords(id, advice)
		}
		return ""
	}
	ref := st.entries[name]
	if ref == nil || !st.visible(viewer, langID, ref) {
		return fmt.Sprintf("an entry %s references changed since it was promoted or is not available to this caller; %s", id, advice)
	}
	if ref.bodyChanged {
		return fmt.Sprintf("the body of %s, which %s runs, changed since it was promoted; give the changed body a new reference such as %s, and %s a new one running it", name, id, nextRef(name), id)
	}
	want, direct := en.prom.Baseline[name]
	switch {
	case direct && want == unrecorded:
		return fmt.Sprintf("the baseline recorded when %s was promoted does not cover catalog entry %s, which its body uses; %s", id, name, advice)
	case st.terminal.has(name):
		return fmt.Sprintf("%s, which %s runs, met promotion_drift, and a drifted reference stays drifted; %s can run again only once it runs a new promotion of that program", name, id, id)
	case !direct:
		// Promoting en again would record the same nested program,
		// still drifted: that program needs a new promotion first.
		return fmt.Sprintf("catalog entry %s, used by a program %s runs, does not match that program's recorded baseline; %s can run again only once it runs a new promotion of that program", name, id, id)
	}
	return fmt.Sprintf("catalog entry %s changed since %s was promoted; %s", name, id, advice)
}

// changedBody is the mismatch of a PDL program whose body changed.
func changedBody(id string) string {
	return fmt.Sprintf("the body of %s changed since it was promoted; give the changed body a new reference such as %s", id, nextRef(id))
}

// conceals reports whether en's body, or the body of a promoted program
// it runs at any depth, names an entry viewer cannot see from Language
// langID, hidden or gone alike (§10.3: the two must read the same). Such
// a program is one opaque step to viewer (§5.8.3), whatever
// trace_subprogram says: its entries, calls and messages would name what
// viewer may not know of. The referenced names are the baselines' keys.
func (st *state) conceals(en *entry, langID, viewer string) bool {
	return st.reach(en.prom, true, func(id string, _ *pilotage.Baseline) bool {
		ref := st.entries[id]
		return ref == nil || !st.visible(viewer, langID, ref)
	}) != nil
}

// nextRef suggests the reference after id: name@N+1 for name@N, else
// id@2.
func nextRef(id string) string {
	if i := strings.LastIndexByte(id, '@'); i >= 0 {
		if n, err := strconv.Atoi(id[i+1:]); err == nil && n >= 0 {
			return fmt.Sprintf("%s@%d", id[:i], n+1)
		}
	}
	return id + "@2"
}

// ChangedBodies describes each PDL program served with a body other than
// the one its id was promoted with, in the words its Runs get, so a
// server operator learns of it when the PDL is (re)loaded rather than
// from a client's promotion_drift.
func (e *Engine) ChangedBodies() []string {
	st := e.state()
	var out []string
	for _, id := range st.ids {
		if st.entries[id].bodyChanged {
			out = append(out, changedBody(id))
		}
	}
	return out
}

// promotedKind is the kind promoted programs get: the first kind the
// closed-sets guide marks promoted.
func (l *lang) promotedKind() string {
	for _, k := range l.Sets.Kinds {
		if k.Promoted {
			return k.Kind
		}
	}
	return "program"
}

// levelHints are the hints of a risk level of the Language. A promoted
// entry declares its plan's max_risk with that level's own hints, so risk
// and risk_hints agree (§5.3); they are the body's aggregate (the plan is
// refused otherwise), so the entry is never presented as safer than its
// body (§5.4 honest risk). ok is false for a name that is no level of the
// Language.
func (l *lang) levelHints(risk string) (hints pilotage.RiskHints, ok bool) {
	i := slices.IndexFunc(l.levels, func(lv pilotage.RiskLevel) bool { return lv.Name == risk })
	if i < 0 {
		return hints, false
	}
	return l.levels[i].Hints, true
}

// programName is the name of body promoted by promoter, before its @N:
// an HMAC-SHA256 under the server's id key. The same promoter and body get
// the same name on this server, so re-promotion stays idempotent and
// drift counts on from it (§5.4); without the key nobody can tell from a
// name which body it stands for or confirm a guessed one, which would
// reveal the entries the body calls to a caller who may not see them
// (§10.3, §1.6 opaque references). The promoter is part of the message so
// that another principal's promotion of the same body does not show in
// the caller's @N.
func (e *Engine) programName(promoter string, body json.RawMessage) string {
	mac := hmac.New(sha256.New, e.idKey)
	mac.Write(mustJSON([]string{promoter, string(canonical(body))}))
	return hex.EncodeToString(mac.Sum(nil))
}

// promote installs body as a promoted program (deploy mode, §6.5.7) and
// returns its reference. References are immutable (§5.4): a body is named
// by programName, and promoting it again after its baseline drifted mints
// name@N+1; promoting an unchanged body with an unchanged baseline by the
// same promoter returns the existing reference.
func (e *Engine) promote(l *lang, body json.RawMessage, plan *pilotage.Plan, promoter string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.st
	bodyHash := hashBytes(canonical(body))
	keyed := e.programName(promoter, body)
	name := "program." + keyed[:12]
	prom := &promotion{Body: body, BodyHash: bodyHash, Promoter: promoter, Baseline: st.baseline(body, []*lang{l})}
	n := 1
	for ; ; n++ {
		id := fmt.Sprintf("%s@%d", name, n)
		old := e.promoted[id]
		if old == nil {
			break
		}
		if old.prom.Promoter == promoter && !st.terminal.has(id) && st.drifted(old.prom, l.ID, promoter) == "" && contains(old.wire.Languages, l.ID) {
			return id, nil
		}
	}
	id := fmt.Sprintf("%s@%d", name, n)
	if st.entries[id] != nil {
		return "", fmt.Errorf("catalog id %s is taken by a PDL entry", id)
	}
	hints, ok := l.levelHints(plan.MaxRisk)
	if !ok {
		return "", fmt.Errorf("plan max_risk %q is no risk level of %s", plan.MaxRisk, l.ID)
	}
	ce := pilotage.CatalogEntry{
		ID: id, Kind: l.promotedKind(), Name: "deployed program " + keyed[:8],
		// Not the plan's summary: it names what the body calls, and the
		// entry is seen by callers who may not see those (§10.3).
		Description: "Installed by a deploy Run; max risk " + plan.MaxRisk + ".",
		Languages:   []string{l.ID}, InputSchema: json.RawMessage(`{"type":"object"}`),
		Risk: plan.MaxRisk, RiskHints: hints,
	}
	en := newEntry(&ce, &language.Behavior{}, prom)
	if err := e.store.PutPromoted(id, keptPromotion{Entry: ce, Promotion: prom}); err != nil {
		return "", err
	}
	e.promoted[id] = en
	next := *st
	next.entries = make(map[string]*entry, len(st.entries)+1)
	for k, v := range st.entries {
		next.entries[k] = v
	}
	next.entries[id] = en
	next.ids = append(append([]string(nil), st.ids...), id)
	sort.Strings(next.ids)
	e.st = &next
	return id, nil
}

// keptPromotion is a promoted program as the durable store keeps it; a
// PDL program's baseline is kept without an entry (the PDL defines it).
type keptPromotion struct {
	Entry     pilotage.CatalogEntry `json:"entry,omitzero"`
	Promotion *promotion            `json:"promotion"`
}

// pdlKey prefixes the stored baselines of PDL-defined promoted programs,
// kept so that a PDL edited between two runs of the server still meets
// promotion_drift.
const pdlKey = "pdl\x00"

// loadPromoted restores the promoted programs, PDL program baselines and
// terminally drifted references a previous process kept.
func (e *Engine) loadPromoted() error {
	kept, err := e.store.Promoted()
	if err != nil {
		return err
	}
	for id, raw := range kept {
		if ref, ok := strings.CutPrefix(id, terminalKey); ok {
			e.terminal.ids[ref] = true
			continue
		}
		var k keptPromotion
		if err := json.Unmarshal(raw, &k); err != nil || k.Promotion == nil {
			return fmt.Errorf("run store: promoted program %q is unreadable: %v", id, err)
		}
		if pdlID, ok := strings.CutPrefix(id, pdlKey); ok {
			e.pdlBaselines[pdlID] = k.Promotion
			continue
		}
		e.promoted[id] = newEntry(&k.Entry, &language.Behavior{}, k.Promotion)
	}
	return nil
}
