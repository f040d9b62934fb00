package emit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// SnapshotJSON encodes the snapshot file: the same bytes as
// JSON(Snapshot(srv)), made faster for large catalogs, whose items are
// most of the file. Each item is encoded once, on every CPU, and its
// compact form also feeds catalog_version, which CatalogVersion would
// otherwise encode a second time. The rest of the file is encoded with
// empty item lists, and the items are spliced in.
func SnapshotJSON(srv *language.Server) ([]byte, error) {
	encoded := map[string]*encodedItems{}
	var err error
	s := snapshot(srv, func(l *language.Language, items []pilotage.CatalogEntry) pilotage.CatalogSnapshot {
		e, ierr := encodeItems(items)
		if ierr != nil && err == nil {
			err = ierr
		}
		encoded[l.ID] = e
		return pilotage.CatalogSnapshot{CatalogVersion: e.version, Items: []pilotage.CatalogEntry{}}
	})
	if err != nil {
		return nil, err
	}
	head, err := JSON(s)
	if err != nil {
		return nil, err
	}
	if len(s.Catalog) == 0 {
		return head, nil
	}
	// The catalog member is the document's last, and each catalog inside
	// it holds only its version and items: the first `"items": []` after
	// the member's start belongs to the first Language in key order (how
	// encoding/json writes maps), and so on. Member names and strings are
	// escaped, so the marker cannot occur inside one.
	start := bytes.LastIndex(head, []byte("\n  \"catalog\": {\n"))
	if start < 0 {
		return nil, fmt.Errorf("emit: no catalog member in the snapshot")
	}
	out := bytes.NewBuffer(make([]byte, 0, len(head)+totalLen(encoded)))
	out.Write(head[:start])
	rest := head[start:]
	marker := []byte(`"items": []`)
	for _, id := range slices.Sorted(maps.Keys(s.Catalog)) {
		i := bytes.Index(rest, marker)
		if i < 0 {
			return nil, fmt.Errorf("emit: no items of catalog %s in the snapshot", id)
		}
		out.Write(rest[:i])
		rest = rest[i+len(marker):]
		items := encoded[id].items
		if len(items) == 0 {
			out.Write(marker)
			continue
		}
		out.WriteString("\"items\": [\n")
		for j, it := range items {
			out.WriteString(itemIndent)
			out.Write(it)
			if j < len(items)-1 {
				out.WriteByte(',')
			}
			out.WriteByte('\n')
		}
		out.WriteString(itemIndent[:len(itemIndent)-len(indentUnit)] + "]")
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// indentUnit is one level of JSON's indentation; itemIndent is the
// indentation of a catalog item: snapshot → catalog → Language → items.
const (
	indentUnit = "  "
	itemIndent = indentUnit + indentUnit + indentUnit + indentUnit
)

// encodedItems are a catalog's items as they appear in the snapshot
// (indented for their depth, without the first line's indentation) and
// the catalog's catalog_version.
type encodedItems struct {
	items   [][]byte
	version string
}

// encodeItems encodes items concurrently. The version is CatalogVersion's:
// a hash of each item's json.Marshal form without revision. That form is
// the item's compact encoding, except when the item has a revision or
// characters json.Marshal escapes for HTML (<, >, &) and JSON does not;
// only those are marshalled again.
func encodeItems(items []pilotage.CatalogEntry) (*encodedItems, error) {
	out := &encodedItems{items: make([][]byte, len(items))}
	hashed := make([][]byte, len(items))
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(items))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var compact, indented bytes.Buffer
			enc := json.NewEncoder(&compact)
			enc.SetEscapeHTML(false)
			for i := w; i < len(items); i += workers {
				compact.Reset()
				indented.Reset()
				if errs[i] = enc.Encode(&items[i]); errs[i] != nil {
					continue
				}
				c := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
				if errs[i] = json.Indent(&indented, c, itemIndent, indentUnit); errs[i] != nil {
					continue
				}
				out.items[i] = bytes.Clone(indented.Bytes())
				if items[i].Revision == "" && !bytes.ContainsAny(c, "<>&") {
					hashed[i] = bytes.Clone(c)
					continue
				}
				e := items[i]
				e.Revision = ""
				hashed[i], errs[i] = json.Marshal(e)
			}
		}()
	}
	wg.Wait()
	h := sha256.New()
	for i, b := range hashed {
		if errs[i] != nil {
			return nil, errs[i]
		}
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	out.version = hex.EncodeToString(h.Sum(nil)[:8])
	return out, nil
}

// totalLen bounds the bytes the items add to the file, so the output
// buffer is allocated once: each item with its indentation, comma and
// newline, and each list's closing line.
func totalLen(encoded map[string]*encodedItems) int {
	n := 0
	for _, e := range encoded {
		n += len(itemIndent) + len("]\n")
		for _, it := range e.items {
			n += len(it) + len(itemIndent) + 2
		}
	}
	return n
}
