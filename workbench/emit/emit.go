// Package emit turns a compiled Server (internal/model/language) into the
// artifacts a Pilotage Server publishes: the manifest (§5.1), the snapshot
// file of data-model.md (manifest, guides with bodies, catalogs), and the
// guides as Markdown files. Output is byte-identical for the same input:
// struct members in a fixed order, map keys sorted, no timestamps.
package emit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// Manifest builds the manifest: one Language entry per Language, with
// operation addresses named by the binding's rule (binding.md) and present
// exactly when the effective capabilities declare them (§4.3 rule 7).
func Manifest(srv *language.Server) *pilotage.Manifest {
	m := &pilotage.Manifest{Pilotage: pilotage.Version, Capabilities: srv.Capabilities, Languages: []pilotage.LanguageEntry{}}
	if srv.Name != "" || srv.Version != "" {
		m.Server = &pilotage.ServerInfo{Name: srv.Name, Version: srv.Version}
	}
	for _, l := range srv.Languages {
		caps := pilotage.Effective(srv.Capabilities, l.Capabilities)
		e := pilotage.LanguageEntry{
			ID: l.ID, Title: l.Title, Description: l.Description, Capabilities: l.Capabilities,
			Guides:             binding.Tool(l.ID, binding.Learn),
			Loop:               pilotage.Loop{Validate: binding.Tool(l.ID, binding.Validate)},
			Locator:            l.Locator,
			ContextSchema:      l.ContextSchema,
			ExecutionMode:      l.ExecutionMode,
			TraceLevel:         l.TraceLevel,
			Retention:          l.Retention,
			TraceSubprogram:    l.TraceSubprogram,
			PromotionAuthority: l.PromotionAuthority,
		}
		if caps.Has(pilotage.CapCatalog) {
			e.Catalog = binding.Tool(l.ID, binding.Lookup)
		}
		if caps.Has(pilotage.CapExecute) {
			e.Loop.Execute = binding.Tool(l.ID, binding.Execute)
		}
		if caps.Has(pilotage.CapTraceFetch) {
			e.Loop.Trace = binding.Tool(l.ID, binding.Trace)
		}
		m.Languages = append(m.Languages, e)
	}
	return m
}

// Catalog returns the entries Language l sees, in definition order, or
// nil when l declares no catalog.
func Catalog(srv *language.Server, l *language.Language) []pilotage.CatalogEntry {
	return copies(catalogOf(srv, l))
}

// catalogOf is Catalog pointing into the model, in a list of exactly its
// length: a snapshot's splice encodes the items from it, where a copy of
// them, grown by doubling, took 200 to 400 bytes an entry beside the
// model (docs/performance.md, "Generated catalogs past the tree budget").
func catalogOf(srv *language.Server, l *language.Language) []*pilotage.CatalogEntry {
	if !pilotage.Effective(srv.Capabilities, l.Capabilities).Has(pilotage.CapCatalog) {
		return nil
	}
	sees := func(e *language.Entry) bool { return len(e.Languages) == 0 || slices.Contains(e.Languages, l.ID) }
	n := 0
	for _, e := range srv.Catalog {
		if sees(e) {
			n++
		}
	}
	items := make([]*pilotage.CatalogEntry, 0, n)
	for _, e := range srv.Catalog {
		if sees(e) {
			items = append(items, &e.CatalogEntry)
		}
	}
	return items
}

// copies is the entries items point to, nil for nil.
func copies(items []*pilotage.CatalogEntry) []pilotage.CatalogEntry {
	if items == nil {
		return nil
	}
	out := make([]pilotage.CatalogEntry, len(items))
	for i, e := range items {
		out[i] = *e
	}
	return out
}

// CatalogVersion is the opaque catalog_version of a list of entries: a
// hash of everything but `revision`, the one field whose change does not
// change the version (§5.4, §11.3).
func CatalogVersion(items []pilotage.CatalogEntry) string {
	h := sha256.New()
	for _, e := range items {
		e.Revision = ""
		b, _ := json.Marshal(e)
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Snapshot builds the snapshot file: the manifest, every Language's
// guides with their bodies, and each catalog-bearing Language's catalog.
func Snapshot(srv *language.Server) *pilotage.Snapshot {
	return snapshot(srv, func(l *language.Language) []pilotage.Guide {
		gs := make([]pilotage.Guide, len(l.Guides))
		for i, g := range l.Guides {
			gs[i] = withBody(g)
		}
		return gs
	}, func(_ *language.Language, seen []*pilotage.CatalogEntry) pilotage.CatalogSnapshot {
		items := copies(seen)
		return pilotage.CatalogSnapshot{CatalogVersion: CatalogVersion(items), Items: items}
	})
}

// withBody is g as the snapshot lists it, with its body.
func withBody(g *language.Guide) pilotage.Guide {
	pg := g.Guide
	body := g.Body
	pg.Body = &body
	return pg
}

// snapshot builds the snapshot with each Language's guides listed by
// guides and each catalog-bearing Language's catalog made by catalog
// from the entries it sees.
func snapshot(srv *language.Server, guides func(*language.Language) []pilotage.Guide, catalog func(*language.Language, []*pilotage.CatalogEntry) pilotage.CatalogSnapshot) *pilotage.Snapshot {
	s := &pilotage.Snapshot{Snapshot: pilotage.SnapshotFormat, Manifest: *Manifest(srv),
		Guides: map[string][]pilotage.Guide{}}
	for _, l := range srv.Languages {
		s.Guides[l.ID] = guides(l)
		if items := catalogOf(srv, l); items != nil {
			if s.Catalog == nil {
				s.Catalog = map[string]pilotage.CatalogSnapshot{}
			}
			s.Catalog[l.ID] = catalog(l, items)
		}
	}
	return s
}

// JSON encodes v the way every emitted file is written: two-space
// indentation, no HTML escaping (guides are Markdown), a final newline.
func JSON(v any) ([]byte, error) { return encode(v, true) }

// encode is JSON, indented or not.
func encode(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", indentUnit)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// File is one emitted file: its path relative to the output directory
// (slash-separated) and its bytes.
type File struct {
	Path string
	Data []byte
	// snap, in a file of FilesToWrite, is the snapshot Write writes in
	// place of Data; text is a guide's body, written in place of Data
	// too, so that the bodies are not held twice (a Language of 60,000
	// small guides held 7 MB of copies).
	snap *spliced
	text string
}

// Files renders every artifact: manifest.json, snapshot.json and
// guides/<language prefix>/<guide>.md, in that order.
func Files(srv *language.Server) ([]File, error) {
	files, err := FilesToWrite(srv)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		switch {
		case f.snap != nil:
			if files[i].Data, err = f.snap.bytes(); err != nil {
				return nil, err
			}
			files[i].snap = nil
		case f.Data == nil:
			files[i].Data, files[i].text = []byte(f.text), ""
		}
	}
	return files, nil
}

// FilesToWrite is Files for Write alone: snapshot.json and the guides
// have no Data, and Write writes the snapshot straight into its file, so
// that the whole indented snapshot is never held in memory
// (docs/performance.md, "Peak memory of build and lint"), and each guide
// from its body. The snapshot's items are encoded already: what fails to
// encode fails here, as in Files.
func FilesToWrite(srv *language.Server) ([]File, error) {
	man, err := JSON(Manifest(srv))
	if err != nil {
		return nil, err
	}
	snap, err := splice(srv, indented)
	if err != nil {
		return nil, err
	}
	out := []File{{Path: "manifest.json", Data: man}, {Path: "snapshot.json", snap: snap}}
	for _, l := range srv.Languages {
		for _, g := range l.Guides {
			// Guide ids may hold any character; the binding's prefix rule
			// makes them safe as file names too.
			out = append(out, File{Path: "guides/" + binding.Prefix(l.ID) + "/" + binding.Prefix(g.ID) + ".md", text: g.Body})
		}
	}
	return out, nil
}

// Write writes Files under dir, creating directories as needed: Stage,
// then Commit.
func Write(dir string, files []File, keep []string) error {
	st, err := Stage(dir, files, keep)
	if err != nil {
		return err
	}
	return st.Commit()
}

// Staged is a build written beside its files, not yet in their place.
// It holds each file's path as the File did (not joined to dir) and its
// temporary file's name without the directory: build lints with the
// files staged, and 15,000 guides' joined names and their temporary
// ones, with the Files beside them, were 3.4 MB live through lint, the
// peak of build (docs/performance.md, "What build holds while it
// lints").
type Staged struct {
	dir string
	// rels are the files' paths relative to dir, slash-separated, and
	// staged how many of them have a temporary file, in the same
	// directory: the ith's name is tempName(tag, i), or taken[i] where
	// that name was another file's (a name a file, 15,000 guides' 700 KB
	// live through lint, docs/performance.md "The last Language rows
	// under 10 bytes a byte"). Those before done are renamed already.
	rels   []string
	tag    uint32
	taken  map[int]string
	staged int
	done   int
	// made are the directories Stage made, outermost first.
	made []string
}

// path is where the ith file goes.
func (st *Staged) path(i int) string { return filepath.Join(st.dir, filepath.FromSlash(st.rels[i])) }

// tmp is the ith file's temporary file.
func (st *Staged) tmp(i int) string {
	name, ok := st.taken[i]
	if !ok {
		name = tempName(st.tag, i)
	}
	return filepath.Join(filepath.Dir(st.path(i)), name)
}

// tempName is the name of the ith staged file's temporary file, of a
// Stage tagged tag.
func tempName(tag uint32, i int) string {
	return tempPrefix + strconv.FormatUint(uint64(tag), 10) + "-" + strconv.Itoa(i)
}

// tempPrefix starts the name of every temporary file of a build.
const tempPrefix = ".pilotage-build-"

// Paths are the staged files' paths relative to the output directory
// (slash-separated), as their Files held them.
func (st *Staged) Paths() []string { return st.rels }

// Stage writes Files under dir, each to a temporary file beside its
// name, creating directories as needed; Commit moves them in place and
// Discard removes them. Before it writes anything, it refuses to replace
// a file of keep — the definition's own sources: `-o .` beside a PDL
// whose guide bodies sit where the build writes its guides would
// otherwise overwrite them — or a directory.
//
// The files are renamed over their names only once all of them are
// written: a build that fails part way (a full disk, a guides directory
// it may not write) leaves the earlier build as it was, not a
// snapshot.json that describes guides missing beside it. The snapshot of
// FilesToWrite is let go of once written: files are written once, and
// once staged, nothing of them but their paths is needed again (build
// lints with the files staged, not held).
func Stage(dir string, files []File, keep []string) (*Staged, error) {
	return stage(dir, files, keep, rand.Uint32())
}

// stage is Stage with the tag of the temporary files' names.
func stage(dir string, files []File, keep []string, tag uint32) (_ *Staged, err error) {
	kept := statAll(keep)
	st := &Staged{dir: dir, rels: make([]string, len(files)), tag: tag}
	for i, f := range files {
		st.rels[i] = f.Path
		p := st.path(i)
		fi, serr := os.Stat(p)
		switch {
		case serr != nil:
		case kept.Has(fi):
			return nil, fmt.Errorf("%s is a file the definition reads; writing the build there would replace it: choose another output directory", filepath.ToSlash(p))
		case fi.IsDir():
			return nil, fmt.Errorf("%s is a directory; the build writes a file there: choose another output directory", filepath.ToSlash(p))
		}
	}
	defer func() {
		if err != nil {
			st.Discard()
		}
	}()
	for i, f := range files {
		p := st.path(i)
		st.made = append(st.made, missingDirs(filepath.Dir(p))...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		want := tempName(st.tag, i)
		t, err := writeTemp(p, want, f)
		if err != nil {
			return nil, err
		}
		st.staged++
		if t != want {
			if st.taken == nil {
				st.taken = map[int]string{}
			}
			st.taken[i] = t
		}
		// The snapshot's encoded head and items, as large as the file,
		// are not needed again: the collector may have them while the
		// guides are written. Held, a Language of 60,000 small guides
		// kept the heap at the soft memory limit (cmd/memlimit.go) for
		// all of those writes, collecting without pause.
		files[i].snap = nil
	}
	return st, nil
}

// Commit renames the staged files over their names; after a failure,
// what is not renamed yet is discarded.
func (st *Staged) Commit() error {
	for ; st.done < st.staged; st.done++ {
		if err := os.Rename(st.tmp(st.done), st.path(st.done)); err != nil {
			st.Discard()
			return err
		}
	}
	return nil
}

// Discard removes the staged files not renamed yet, and the directories
// Stage made, innermost first, so that a refused build leaves no empty
// guides/ behind; os.Remove keeps one a renamed file is in.
func (st *Staged) Discard() {
	for i := st.done; i < st.staged; i++ {
		os.Remove(st.tmp(i))
	}
	for i := len(st.made) - 1; i >= 0; i-- {
		os.Remove(st.made[i])
	}
	st.staged, st.taken, st.made, st.done = 0, nil, nil, 0
}

// missingDirs is dir and those of its parents that do not exist yet,
// outermost first: what os.MkdirAll(dir) makes.
func missingDirs(dir string) []string {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	slices.Reverse(missing)
	return missing
}

// writeTemp writes f's bytes to a new file beside name, readable by all
// as os.WriteFile(name, data, 0o644) would leave it, and returns the new
// file's name without its directory: want, unless a file has that name
// already (left by a build of the same tag), then one os.CreateTemp
// makes. A snapshot of FilesToWrite goes through a buffer of
// 64 KiB, so that its items are not written one system call each. An
// error names name, the file the user asked for, not the temporary one.
func writeTemp(name, want string, f File) (string, error) {
	fail := func(err error) (string, error) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", &fs.PathError{Op: "write", Path: name, Err: err}
	}
	tmp, err := os.OpenFile(filepath.Join(filepath.Dir(name), want), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		tmp, err = os.CreateTemp(filepath.Dir(name), tempPrefix+"*")
	}
	if err != nil {
		return fail(err)
	}
	if f.snap != nil {
		w := bufio.NewWriterSize(tmp, 64<<10)
		if err = f.snap.writeTo(w); err == nil {
			err = w.Flush()
		}
	} else if f.Data != nil {
		_, err = tmp.Write(f.Data)
	} else {
		_, err = tmp.WriteString(f.text)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fail(err)
	}
	if base := filepath.Base(tmp.Name()); base != want {
		return strings.Clone(base), nil
	}
	return want, nil
}

// statAll is the set of every path that exists.
func statAll(paths []string) *inputs.FileSet {
	s := &inputs.FileSet{}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			s.Add(fi)
		}
	}
	return s
}

// Stale is what an earlier build left under DIR/guides/ that this build
// did not write.
type Stale struct {
	// Removed lists the *.md files (slash-separated, relative to DIR) that
	// RemoveStale deleted from the guides/<prefix>/ directories this build
	// writes: guides since removed or renamed in the PDL.
	Removed []string
	// Left lists the guides/<name>/ directories no Language of this build
	// writes into (a Language renamed or removed, or someone else's files),
	// left in place because build does not own them.
	Left []string
}

// RemoveStale deletes, after Write(dir, files), every regular *.md file in
// a guides/<prefix>/ directory of files that files does not hold, so a
// server or `lint DIR/...` never reads a guide the definition no longer
// has. It deletes nothing else: not other kinds of files, not
// subdirectories, not what lies outside the directories this build writes
// guides into; those only show up in Left. A listed file is kept when it
// is the same file as one just written, so a guide renamed only in letter
// case is not deleted on a case-insensitive file system, and a file of
// keep (the definition's own sources) is never deleted.
func RemoveStale(dir string, files []File, keep []string) (Stale, error) {
	kept := statAll(keep)
	written := map[string]*inputs.FileSet{}
	for _, f := range files {
		d := path.Dir(f.Path)
		if path.Dir(d) != "guides" {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return Stale{}, err
		}
		if written[d] == nil {
			written[d] = &inputs.FileSet{}
		}
		written[d].Add(fi)
	}
	var st Stale
	dirs := make([]string, 0, len(written))
	for d := range written {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			return st, err
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				return st, err
			}
			if written[d].Has(fi) || kept.Has(fi) {
				continue
			}
			p := d + "/" + e.Name()
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				return st, err
			}
			st.Removed = append(st.Removed, p)
		}
	}
	ents, err := os.ReadDir(filepath.Join(dir, "guides"))
	if err != nil && !os.IsNotExist(err) {
		return st, err
	}
	for _, e := range ents {
		if e.IsDir() && written["guides/"+e.Name()] == nil {
			st.Left = append(st.Left, "guides/"+e.Name()+"/")
		}
	}
	return st, nil
}
