package engine

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// entry is one catalog entry as served: the wire form, its scripted
// behaviour, and for a promoted program its body and baseline.
type entry struct {
	// wire and behavior are the compiled Language's own (state.srv
	// keeps it) or a promotion's, and never change: pointed to rather
	// than copied, with scripts in place, an entry takes 176 bytes with
	// its hash, not 448 (60,000 entries: 16 MB; docs/performance.md,
	// "Many small guides").
	wire     *pilotage.CatalogEntry
	behavior *language.Behavior
	prom     *promotion
	// bodyChanged marks a PDL program whose body differs from the one its
	// id was first promoted with: the reference identifies that body, so
	// it meets promotion_drift, and once it has met it the reference stays
	// drifted (terminal), the body restored or not (§5.4).
	bodyChanged bool
	// hash covers every defined field except revision (§5.4): its
	// SHA-256, the 32 bytes, not their hex (64 bytes an entry).
	hash string
	// scripts holds the compiled behaviour expressions, built on first call.
	scripts scripts
}

// state is one immutable snapshot of what the engine serves.
type state struct {
	srv        *language.Server
	langs      map[string]*lang
	order      []*lang
	entries    map[string]*entry
	ids        []string
	principals map[string]*language.Principal
	terminal   *terminal // the engine's, shared by every state
	// replay is shared with the states a promotion derives from this
	// one: a promotion changes the catalog, which replay does not read.
	replay *replayLanguages
}

func (e *Engine) build(srv *language.Server) (*state, error) {
	st := &state{srv: srv, langs: map[string]*lang{}, entries: map[string]*entry{}, principals: map[string]*language.Principal{}, terminal: e.terminal,
		replay: &replayLanguages{}}
	for _, l := range srv.Languages {
		lg, err := e.newLang(srv, l)
		if err != nil {
			return nil, err
		}
		if st.langs[l.ID] != nil {
			return nil, fmt.Errorf("language %s is defined twice", l.ID)
		}
		st.langs[l.ID] = lg
		st.order = append(st.order, lg)
	}
	for _, p := range srv.Principals {
		st.principals[p.Name] = p
	}
	var pdlPrograms []*language.Entry
	for _, pe := range srv.Catalog {
		if e.promoted[pe.ID] != nil {
			continue // an engine-minted reference is immutable; it wins
		}
		st.entries[pe.ID] = newEntry(&pe.CatalogEntry, &pe.Behavior, nil)
		if len(pe.Program) > 0 {
			pdlPrograms = append(pdlPrograms, pe)
		}
	}
	for id, pe := range e.promoted {
		if prom := completed(pe.prom, st.runners(pe)); prom != pe.prom {
			pe = newEntry(pe.wire, pe.behavior, prom)
			e.promoted[id] = pe
		}
		st.entries[id] = pe
	}
	// A PDL program is promoted when its id is first loaded: its body and
	// the baseline of what it references are recorded then and never
	// replaced, since the PDL author chooses the id and a reference
	// identifies one body (§5.4). A changed body under the same id is
	// drifted, not a new promotion; the author gives it a new id.
	for _, pe := range pdlPrograms {
		bodyHash := hashBytes(canonical(pe.Program))
		prom := e.pdlBaselines[pe.ID]
		if prom == nil {
			prom = &promotion{Body: pe.Program, BodyHash: bodyHash, Promoter: serverAuthority, Baseline: st.baseline(pe.Program, st.runners(st.entries[pe.ID]))}
			e.pdlBaselines[pe.ID] = prom
			if err := e.store.PutPromoted(pdlKey+pe.ID, keptPromotion{Promotion: prom}); err != nil {
				return nil, err
			}
		} else {
			prom = completed(prom, st.runners(st.entries[pe.ID]))
			e.pdlBaselines[pe.ID] = prom
		}
		st.entries[pe.ID].prom = prom
		st.entries[pe.ID].bodyChanged = prom.BodyHash != bodyHash
	}
	for id := range st.entries {
		st.ids = append(st.ids, id)
	}
	sort.Strings(st.ids)
	return st, nil
}

func newEntry(ce *pilotage.CatalogEntry, b *language.Behavior, prom *promotion) *entry {
	h := *ce
	h.Revision = ""
	sum := sha256.Sum256(canonical(mustJSON(h)))
	return &entry{wire: ce, behavior: b, prom: prom, hash: string(sum[:])}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only engine-built values reach here, and they marshal
	}
	return b
}

// canonical re-encodes JSON with sorted keys and no insignificant space,
// so equal values hash equally.
func canonical(raw []byte) []byte {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return raw
	}
	return mustJSON(v)
}

func hashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// serverAuthority is the authority of programs the PDL itself defines: it
// sees every entry.
const serverAuthority = "\x00server"

// visible reports whether principal may see en from Language langID.
// A principal sees the programs it promoted, whatever its sees patterns:
// the deploy Run handed it the reference, and a reference that is then
// not_found to the same caller breaks the promoted-program loop (§7.4);
// the Server defines authorization (§10.3), and the body was validated
// under the promoter's own authority, so the entry tells it nothing it
// could not see. Other principals' sight of it is their patterns'.
func (st *state) visible(principal, langID string, en *entry) bool {
	if len(en.wire.Languages) > 0 && !contains(en.wire.Languages, langID) {
		return false
	}
	if principal == serverAuthority || len(st.principals) == 0 || en.prom != nil && en.prom.Promoter == principal {
		return true
	}
	p := st.principals[principal]
	if p == nil {
		return false
	}
	return p.SeesID(en.wire.ID)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// view is the catalog one principal sees from one Language.
type view struct {
	st      *state
	lang    *lang
	entries []*entry
	version string
	// principal is whose view this is.
	principal string
	// hasCatalog is whether the Language has one: without, it sees no
	// entry.
	hasCatalog bool
}

// entry is the entry id the view sees, nil for none: read from the
// state's entries, not a map of the view's own (60,000 entries: 2.6 MB
// each time a view is made; docs/performance.md, "Many small entries").
func (v *view) entry(id string) *entry {
	en := v.st.entries[id]
	if en == nil || !v.hasCatalog || !v.st.visible(v.principal, v.lang.ID, en) {
		return nil
	}
	return en
}

// logKey keys a token's snapshot in the version log per principal and
// Language, so a token issued to another caller is an unknown baseline,
// never a diff that names entries this caller may not see (§10.3).
func (v *view) logKey(token string) string {
	return v.principal + "\x00" + v.lang.ID + "\x00" + token
}

func (e *Engine) view(st *state, l *lang, principal string) *view {
	// A Language without catalog has no environment-bound names (§3.2):
	// its programs can name nothing.
	v := &view{st: st, lang: l, principal: principal, hasCatalog: l.caps.Has(pilotage.CapCatalog)}
	h := sha256.New()
	var hash [2 * sha256.Size]byte
	for _, id := range st.ids {
		en := st.entries[id]
		if !v.hasCatalog || !st.visible(principal, l.ID, en) {
			continue
		}
		v.entries = append(v.entries, en)
		hex.Encode(hash[:], []byte(en.hash))
		fmt.Fprintf(h, "%s\x00%s\x00", id, hash[:])
	}
	v.version = "cv-" + hex.EncodeToString(h.Sum(nil))[:24]
	e.versions.record(v.logKey(v.version), v.snapshot)
	return v
}

// snapshot is what changed_since compares a later view with: each
// entry's id and hash, in the order of their ids. A slice, not a map
// (60,000 entries: 1.9 MB, not 3.6), made only for a token the log
// has not seen.
func (v *view) snapshot() []idHash {
	out := make([]idHash, len(v.entries))
	for i, en := range v.entries {
		out[i] = idHash{en.wire.ID, en.hash}
	}
	return out
}

// idHash is an entry's id and hash (entry.hash).
type idHash struct{ id, hash string }

// versionLog remembers which entries each catalog_version stood for, for
// whom, so changed_since can answer; tokens it has forgotten (or never
// issued to this caller, or issued before a restart) are unknown baselines.
type versionLog struct {
	mu    sync.Mutex
	max   int
	order []string
	snaps map[string][]idHash
}

func newVersionLog(n int) *versionLog {
	return &versionLog{max: n, snaps: map[string][]idHash{}}
}

// record keeps the snapshot of token, made by snapshot unless the log has
// it.
func (l *versionLog) record(token string, snapshot func() []idHash) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.snaps[token]; ok {
		return
	}
	l.snaps[token] = snapshot()
	l.order = append(l.order, token)
	if len(l.order) > l.max {
		delete(l.snaps, l.order[0])
		l.order = l.order[1:]
	}
}

func (l *versionLog) get(token string) ([]idHash, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.snaps[token]
	return s, ok
}

// Page sizes of list.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// Lookup serves list, get and changed_since (§6.3) within the caller's
// authorization scope.
func (e *Engine) Lookup(ctx context.Context, c service.Caller, language string, req pilotage.LookupRequest) (any, error) {
	st, l, err := e.language(language)
	if err != nil {
		return nil, err
	}
	if !l.caps.Has(pilotage.CapCatalog) {
		return nil, unsupported("Language %s does not declare catalog", l.ID)
	}
	v := e.view(st, l, c.Principal)
	out, err := v.lookup(e.versions, req)
	// Every lookup answer, a request error included, carries the caller's
	// current token (§6.3), so a client can resynchronise from any of them.
	var re *pilotage.RequestError
	if errors.As(err, &re) && re.CatalogVersion == "" {
		re.CatalogVersion = v.version
	}
	return out, err
}

func (v *view) lookup(log *versionLog, req pilotage.LookupRequest) (any, error) {
	switch req.Verb {
	case pilotage.VerbList:
		return v.list(req)
	case pilotage.VerbGet:
		if req.ID == nil {
			return nil, invalid("get needs an id")
		}
		en := v.entry(*req.ID)
		if en == nil {
			return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: fmt.Sprintf("no catalog entry %q", report.Clip(*req.ID))}
		}
		return &pilotage.GetResponse{Entry: *en.wire, CatalogVersion: v.version}, nil
	case pilotage.VerbChangedSince:
		if !v.lang.caps.HasSub(pilotage.CapCatalog, pilotage.SubChangedSince) {
			return nil, unsupported("Language %s does not declare catalog.changed_since", v.lang.ID)
		}
		if req.CatalogVersion == nil {
			return nil, invalid("changed_since needs the catalog_version to compare against")
		}
		return v.changedSince(log, *req.CatalogVersion)
	case "":
		// No verb is "", so a supplied "" is malformed like a missing one.
		return nil, invalid("the verb is missing or empty: use list, get or changed_since")
	}
	return nil, invalid("unknown lookup verb %s: use list, get or changed_since", report.Quote(req.Verb))
}

// pageSize is the page size a list request asks for: the default when
// limit is left out, at most MaxPageSize. A supplied limit below 1, 0
// included, asks for a page of nothing and is refused, as the lookup
// tool's input schema (minimum 1) publishes.
func pageSize(limit *int) (int, error) {
	switch {
	case limit == nil:
		return DefaultPageSize, nil
	case *limit < 1:
		return 0, invalid("limit must be at least 1, got %d", *limit)
	}
	return min(*limit, MaxPageSize), nil
}

func (v *view) list(req pilotage.LookupRequest) (*pilotage.ListResponse, error) {
	// A supplied q is a search, "" too (§6.3), so it needs catalog.search.
	if req.Q != nil && !v.lang.caps.HasSub(pilotage.CapCatalog, pilotage.SubSearch) {
		return nil, unsupported("Language %s does not declare catalog.search, so list takes no q", v.lang.ID)
	}
	limit, err := pageSize(req.Limit)
	if err != nil {
		return nil, err
	}
	filter := hashBytes([]byte(filterText(req.Kind) + "\x00" + filterText(req.Tag) + "\x00" + filterText(req.Q)))[:12]
	after := ""
	if req.Cursor != nil {
		// A listing never returns an empty next_cursor, so a supplied ""
		// fails here like any cursor it did not return.
		a, f, ok := decodeCursor(*req.Cursor)
		if !ok || f != filter {
			return nil, invalid("the cursor is not one this listing returned; pass next_cursor back unchanged with the same filters")
		}
		after = a
	}
	out := &pilotage.ListResponse{Items: []pilotage.CatalogEntry{}, CatalogVersion: v.version}
	for _, en := range v.entries {
		if en.wire.ID <= after && after != "" || !matches(en, req) {
			continue
		}
		if len(out.Items) == limit {
			out.NextCursor = encodeCursor(out.Items[len(out.Items)-1].ID, filter)
			break
		}
		out.Items = append(out.Items, *en.wire)
	}
	return out, nil
}

// filterText is a list filter as its cursor remembers it: a left-out
// filter and a supplied "" select different entries, so they differ here.
func filterText(f *string) string {
	if f == nil {
		return "-"
	}
	return "=" + *f
}

// matches reports whether en passes the list filters. A supplied kind or
// tag, "" too, must be the entry's (no entry has the empty kind or tag);
// a q, "" too, is a search whose every word the entry's text must hold,
// and "" has no words.
func matches(en *entry, req pilotage.LookupRequest) bool {
	w := en.wire
	if req.Kind != nil && w.Kind != *req.Kind || req.Tag != nil && !contains(w.Tags, *req.Tag) {
		return false
	}
	if req.Q == nil {
		return true
	}
	text := strings.ToLower(strings.Join(append([]string{w.ID, w.Name, w.Description}, w.Tags...), " "))
	for _, word := range strings.Fields(strings.ToLower(*req.Q)) {
		if !strings.Contains(text, word) {
			return false
		}
	}
	return true
}

// Cursors are opaque to clients (§1.6): the last id served and the filter
// they belong to.
func encodeCursor(after, filter string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(filter + ":" + after))
}

func decodeCursor(c string) (after, filter string, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", "", false
	}
	filter, after, ok = strings.Cut(string(b), ":")
	return after, filter, ok && after != ""
}

func (v *view) changedSince(log *versionLog, token string) (*pilotage.ChangedSinceResponse, error) {
	old, ok := log.get(v.logKey(token))
	if token == "" || !ok {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrUnknownBaseline,
			Message: "this catalog_version is not one the server can compare against; list the catalog in full"}
	}
	out := &pilotage.ChangedSinceResponse{CatalogVersion: v.version, Changes: []pilotage.Change{}}
	for _, en := range v.entries {
		i, was := slices.BinarySearchFunc(old, en.wire.ID, func(x idHash, id string) int { return strings.Compare(x.id, id) })
		switch {
		case !was:
			out.Changes = append(out.Changes, pilotage.Change{ID: en.wire.ID, Change: pilotage.ChangeAdded})
		case old[i].hash != en.hash:
			out.Changes = append(out.Changes, pilotage.Change{ID: en.wire.ID, Change: pilotage.ChangeModified})
		}
	}
	for _, x := range old {
		if v.entry(x.id) == nil {
			out.Changes = append(out.Changes, pilotage.Change{ID: x.id, Change: pilotage.ChangeRemoved})
		}
	}
	sort.Slice(out.Changes, func(i, j int) bool { return out.Changes[i].ID < out.Changes[j].ID })
	return out, nil
}
