package emit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
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
// empty item and guide lists, and the items and guides are spliced in.
func SnapshotJSON(srv *language.Server) ([]byte, error) {
	return snapshotJSON(srv, indented)
}

// CompactSnapshotJSON is SnapshotJSON without indentation, the same
// values in under half the bytes for a large catalog (2.3 MB against
// 5.2 for the generated Language of BenchmarkBuildVsDecode). It is for
// a reader that quotes no line of the text, such as lint of a PDL file,
// whose findings are placed in the PDL: the text and the tree that
// shares its strings are live together while the rules run.
func CompactSnapshotJSON(srv *language.Server) ([]byte, error) {
	return snapshotJSON(srv, compact)
}

// layout is how snapshotJSON writes a catalog's items and a Language's
// guides into the encoded rest of the file: catalog opens the
// snapshot's catalog member, empty is an empty item list, open and close
// bracket a list with items, each item indented for its depth and on a
// line of its own when indent; guides opens the guides member, whose
// lists are a Language id, colon, then emptyList, or guideOpen and
// guideClose around its guides.
type layout struct {
	indent                      bool
	catalog, empty, open, close string
	guides, colon, emptyList    string
	guideOpen, guideClose       string
}

var (
	indented = layout{
		indent:  true,
		catalog: "\n  \"catalog\": {\n", empty: `"items": []`, open: "\"items\": [\n",
		close:  itemIndent[:len(itemIndent)-len(indentUnit)] + "]",
		guides: "\n  \"guides\": {", colon: ": ", emptyList: "[]",
		guideOpen: "[\n", guideClose: guideIndent[:len(guideIndent)-len(indentUnit)] + "]",
	}
	compact = layout{catalog: `,"catalog":{`, empty: `"items":[]`, open: `"items":[`, close: "]",
		guides: `,"guides":{`, colon: ":", emptyList: "[]", guideOpen: "[", guideClose: "]"}
)

func snapshotJSON(srv *language.Server, lay layout) ([]byte, error) {
	sp, err := splice(srv, lay)
	if err != nil {
		return nil, err
	}
	return sp.bytes()
}

// spliced is a snapshot ready to be written: the rest of the file
// encoded with empty item and guide lists (head), each catalog's items
// encoded compact, and each Language's guides, from the model, encoded
// one at a time; items and guides are spliced in only as the file is
// written, into a buffer (SnapshotJSON, Files) or straight
// into the file (FilesToWrite and Write), so that a build holds no copy
// of the whole indented file (5.2 MB beside 2.3 of compact items for the
// generated Language of BenchmarkBuildVsDecode; with the guides in the
// head, 51 MB of encoding for 60,000 small guides, docs/performance.md,
// "Many small guides").
type spliced struct {
	lay  layout
	head []byte
	// ids are the catalog-bearing Languages in key order, as
	// encoding/json writes the catalog map; langs every Language in that
	// order, with its guides encoded.
	ids     []string
	encoded map[string]*encodedItems
	langs   []string
	guides  map[string][]*language.Guide
}

// splice encodes srv's snapshot for writing in lay.
func splice(srv *language.Server, lay layout) (*spliced, error) {
	encoded := map[string]*encodedItems{}
	var err error
	// The guides are encoded one at a time as they are written, from
	// the model, which is live anyway: encoded beforehand, 15,000 small
	// guides were 3.8 MB held while build staged its files and lint read
	// the snapshot (docs/performance.md, "What build holds while it
	// lints").
	guides := map[string][]*language.Guide{}
	s := snapshot(srv, func(l *language.Language) []pilotage.Guide {
		guides[l.ID] = l.Guides
		return []pilotage.Guide{}
	}, func(l *language.Language, items []*pilotage.CatalogEntry) pilotage.CatalogSnapshot {
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
	head, err := encode(s, lay.indent)
	if err != nil {
		return nil, err
	}
	return &spliced{lay: lay, head: head, ids: slices.Sorted(maps.Keys(s.Catalog)), encoded: encoded,
		langs: slices.Sorted(maps.Keys(s.Guides)), guides: guides}, nil
}

// elemEncoder encodes values compact, as encoding/json encodes an
// element of a list (no HTML escaping), into one buffer it reuses.
type elemEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newElemEncoder() *elemEncoder {
	e := &elemEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// encode is v's encoding, valid until the next call.
func (e *elemEncoder) encode(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), nil
}

// guide is the encoding of g as the snapshot lists it, valid until the
// next call.
func (e *elemEncoder) guide(g *language.Guide) ([]byte, error) {
	pg := withBody(g)
	return e.encode(&pg)
}

// bytes is the file writeTo writes, in a buffer allocated once.
func (sp *spliced) bytes() ([]byte, error) {
	gl, err := guidesLen(sp.guides, sp.lay)
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, len(sp.head)+totalLen(sp.encoded, sp.lay)+gl))
	if err := sp.writeTo(out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// writeTo writes the file to w. Indented items and guides go through one
// element's scratch buffer (json.Indent writes only to a bytes.Buffer)
// unless w is a bytes.Buffer itself.
func (sp *spliced) writeTo(w io.Writer) error {
	lay := sp.lay
	buf, direct := w.(*bytes.Buffer)
	if !direct {
		buf = new(bytes.Buffer)
	}
	// flush moves what buf holds to w, when buf is a scratch buffer.
	flush := func() error {
		if direct {
			return nil
		}
		_, err := w.Write(buf.Bytes())
		buf.Reset()
		return err
	}
	// list writes n elements, elem(j) the encoding of the jth, indented
	// at indent, between open and close.
	list := func(n int, elem func(j int) ([]byte, error), indent, open, close string) error {
		buf.WriteString(open)
		for j := range n {
			it, err := elem(j)
			if err != nil {
				return err
			}
			if lay.indent {
				buf.WriteString(indent)
				if err := json.Indent(buf, it, indent, indentUnit); err != nil {
					return err
				}
			} else {
				buf.Write(it)
			}
			if j < n-1 {
				buf.WriteByte(',')
			}
			if lay.indent {
				buf.WriteByte('\n')
			}
			if err := flush(); err != nil {
				return err
			}
		}
		buf.WriteString(close)
		return nil
	}
	rest := sp.head
	// The guides member is the last "guides" object (the manifest's
	// capabilities may hold another; the catalog after it, with its
	// items out, none), and holds only each Language's empty list, in
	// key order: the first list after a Language's key and colon is its
	// own. Strings are escaped, so that key, colon and list cannot occur
	// inside one.
	if len(sp.langs) > 0 {
		start := bytes.LastIndex(rest, []byte(lay.guides))
		if start < 0 {
			return fmt.Errorf("emit: no guides member in the snapshot")
		}
		buf.Write(rest[:start])
		rest = rest[start:]
		enc := newElemEncoder()
		for _, id := range sp.langs {
			key, err := enc.encode(id)
			if err != nil {
				return err
			}
			marker := append(append(bytes.Clone(key), lay.colon...), lay.emptyList...)
			i := bytes.Index(rest, marker)
			if i < 0 {
				return fmt.Errorf("emit: no guides of Language %s in the snapshot", id)
			}
			at := i + len(marker) - len(lay.emptyList)
			buf.Write(rest[:at])
			rest = rest[i+len(marker):]
			if gs := sp.guides[id]; len(gs) == 0 {
				buf.WriteString(lay.emptyList)
			} else if err := list(len(gs), func(j int) ([]byte, error) { return enc.guide(gs[j]) }, guideIndent, lay.guideOpen, lay.guideClose); err != nil {
				return err
			}
		}
	}
	if len(sp.ids) == 0 {
		buf.Write(rest)
		return flush()
	}
	// The catalog member is the document's last, and each catalog inside
	// it holds only its version and items: the first empty item list
	// after the member's start belongs to the first Language in key
	// order (how encoding/json writes maps), and so on. Member names and
	// strings are escaped, so the marker cannot occur inside one.
	start := bytes.LastIndex(rest, []byte(lay.catalog))
	if start < 0 {
		return fmt.Errorf("emit: no catalog member in the snapshot")
	}
	buf.Write(rest[:start])
	rest = rest[start:]
	marker := []byte(lay.empty)
	enc := newElemEncoder()
	for _, id := range sp.ids {
		i := bytes.Index(rest, marker)
		if i < 0 {
			return fmt.Errorf("emit: no items of catalog %s in the snapshot", id)
		}
		buf.Write(rest[:i])
		rest = rest[i+len(marker):]
		items := sp.encoded[id].items
		if len(items) == 0 {
			buf.Write(marker)
			continue
		}
		if err := list(len(items), func(j int) ([]byte, error) { return enc.encode(items[j]) }, itemIndent, lay.open, lay.close); err != nil {
			return err
		}
	}
	buf.Write(rest)
	return flush()
}

// indentUnit is one level of JSON's indentation; itemIndent is the
// indentation of a catalog item: snapshot → catalog → Language → items;
// guideIndent of a guide: snapshot → guides → Language.
const (
	indentUnit  = "  "
	itemIndent  = indentUnit + indentUnit + indentUnit + indentUnit
	guideIndent = indentUnit + indentUnit + indentUnit
)

// encodedItems are a catalog's items, its catalog_version and the
// bytes they take in the file. Each item is encoded when the version is
// hashed, and again, then indented for its depth, only as it is written
// into the snapshot, whose buffer those lengths size first: the indented
// items kept beside the buffer, and the compact ones kept beside them
// for the version, were for a large catalog 1.4 times the buffer, live
// while it was written; the compact ones alone, 160 bytes an item of a
// catalog of short entries, beside the model and the buffer, were
// build's and lint's peak (docs/performance.md, "Session 16: terse
// catalogs under the budget").
type encodedItems struct {
	items   []*pilotage.CatalogEntry
	version string
	// compactLen and indentedLen are the items' bytes in each layout,
	// as totalLen counts them.
	compactLen, indentedLen int
}

// itemBatch is how many items encodeItems encodes at once, between
// hashing them in order.
const itemBatch = 1024

// encodeItems encodes items concurrently, a batch at a time. The version
// is CatalogVersion's: a hash of each item's json.Marshal form without
// revision. That form is the item's compact encoding, except when the
// item has a revision or characters json.Marshal escapes for HTML (<, >,
// &) and JSON does not; only those are marshalled again.
func encodeItems(items []*pilotage.CatalogEntry) (*encodedItems, error) {
	out := &encodedItems{items: items}
	n := min(itemBatch, len(items))
	encoded, hashed, errs := make([][]byte, n), make([][]byte, n), make([]error, n)
	h := sha256.New()
	for base := 0; base < len(items); base += itemBatch {
		batch := items[base:min(base+itemBatch, len(items))]
		var wg sync.WaitGroup
		workers := min(runtime.GOMAXPROCS(0), len(batch))
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var compact bytes.Buffer
				enc := json.NewEncoder(&compact)
				enc.SetEscapeHTML(false)
				for i := w; i < len(batch); i += workers {
					compact.Reset()
					hashed[i] = nil
					if errs[i] = enc.Encode(batch[i]); errs[i] != nil {
						continue
					}
					c := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
					encoded[i] = append(encoded[i][:0], c...)
					if batch[i].Revision == "" && !bytes.ContainsAny(c, "<>&") {
						continue // hashed as it is
					}
					e := *batch[i]
					e.Revision = ""
					hashed[i], errs[i] = json.Marshal(e)
				}
			}()
		}
		wg.Wait()
		for i := range batch {
			if errs[i] != nil {
				return nil, errs[i]
			}
			b := hashed[i]
			if b == nil {
				b = encoded[i]
			}
			h.Write(b)
			h.Write([]byte{'\n'})
			out.compactLen += len(encoded[i]) + 1
			out.indentedLen += indentedLen(encoded[i], itemIndent) + len(itemIndent) + 2
		}
	}
	out.version = hex.EncodeToString(h.Sum(nil)[:8])
	return out, nil
}

// guidesLen bounds the bytes the guides add to the file written in lay,
// as totalLen does the items'. Each guide is encoded to be counted, and
// again when written: encoding the small records of guides twice costs
// less than holding them all encoded.
func guidesLen(guides map[string][]*language.Guide, lay layout) (int, error) {
	n := 0
	enc := newElemEncoder()
	for _, gs := range guides {
		n += len(lay.guideOpen) + len(lay.guideClose)
		for _, g := range gs {
			b, err := enc.guide(g)
			if err != nil {
				return 0, err
			}
			if lay.indent {
				n += indentedLen(b, guideIndent) + len(guideIndent) + 2
			} else {
				n += len(b) + 1
			}
		}
	}
	return n, nil
}

// totalLen bounds the bytes the items add to the file written in lay,
// so the output buffer is allocated once: each list's brackets, and each
// item with its comma and, indented, its indentation and newline.
func totalLen(encoded map[string]*encodedItems, lay layout) int {
	n := 0
	for _, e := range encoded {
		n += len(lay.open) + len(lay.close)
		if lay.indent {
			n += e.indentedLen
		} else {
			n += e.compactLen
		}
	}
	return n
}

// IndentedLen is the length of SnapshotJSON's bytes for those of
// CompactSnapshotJSON, c: what a reader that holds a document to a
// budget per byte of it charges for the snapshot, when it reads the
// compact form in place of the file build writes.
func IndentedLen(c []byte) int { return indentedLen(c, "") }

// indentedLen is the length of compact JSON c indented at prefix
// (json.Indent with prefix and indentUnit; an item's prefix is
// itemIndent), counted as json.Indent writes it: a line break before
// each member or element, and after the last before the closing
// bracket, unless the object or array is empty; a space after each
// colon. TestIndentedLen holds it to json.Indent.
func indentedLen(c []byte, prefix string) int {
	n, depth := len(c), 0
	newline := func(depth int) int { return 1 + len(prefix) + depth*len(indentUnit) }
	inString, escaped, opened := false, false, false
	for _, b := range c {
		if opened && b != '}' && b != ']' {
			opened = false
			depth++
			n += newline(depth)
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			opened = true
		case ',':
			n += newline(depth)
		case ':':
			n++
		case '}', ']':
			if opened {
				opened = false
			} else {
				depth--
				n += newline(depth)
			}
		}
	}
	return n
}
