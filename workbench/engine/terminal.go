package engine

import (
	"fmt"
	"sync"

	pilotage "github.com/pilotage-dev/pilotage"
)

// terminalKey prefixes, in the run store's promoted bucket, the references
// that met promotion_drift.
const terminalKey = "drifted\x00"

// terminal remembers the promoted references that met promotion_drift. A
// mismatch is terminal for a reference (§5.4; §7.5 "Retrying the same
// program_ref cannot succeed"), so undoing the change that caused it does
// not revive the reference: it stays drifted for the life of the data
// directory, or of the process without one. It outlives reloads, so every
// state shares the engine's one.
type terminal struct {
	mu  sync.RWMutex
	ids map[string]bool
}

func (t *terminal) has(id string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.ids[id]
}

// add records id and reports whether it was new.
func (t *terminal) add(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ids[id] {
		return false
	}
	t.ids[id] = true
	return true
}

// stale reports whether en, a promoted program, no longer identifies what
// it was promoted as, whatever the catalog says now: a PDL program whose
// body changed, or a reference that met promotion_drift.
func (st *state) stale(en *entry) bool {
	return en.bodyChanged || st.terminal.has(en.wire.ID)
}

// refusal is mismatch, recording as terminally drifted each reference
// whose own mismatch it is (see ended). A mismatch is terminal for every
// reference that meets it (§5.4), so a Run that meets the changed body of
// a program another one runs ends both, whichever door the Run came in
// by.
func (e *Engine) refusal(st *state, en *entry, langID, scope, viewer string) (string, error) {
	why := st.mismatch(en, langID, scope, viewer)
	if why == "" {
		return "", nil
	}
	for _, id := range st.ended(en, langID) {
		if !st.terminal.add(id) {
			continue
		}
		if err := e.store.PutPromoted(terminalKey+id, true); err != nil {
			return "", fmt.Errorf("run store: recording that %s drifted: %w", id, err)
		}
	}
	return why, nil
}

// ended lists the references a mismatch of en ends: en, when the
// mismatch is its own, and each promoted program on the way from en to
// the entry that drifted whose own mismatch it is too: a program whose
// body changed, and every one between that runs it. A reference's own
// mismatch is one whoever calls it meets, judged with the authority its
// body runs with apart from the caller (the promoter's under
// promotion_authority "promoter", the server's, which sees every entry,
// otherwise). A caller who meets promotion_drift only because it may not
// see a name the body uses changes nothing for others (§10.3), so a
// low-privileged caller cannot end a reference for everyone.
func (st *state) ended(en *entry, langID string) []string {
	own := func(en *entry) []string {
		scope := serverAuthority
		if st.langs[langID].PromotionAuthority == pilotage.AuthorityPromoter {
			scope = en.prom.Promoter
		}
		return st.driftPath(en.prom, langID, scope, st.stale)
	}
	path := own(en)
	if path == nil && !en.bodyChanged {
		return nil
	}
	out := []string{en.wire.ID}
	for _, id := range path {
		if ref := st.entries[id]; ref != nil && ref.prom != nil && (ref.bodyChanged || own(ref) != nil) {
			out = append(out, id)
		}
	}
	return out
}

// terminalWords is the mismatch of a reference that met promotion_drift
// and is as promoted again: advice says what to do instead.
func terminalWords(id, advice string) string {
	return fmt.Sprintf("%s met promotion_drift, and a drifted reference stays drifted even once the change is undone; %s", id, advice)
}
