package engine

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// UpsertEntry adds a catalog entry or replaces the one with the same id,
// as a scripted change while serving: the next catalog_version differs,
// so clients holding the old one meet catalog_drift, and promoted
// programs referencing a changed entry meet promotion_drift.
func (e *Engine) UpsertEntry(en *language.Entry) error {
	return e.editCatalog(func(cat []*language.Entry) ([]*language.Entry, error) {
		for i, x := range cat {
			if x.ID == en.ID {
				cat[i] = en
				return cat, nil
			}
		}
		return append(cat, en), nil
	})
}

// RemoveEntry removes the catalog entry id from the served model.
func (e *Engine) RemoveEntry(id string) error {
	return e.editCatalog(func(cat []*language.Entry) ([]*language.Entry, error) {
		for i, x := range cat {
			if x.ID == id {
				return append(cat[:i], cat[i+1:]...), nil
			}
		}
		return nil, fmt.Errorf("the PDL catalog has no entry %q", id)
	})
}

// editCatalog reloads a copy of the served Server whose catalog edit
// returns; the model the caller compiled is never mutated.
func (e *Engine) editCatalog(edit func([]*language.Entry) ([]*language.Entry, error)) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	srv := *e.st.srv
	cat, err := edit(append([]*language.Entry(nil), srv.Catalog...))
	if err != nil {
		return err
	}
	srv.Catalog = cat
	st, err := e.build(&srv)
	if err != nil {
		return err
	}
	e.st = st
	return nil
}
