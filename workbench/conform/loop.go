package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/emit"
)

// absent is an id no server publishes: asking for it must be a
// not_found request error (data-model.md §8).
const absent = "pilotage-conform.absent/0"

// snapshotFile is the snapshot (docs/snapshot.md) assembled from the
// server's answers, kept as the server wrote them: decoding them into
// typed values would hide what lint must see (unknown members, wrong
// types, member order for positions).
type snapshotFile struct {
	Snapshot string                       `json:"snapshot"`
	Manifest json.RawMessage              `json:"manifest"`
	Guides   map[string][]json.RawMessage `json:"guides"`
	Catalog  map[string]*catalogFile      `json:"catalog,omitempty"`
}

type catalogFile struct {
	CatalogVersion json.RawMessage   `json:"catalog_version"`
	Items          []json.RawMessage `json:"items"`
}

// guide is what conform reads of a guide object.
type guide struct {
	ID   string  `json:"id"`
	Body *string `json:"body"`
}

// run is the whole check after initialize.
func (c *checker) run() error {
	discover, declared, ok := c.extension()
	if !ok {
		return nil
	}
	var tools map[string]*mcp.Tool
	if caps := c.cs.InitializeResult().Capabilities; declared || (caps != nil && caps.Tools != nil) {
		tools = c.listTools()
	}
	if !declared && !c.undeclared(tools) {
		return nil
	}
	m := c.call(discover, nil)
	if !c.expect(m, "discover") {
		return nil
	}
	snap := &snapshotFile{Snapshot: pilotage.SnapshotFormat, Manifest: m.raw, Guides: map[string][]json.RawMessage{}}
	var man pilotage.Manifest
	if err := json.Unmarshal(m.raw, &man); err != nil {
		// lint reports what is wrong with it; nothing else can be asked.
		c.status("the manifest does not decode (%v); linting it alone", err)
	}
	c.status("discover: %s", count(len(man.Languages), "Language"))
	// The program's Language is chosen first, so a wrong --language fails
	// before any other request.
	lang := 0
	if c.opt.Program != nil {
		var err error
		if lang, err = pickLanguage(&man, c.opt.LanguageID); err != nil {
			return err
		}
		if lang >= c.opt.MaxLanguages {
			return fmt.Errorf("--language %q is Language %d of the manifest, past the first %d conform reads; raise --max-languages", report.Clip(c.opt.LanguageID), lang+1, c.opt.MaxLanguages)
		}
	}
	if n := len(man.Languages); n > c.opt.MaxLanguages {
		// Each Language costs learn, lookup (every page) and probe
		// requests; a manifest of thousands would take hours. The
		// Languages past the bound are left out of the snapshot too, so
		// lint does not report the guides and catalog conform never read.
		c.find(RuleReadBounds, m.op, "/structuredContent/languages", "%d Languages; only the first %d (--max-languages) were read and checked, and snapshot.json lists only them; raise --max-languages to check the other %d", n, c.opt.MaxLanguages, n-c.opt.MaxLanguages)
		man.Languages = man.Languages[:c.opt.MaxLanguages]
		snap.Manifest = firstLanguages(m.raw, c.opt.MaxLanguages)
	}
	// The tools the manifest names, each once, in order; a set beside the
	// list keeps this linear in a manifest of many Languages.
	names, named := []string{discover}, map[string]bool{discover: true}
	for _, l := range man.Languages {
		for _, a := range []string{l.Guides, l.Catalog, l.Loop.Validate, l.Loop.Execute, l.Loop.Trace} {
			if a != "" && !named[a] {
				names, named[a] = append(names, a), true
			}
		}
	}
	c.tools(tools, names)
	// guides holds the Languages whose guides were all read; unread the
	// Languages some of whose guides or catalog were not (see lint).
	guides := map[string][]guide{}
	var unread unreadParts
	for i, l := range man.Languages {
		if l.Guides != "" {
			gs, raws, all := c.learn(l)
			snap.Guides[l.ID] = raws
			if all {
				guides[l.ID] = gs
			} else {
				unread.guides = append(unread.guides, l.ID)
			}
		}
		if l.Catalog != "" {
			if cat := c.lookup(l); cat == nil {
				unread.catalogs = append(unread.catalogs, i)
			} else {
				if snap.Catalog == nil {
					snap.Catalog = map[string]*catalogFile{}
				}
				snap.Catalog[l.ID] = cat
			}
		}
		c.requestErrors(l)
		if l.Catalog != "" {
			c.changedSince(&man, l)
		}
	}
	c.carrierErrors(discover)
	c.resources(c.listResources(), m.raw, guides)
	src, err := emit.JSON(snap)
	if err != nil {
		return err
	}
	path, err := c.save("snapshot.json", src)
	if err != nil {
		return err
	}
	c.status("saved the snapshot in %s", path)
	if err := c.lint(path, src, unread); err != nil {
		return err
	}
	if c.opt.Program != nil {
		return c.program(&man, man.Languages[lang], path, src)
	}
	return nil
}

// learn reads a Language's guide index and every guide with its body.
// A guide whose fetch is not answered is left out, as is every guide
// when the index is not answered: the snapshot holds what the server
// said, never a guide without the body it would have had; all is false
// then.
func (c *checker) learn(l pilotage.LanguageEntry) (gs []guide, raws []json.RawMessage, all bool) {
	a := c.call(l.Guides, map[string]any{})
	var idx struct {
		Guides []json.RawMessage `json:"guides"`
	}
	raws = []json.RawMessage{}
	if what := "learn index of " + report.Clip(l.ID); !c.expect(a, what) || !c.decode(a, what, &idx) {
		return nil, raws, false
	}
	if len(idx.Guides) > c.opt.MaxItems {
		c.find(RuleReadBounds, a.op, "/structuredContent/guides", "%d guides; only the first %d (--max-items) were read", len(idx.Guides), c.opt.MaxItems)
		idx.Guides = idx.Guides[:c.opt.MaxItems]
	}
	all = true
	for _, raw := range idx.Guides {
		var g guide
		_ = json.Unmarshal(raw, &g)
		if g.ID != "" {
			f := c.call(l.Guides, map[string]any{"id": g.ID})
			var fetched struct {
				Guide json.RawMessage `json:"guide"`
			}
			what := fmt.Sprintf("learn %q of %s", report.Clip(g.ID), report.Clip(l.ID))
			if !c.expect(f, what) || !c.decode(f, what, &fetched) {
				all = false
				continue
			}
			if fetched.Guide == nil {
				c.find(RuleOperationAnswers, f.op, "/structuredContent/guide", "%s: the answer has no guide", what)
				all = false
				continue
			}
			raw = fetched.Guide
			_ = json.Unmarshal(raw, &g)
		}
		gs = append(gs, g)
		raws = append(raws, raw)
	}
	c.status("learn %s: %s", report.Clip(l.ID), count(len(gs), "guide"))
	return gs, raws, all
}

// lookup reads a Language's whole catalog through list, following
// cursors within the bounds. It is nil when the first page is not
// answered (there is no catalog_version to give it); when a later one is
// not, the items read are kept.
func (c *checker) lookup(l pilotage.LanguageEntry) *catalogFile {
	cat := &catalogFile{Items: []json.RawMessage{}}
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		if pages == c.opt.MaxPages {
			c.find(RuleReadBounds, "tools/call "+l.Catalog, "/structuredContent/next_cursor", "still more pages after %d (--max-pages); the rest of the catalog of %s was not read", pages, report.Clip(l.ID))
			break
		}
		args := map[string]any{"verb": pilotage.VerbList}
		if cursor != "" {
			args["cursor"] = cursor
		}
		a := c.call(l.Catalog, args)
		var page struct {
			Items          []json.RawMessage `json:"items"`
			NextCursor     string            `json:"next_cursor"`
			CatalogVersion json.RawMessage   `json:"catalog_version"`
		}
		if what := "lookup list of " + report.Clip(l.ID); !c.expect(a, what) || !c.decode(a, what, &page) {
			if pages == 0 {
				return nil
			}
			break
		}
		pages++
		if pages == 1 {
			cat.CatalogVersion = page.CatalogVersion
		} else if string(page.CatalogVersion) != string(cat.CatalogVersion) {
			c.find(RuleLookupPaging, a.op, "/structuredContent/catalog_version", "page %d is at catalog_version %s, page 1 at %s: the catalog read is not one version", pages, page.CatalogVersion, cat.CatalogVersion)
		}
		room := c.opt.MaxItems - len(cat.Items)
		if len(page.Items) > room {
			cat.Items = append(cat.Items, page.Items[:room]...)
			c.find(RuleReadBounds, a.op, "/structuredContent/items", "the catalog of %s has more than %d items (--max-items); the rest was not read", report.Clip(l.ID), c.opt.MaxItems)
			break
		}
		cat.Items = append(cat.Items, page.Items...)
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] {
			c.find(RuleLookupPaging, a.op, "/structuredContent/next_cursor", "next_cursor %q was returned before: the cursors of %s loop", report.Clip(page.NextCursor), report.Clip(l.ID))
			break
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	c.status("lookup %s: %s in %s", report.Clip(l.ID), count(len(cat.Items), "item"), count(pages, "page"))
	return cat
}

// decode decodes a processed answer into v; an answer that does not
// decode is not read, and a finding says so (lint sees only what was
// read).
func (c *checker) decode(a answer, what string, v any) bool {
	if err := json.Unmarshal(a.raw, v); err != nil {
		c.find(RuleOperationAnswers, a.op, "/structuredContent", "%s: the answer does not read: %v", what, err)
		return false
	}
	return true
}

// requestErrors provokes harmless request errors: an unknown guide, entry
// and run are not_found (data-model.md §8).
func (c *checker) requestErrors(l pilotage.LanguageEntry) {
	if l.Guides != "" {
		c.notFound(c.call(l.Guides, map[string]any{"id": absent}), "an unknown guide id")
	}
	if l.Catalog != "" {
		c.notFound(c.call(l.Catalog, map[string]any{"verb": pilotage.VerbGet, "id": absent}), "lookup get of an unknown id")
	}
	if l.Loop.Trace != "" {
		c.notFound(c.call(l.Loop.Trace, map[string]any{"run_id": absent}), "an unknown run_id")
	}
}

// requestErrorKinds is the closed set of request error kinds (§8).
var requestErrorKinds = []string{pilotage.ErrInvalidRequest, pilotage.ErrNotFound, pilotage.ErrUnsupported,
	pilotage.ErrConflict, pilotage.ErrUnknownBaseline, pilotage.ErrResourceLimit, pilotage.ErrInternal}

// notFound checks the answer to a request for something that does not
// exist.
func (c *checker) notFound(a answer, what string) {
	c.requestErrorOf(RuleRequestErrorChannel, a, what, pilotage.ErrNotFound, "§8: unknown guides, entries and runs are not_found")
}

// envelope checks a request error's structuredContent: {"error": {kind,
// message, catalog_version?}} with a kind of the closed set.
func (c *checker) envelope(op string, raw json.RawMessage) {
	var env struct {
		Error *struct {
			Kind    *string `json:"kind"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	switch {
	case json.Unmarshal(raw, &env) != nil || env.Error == nil:
		c.find(RuleRequestErrorChannel, op, "/structuredContent", "a request error's structuredContent is not {\"error\": {\"kind\", \"message\"}}: %s", compact(raw))
	case env.Error.Kind == nil || !slices.Contains(requestErrorKinds, *env.Error.Kind):
		c.find(RuleRequestErrorChannel, op, "/structuredContent/error/kind", "the error kind is not one of %v", requestErrorKinds)
	case env.Error.Message == nil:
		c.find(RuleRequestErrorChannel, op, "/structuredContent/error/message", "the request error has no message")
	}
}

// unreadParts is what conform asked for and was not answered: guides
// lists the Languages some of whose guides were not read, catalogs the
// manifest indexes of those whose catalog was not
// read at all.
type unreadParts struct {
	guides   []string
	catalogs []int
}

// missing reports whether f, a lint finding on the snapshot, is only
// about what was not read: a Language's guides or catalog missing, or
// its guide set lacking the guide a rule looks for (core-guide and
// closed-sets-guide point at the set). What was read is linted as any
// snapshot is.
func (u unreadParts) missing(f report.Finding) bool {
	for _, id := range u.guides {
		if f.Pointer == "/guides/"+pilotage.EscapePointerToken(id) {
			return true
		}
	}
	for _, i := range u.catalogs {
		if f.Rule == "catalog-declared" && strings.HasPrefix(f.Pointer+"/", "/manifest/languages/"+strconv.Itoa(i)+"/") {
			return true
		}
	}
	return false
}

// lint runs every lint rule on the saved snapshot, but for the findings
// about what the server did not answer: conform reported that it did not
// (a timeout, a closed connection), and the snapshot holds only what was
// read.
func (c *checker) lint(path string, src []byte, unread unreadParts) error {
	rep, err := lint.Run(rules.All(), []*lint.Input{{File: path, Src: src}}, lint.Config{Disabled: disabledOf(c.opt.Disabled, lintRules()), MaxPerRule: c.maxPerRule()})
	if err != nil {
		return err
	}
	rep.Findings = slices.DeleteFunc(rep.Findings, unread.missing)
	c.merge(rep)
	return nil
}

// maxPerRule is Options.MaxPerRule with its default.
func (c *checker) maxPerRule() int {
	if c.opt.MaxPerRule > 0 {
		return c.opt.MaxPerRule
	}
	return report.DefaultMaxPerRule
}

// merge adds another checker's findings, sources and rules.
func (c *checker) merge(rep *report.Report) {
	c.rep.Add(rep.Findings...)
	for f, src := range rep.Sources {
		c.rep.Sources[f] = src
	}
	for _, r := range rep.Rules {
		if !slices.ContainsFunc(c.infos, func(x report.RuleInfo) bool { return x.ID == r.ID }) {
			c.infos = append(c.infos, r)
		}
	}
}

// firstLanguages is the manifest as the server wrote it, but with only
// the first n entries of its languages array (of every "languages"
// member, should there be duplicates), so the snapshot keeps the
// server's bytes, and lint's positions, for what conform read. The
// manifest decoded into more than n Languages, so it is valid JSON; a
// manifest it cannot cut is returned whole.
func firstLanguages(raw json.RawMessage, n int) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return raw
	}
	var out []byte
	from := 0 // the start of raw not copied yet
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return raw
		}
		if key != "languages" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return raw
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return raw
		}
		cut := false
		for i := 0; dec.More(); i++ {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return raw
			}
			if i == n-1 {
				out, cut = append(out, raw[from:dec.InputOffset()]...), true
			}
		}
		if _, err := dec.Token(); err != nil {
			return raw
		}
		if cut {
			// Resume at the closing bracket, dropping the entries past n.
			from = int(dec.InputOffset()) - 1
		}
	}
	return append(out, raw[from:]...)
}
