package compile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/schemacost"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// entryState is one catalog entry once its statement is compiled: its
// model, and the places later checks report at, kept as positions rather
// than as the statement's tree, since the file's statements are read one
// at a time and a large catalog's tree is never whole (file).
//
// It takes 112 bytes beside its model: its keyword's place is its
// model's (at), and what few entries have is in more, nil when none of
// it is set (176 bytes, of 760 an entry kept; docs/performance.md,
// "Generated catalogs past the tree budget").
type entryState struct {
	e *language.Entry
	// kind and risk are its options' places (zero when absent).
	kind, risk place
	// more is what it has of entryMore, nil for none.
	more *entryMore
	// inputWritten says its block has an input_schema statement, or a
	// likely misspelling of one: without a compiled input_schema its
	// input is then unknown, not absent, the statement's error said why.
	inputWritten bool
	// index is its place in the compiler's entries and itemSpots.
	index int32
	// input is its input_schema once compiled, for checkSchemaSums.
	input schemaUse
}

// entryMore is what few entries have: places of its languages, fails
// and program statements.
type entryMore struct {
	// languages are the arguments of its languages statement, fails the
	// status of each fail statement, in order.
	languages, fails []place
	// program is its program statement's, nil without one;
	// programMisspelt says a statement of its block is a likely
	// misspelling of program, whose body is then unknown, not absent.
	program         *programAt
	programMisspelt bool
}

// at is the place of the entry's keyword.
func (es *entryState) at() place {
	p := es.e.Pos
	from := pdl.Pos{Offset: int32(p.Offset), Line: int32(p.Line), Column: int32(p.Column)}
	end := from
	end.Advance("entry")
	return place{from, end}
}

// extra is es.more, made when it is nil.
func (es *entryState) extra() *entryMore {
	if es.more == nil {
		es.more = &entryMore{}
	}
	return es.more
}

// program is its program statement's place, nil without one.
func (es *entryState) program() *programAt {
	if es.more == nil {
		return nil
	}
	return es.more.program
}

// programAt is where a promoted program is written: its statement, and
// the value its body was read from, which places the body's findings.
type programAt struct {
	at    place
	value pdl.Value
}

// entryOptions are the options of an entry statement.
var entryOptions = []string{"kind", "risk"}

// entry compiles `entry "id" kind=K risk=R { … }` (§5.4). Kind and risk
// are resolved later, against every Language that sees the entry.
func (c *compiler) entry(s *pdl.Stmt) {
	p := c.shape(s, 1, 1, true, entryOptions...)
	es := &entryState{e: &language.Entry{Pos: c.pos(s.Pos)}}
	e := es.e
	e.ID = c.word(arg(p, 0), "the entry id")
	first, dup := c.entryByID[e.ID]
	dup = dup && e.ID != ""
	if dup {
		c.errf(pdl.RuleDuplicate, argAt{p[0]}, "catalog entry ids are unique (§5.4); the first, at line "+itoa(first.e.Pos.Line)+", is the one checked",
			"entry %s is defined twice", report.Clip(e.ID))
	} else {
		c.entryByID[e.ID] = es
	}
	// Without its kind or risk (absent, misspelt or not a name) the entry
	// has an empty one, which later checks read as unknown.
	if a, ok := s.Option("kind"); ok {
		es.kind, e.Kind = argAt{a}.place(), c.word(a, "the kind")
	} else if !misspelt(s, "kind", entryOptions) {
		c.errf(pdl.RuleRequired, stmtAt{s}, "add kind=KIND (§5.4)", "entry %s has no kind", report.Clip(e.ID))
	}
	if a, ok := s.Option("risk"); ok {
		es.risk, e.Risk = argAt{a}.place(), c.word(a, "the risk")
	} else if !misspelt(s, "risk", entryOptions) {
		c.errf(pdl.RuleRequired, stmtAt{s}, "add risk=RISK: the most an entry can do (§5.3)", "entry %s has no risk", report.Clip(e.ID))
	}
	// fields are the statements that set the entry's members, the last
	// of each keyword.
	var fields []*pdl.Stmt
	index := func(kw string) int {
		return slices.IndexFunc(fields, func(f *pdl.Stmt) bool { return f.Keyword == kw })
	}
	field := func(f func(*pdl.Stmt)) func(*pdl.Stmt) {
		return func(ss *pdl.Stmt) {
			if i := index(ss.Keyword); i >= 0 {
				c.errf(pdl.RuleDuplicate, stmtAt{ss}, "keep one", "%s is given twice", report.Clip(ss.Keyword))
				fields[i] = ss
			} else {
				fields = append(fields, ss)
			}
			f(ss)
		}
	}
	one := func(ss *pdl.Stmt, what string) string { return c.text(arg(c.shape(ss, 1, 1, false), 0), what) }
	words := func(ss *pdl.Stmt, what string) []string {
		var out []string
		for _, a := range c.shape(ss, 1, -1, false) {
			out = append(out, c.word(a, what))
		}
		return out
	}
	b := &e.Behavior
	// Behaviour CEL is checked once the block is read, against the
	// input_schema wherever in the block it stands.
	var computeArg *pdl.Arg
	var whenArgs []*pdl.Arg
	unknown := c.keywords("an entry", s.Children(), map[string]func(*pdl.Stmt){
		"name":        field(func(ss *pdl.Stmt) { e.Name = one(ss, "the name") }),
		"description": field(func(ss *pdl.Stmt) { e.Description = one(ss, "the description") }),
		"revision":    field(func(ss *pdl.Stmt) { e.Revision = one(ss, "the revision") }),
		"tags":        field(func(ss *pdl.Stmt) { e.Tags = words(ss, "a tag") }),
		"languages":   field(func(ss *pdl.Stmt) { e.Languages = words(ss, "a Language id") }),
		"input_schema": field(func(ss *pdl.Stmt) {
			es.inputWritten = true
			e.InputSchema = c.schema(ss, &es.input)
		}),
		"output_schema": field(func(ss *pdl.Stmt) { e.OutputSchema = c.schema(ss, nil) }),
		"returns":       field(func(ss *pdl.Stmt) { b.Returns = c.jsonValue(arg(c.shape(ss, 1, 1, false), 0)) }),
		"compute":       field(func(ss *pdl.Stmt) { computeArg = arg(c.shape(ss, 1, 1, false), 0) }),
		"latency": field(func(ss *pdl.Stmt) {
			a := arg(c.shape(ss, 1, 1, false), 0)
			if a == nil {
				return
			}
			d, err := time.ParseDuration(a.Value.Str())
			if err != nil || d < 0 || d > time.Hour {
				c.valueErr(report.Convention, argAt{a}, "write a duration such as 20ms or 1s", "latency must be a duration up to 1h")
				return
			}
			b.Latency = d
		}),
		"fail": func(ss *pdl.Stmt) {
			p := c.shape(ss, 1, 2, false, "when")
			f := language.Failure{Status: c.word(arg(p, 0), "the status"), Message: c.text(arg(p, 1), "the message")}
			w, _ := ss.Option("when")
			whenArgs = append(whenArgs, w)
			b.Fails = append(b.Fails, f)
			var status place
			if a := arg(p, 0); a != nil {
				status = argAt{a}.place()
			}
			es.extra().fails = append(es.extra().fails, status)
		},
		"program": field(func(ss *pdl.Stmt) {
			prog := &programAt{at: stmtAt{ss}.place()}
			es.extra().program = prog
			a := arg(c.shape(ss, 1, 1, false), 0)
			if e.Program = c.programBody(a); e.Program != nil {
				prog.value = a.Value
				e.ProgramSource = a.Value.Str()
				e.ProgramAt = c.textAt(&a.Value, e.ProgramSource)
			}
		}),
	})
	es.inputWritten = es.inputWritten || unknown.misspell("input_schema")
	if es.program() == nil && unknown.misspell("program") {
		es.extra().programMisspelt = true
	}
	b.ReturnsExpr = c.cel(computeArg, e.InputSchema, false)
	for i, w := range whenArgs {
		b.Fails[i].When = c.cel(w, e.InputSchema, true)
	}
	byKeyword := func(kw string) *pdl.Stmt {
		if i := index(kw); i >= 0 {
			return fields[i]
		}
		return nil
	}
	if b.Returns != nil && b.ReturnsExpr != "" {
		c.errf(pdl.RuleArgs, stmtAt{byKeyword("compute")}, "keep returns (a fixed value) or compute (CEL), not both", "entry %s has both returns and compute", report.Clip(e.ID))
	}
	if ls := byKeyword("languages"); ls != nil {
		for _, a := range ls.Positional() {
			es.extra().languages = append(es.extra().languages, argAt{a}.place())
		}
	}
	if dup {
		// Its block is checked above, but what calls the id calls the
		// first: were it in the catalog too, the checks that resolve
		// the id would judge callers on the second, the catalog would
		// list the id twice, and each would be reported as well.
		return
	}
	es.index = int32(len(c.entries))
	c.entries = append(c.entries, es)
	c.itemSpots = append(c.itemSpots, spotOf(s.Pos))
}

// visible returns the entries Language id sees, in file order, or none
// when the Language declares no catalog.
// It is called once all entries are known, and remembers its answer.
func (c *compiler) visible(id string) []*entryState {
	if out, ok := c.visibleCache[id]; ok || c.tooBig {
		return out
	}
	ls := c.lang(id)
	if ls == nil || !c.hasCatalog(ls) {
		return nil
	}
	n := 0
	for _, es := range c.entries {
		if sees(es.e, id) {
			n++
		}
	}
	// Every entry is the common case: the list is the compiler's own.
	out := c.entries
	if n < len(c.entries) {
		out = make([]*entryState, 0, n)
		for _, es := range c.entries {
			if sees(es.e, id) {
				out = append(out, es)
			}
		}
	}
	c.visibleCache[id] = out
	return out
}

func (c *compiler) hasCatalog(ls *langState) bool {
	return pilotage.Effective(c.srv.Capabilities, ls.lang.Capabilities).Has(pilotage.CapCatalog)
}

func sees(e *language.Entry, id string) bool {
	if len(e.Languages) == 0 {
		return true
	}
	for _, l := range e.Languages {
		if l == id {
			return true
		}
	}
	return false
}

func (c *compiler) lang(id string) *langState { return c.langByID[id] }

// kinds and risks of a Language, read in place: its sets start with
// the file's shared values (compiler.language), so they are all of them,
// each once. resolveIn asks once an entry, and a copy of 25,000 risk
// levels an entry was a megabyte of garbage each (docs/performance.md,
// "A Language block a statement at a time").
func (c *compiler) kindsOf(ls *langState) iter.Seq[closedsets.Kind] {
	return slices.Values(ls.sets.kinds)
}

func (c *compiler) risksOf(ls *langState) iter.Seq[closedsets.Risk] {
	return slices.Values(ls.sets.risks)
}

// namesOf is the name of each value of values, for a did-you-mean.
func namesOf[T any](values iter.Seq[T], name func(T) string) []string {
	var out []string
	for v := range values {
		out = append(out, name(v))
	}
	return out
}

func (c *compiler) stepStatusesOf(ls *langState) []string {
	out := []string{pilotage.StatusPartial}
	for _, s := range append(append([]closedsets.Status(nil), c.shared.step...), ls.sets.step...) {
		if !s.OK {
			out = append(out, s.Status)
		}
	}
	return out
}

// MaxCatalogItems bounds the catalog items a build lists over all
// Languages: entries without a languages list appear in every catalog, so
// a small hostile file could otherwise ask for a quadratic snapshot.
const MaxCatalogItems = 1 << 20

// resolveEntries resolves each entry's kind, risk, languages and failure
// statuses against every Language that sees it, then checks promoted
// program bodies.
func (c *compiler) resolveEntries() {
	ids := make([]string, len(c.langs))
	var catalogLangs []*langState
	for i, ls := range c.langs {
		ids[i] = ls.lang.ID
		if c.hasCatalog(ls) {
			catalogLangs = append(catalogLangs, ls)
		}
	}
	total := 0
	for _, es := range c.entries {
		if n := len(es.e.Languages); n > 0 {
			total += n
		} else {
			total += len(catalogLangs)
		}
	}
	if total > MaxCatalogItems {
		c.tooBig = true
		c.valueErr(report.Convention, c.entries[0].at(), "restrict entries to the Languages that use them with languages \"…\"",
			"the catalogs would list %d items in all; the limit is %d", total, MaxCatalogItems)
		return
	}
	for _, es := range c.entries {
		e := es.e
		// The Languages that see the entry, in file order.
		seers := catalogLangs
		if len(e.Languages) > 0 {
			seers = nil
			for i, id := range e.Languages {
				l := c.lang(id)
				switch {
				case id == "":
				case l == nil:
					c.errf(pdl.RuleReference, es.more.languages[i], suggest.DidYouMean(id, ids), "entry %s names Language %s, which is not defined", report.Clip(e.ID), report.Clip(id))
				case !c.hasCatalog(l) && misspeltCapabilities(l.stmt):
					// Its misspelt capabilities block is the mistake.
				case !c.hasCatalog(l):
					c.errf(pdl.RuleReference, es.at(), "declare catalog in that Language, or remove it from languages (§4.3 rule 2)",
						"entry %s is for Language %s, which declares no catalog", report.Clip(e.ID), report.Clip(id))
				default:
					seers = append(seers, l)
				}
			}
			sort.SliceStable(seers, func(i, j int) bool { return seers[i].index < seers[j].index })
		} else if len(c.langs) > 0 && len(catalogLangs) == 0 && !c.capabilitiesMisspelt() {
			c.errf(pdl.RuleReference, es.at(), "declare catalog in a Language that should offer it (§4.3 rule 2)",
				"entry %s is in no Language's catalog", report.Clip(e.ID))
		}
		for i, ls := range seers {
			if i > 0 && ls == seers[i-1] {
				continue
			}
			c.resolveIn(es, ls, i == 0)
		}
	}
	c.srv.Catalog = slices.Grow(c.srv.Catalog, len(c.entries))
	for _, es := range c.entries {
		c.srv.Catalog = append(c.srv.Catalog, es.e)
	}
	for _, es := range c.entries {
		if es.program() == nil {
			continue
		}
		for _, ls := range catalogLangs {
			if sees(es.e, ls.lang.ID) {
				c.checkProgram(es, ls)
			}
		}
	}
}

// resolveIn checks an entry against one Language that sees it; first is
// true for the first such Language, whose risk hints the entry takes.
//
// An undefined kind or risk level is reported at its first use only: a
// misspelt definition (kind devise) otherwise gave one error per entry
// of that kind, one root cause in many errors (issue 13 item 15).
func (c *compiler) resolveIn(es *entryState, ls *langState, first bool) {
	e := es.e
	if e.Kind != "" {
		// A pointer into the list, not to a copy: a copy each entry
		// and kind was garbage the collector, running at the soft
		// memory limit, counted live (docs/performance.md, "Session 16").
		var kind *closedsets.Kind
		for i := range ls.sets.kinds {
			if ls.sets.kinds[i].Kind == e.Kind {
				kind = &ls.sets.kinds[i]
			}
		}
		switch {
		case kind == nil && (!c.firstUndefined(ls, "kind", e.Kind) || c.lostDef(ls, "kind", e.Kind)):
			ls.broken = true
		case kind == nil:
			ls.broken = true
			c.errHint(pdl.RuleReference, es.kind, func() string {
				return hintOr(suggest.DidYouMean(e.Kind, namesOf(c.kindsOf(ls), func(k closedsets.Kind) string { return k.Kind })), "define it: kind "+e.Kind+" callable \"…\"")
			},
				"kind %s is not defined for Language %s", report.Clip(e.Kind), report.Clip(ls.lang.ID))
		case kind.Promoted && es.program() == nil && (es.more == nil || !es.more.programMisspelt):
			c.errf(pdl.RuleRequired, es.at(), `add program """{"steps": […]}""": the body a run step executes (§3.5)`,
				"entry %s is a promoted program without a body", report.Clip(e.ID))
		case !kind.Promoted && es.program() != nil:
			c.valueErr("5.4", es.program().at, "give the entry a kind marked promoted", "entry %s has a program but its kind %s is not promoted", report.Clip(e.ID), report.Clip(e.Kind))
		}
		if kind != nil && kind.Promoted && !es.inputWritten {
			c.errf(pdl.RuleRequired, es.at(), "add input_schema `{\"type\": \"object\"}` (§5.4)", "promoted program %s has no input_schema", report.Clip(e.ID))
		}
	}
	if e.Risk != "" {
		found := false
		for r := range c.risksOf(ls) {
			if r.Risk != e.Risk {
				continue
			}
			found = true
			if first {
				e.RiskHints = r.Hints
			} else if e.RiskHints != r.Hints {
				c.valueErr("5.3", es.risk, "define the level once, at file level, for every Language",
					"risk %s has different hints in the Languages that see entry %s", report.Clip(e.Risk), report.Clip(e.ID))
			}
		}
		if !found {
			ls.broken = true
		}
		if !found && c.firstUndefined(ls, "risk", e.Risk) && !c.lostDef(ls, "risk", e.Risk) {
			c.errHint(pdl.RuleReference, es.risk, func() string {
				return hintOr(suggest.DidYouMean(e.Risk, namesOf(c.risksOf(ls), func(r closedsets.Risk) string { return r.Risk })), "define it: risk "+e.Risk+" readOnly \"…\"")
			},
				"risk %s is not defined for Language %s", report.Clip(e.Risk), report.Clip(ls.lang.ID))
		}
	}
	if len(e.Behavior.Fails) == 0 {
		return
	}
	statuses := c.stepStatusesOf(ls)
	for i, f := range e.Behavior.Fails {
		if f.Status == "" || slices.Contains(statuses, f.Status) || c.lostDef(ls, "status", f.Status) {
			continue
		}
		c.errf(pdl.RuleReference, es.more.fails[i], hintOr(suggest.DidYouMean(f.Status, statuses), "define it: status step "+f.Status+" ok=false \"…\""),
			"failure status %s is not a failing step status of Language %s", report.Clip(f.Status), report.Clip(ls.lang.ID))
	}
}

// ItemSpotsAt is where the catalog item of the entry statement at item
// in src, the Language's PDL file, and its members came from
// (language.ItemMembers; risk_hints comes from the risk), read again
// from src: the compiled Language keeps the item's place alone
// (language.Language.ItemSpotsAt). A member's place is that of the last
// statement that sets it, the one the compiler took.
func ItemSpotsAt(src []byte, item language.Spot) language.ItemSpots {
	var at language.ItemSpots
	at[0] = item
	s := pdl.StatementAt(src, pdl.Pos{Offset: item.Offset, Line: item.Line, Column: item.Column})
	if s == nil || s.Keyword != "entry" {
		return at
	}
	put := func(member string, p pdl.Pos) {
		at[1+slices.Index(language.ItemMembers[:], member)] = spotOf(p)
	}
	if a := arg(s.Positional(), 0); a != nil {
		put("id", a.Pos)
	}
	if a, ok := s.Option("kind"); ok {
		put("kind", a.Pos)
	}
	if a, ok := s.Option("risk"); ok {
		put("risk", a.Pos)
		put("risk_hints", a.Pos)
	}
	for _, f := range s.Children() {
		if slices.Contains(language.ItemMembers[4:], f.Keyword) {
			put(f.Keyword, f.Pos)
		}
	}
	return at
}

// spotOf is p as a Spot of the compiled file.
func spotOf(p pdl.Pos) language.Spot {
	return language.Spot{Line: p.Line, Column: p.Column, Offset: p.Offset}
}

// schemaControl is read's hint for a control character in a schema's
// file: JSON refuses a C0 control in a string anyway, and takes DEL and
// the C1 controls, which the same schema written in the PDL may not hold.
func schemaControl(r rune) string {
	return fmt.Sprintf("remove it; in a JSON string it may be written \\u%04x", r)
}

// schema compiles `X_schema `{…}“ or `X_schema file="x.json"`: the JSON
// must parse and compile as a JSON Schema. It returns the schema with
// sorted keys, so output does not depend on how it was written, and
// sets *use (unless use is nil) when it compiled, for checkSchemaSums.
func (c *compiler) schema(s *pdl.Stmt, use *schemaUse) json.RawMessage {
	p := c.shape(s, 0, 1, false, "file")
	file, hasFile := s.Option("file")
	var src []byte
	var at *pdl.Arg
	switch {
	case hasFile && len(p) > 0:
		c.errf(pdl.RuleArgs, stmtAt{s}, "keep either the inline schema or file=", "%s has both an inline schema and a file", report.Clip(s.Keyword))
		return nil
	case hasFile:
		what := entrySchemaFile
		if s.Keyword == "context_schema" {
			what = manifestSchemaFile
		}
		b, ok := c.read(file, c.text(file, "the file name"), what)
		if !ok {
			return nil
		}
		src, at = b, file
	case len(p) == 1:
		src, at = []byte(c.text(p[0], "the schema")), p[0]
	default:
		c.errf(pdl.RuleArgs, stmtAt{s}, usage[s.Keyword], "%s needs a schema", report.Clip(s.Keyword))
		return nil
	}
	// A schema in a file is input of its own: its budget counts its
	// bytes beside the PDL's.
	budget := c.schemaBudget
	if hasFile {
		budget += jsonpos.TreePerByte * int64(len(src))
	}
	out, ok := c.schemas[string(src)]
	if !ok || out.over && out.cost <= budget {
		// Catalogs repeat a few schemas many times; each is checked once
		// (again only when prepare left it for a larger budget).
		out = compileSchema(src, budget)
		c.schemas[string(src)] = out
	}
	switch {
	case out.bad != nil:
		c.jsonSyntax(at, hasFile, src, out.bad, out.hint, s.Keyword+" "+out.err)
	case out.err != "":
		c.errf(pdl.RuleJSON, argAt{at}, out.hint, "%s %s", report.Clip(s.Keyword), out.err)
	case out.cost > budget:
		// Also when the same text compiled in a file, whose budget is
		// larger.
		about, where := "about", "the PDL file"
		if out.lower {
			about = "at least"
		}
		if hasFile {
			where += " and the schema's file"
		}
		c.errf(pdl.RuleJSON, argAt{at}, "split the schema or shorten its enums: a long list of values is better checked by the server behind the entry than by a JSON Schema enum (docs/pdl.md, \"JSON Schemas\")",
			"%s is too large to compile: compiling it would take %s %d bytes, over the budget of %d bytes a byte of %s plus %d MiB (%d bytes)",
			report.Clip(s.Keyword), about, out.cost, jsonpos.TreePerByte, where, jsonpos.TreeSlack>>20, budget)
		return nil
	}
	if out.schema != nil && use != nil {
		if out.id == 0 {
			c.schemaCosts = append(c.schemaCosts, schemaCost{out.cost, len(src)})
			out.id = int32(len(c.schemaCosts))
			c.schemas[string(src)] = out
		}
		*use = schemaUse{at: argAt{at}.place(), id: out.id, inFile: hasFile}
	}
	return out.schema
}

// schemaResult is a compiled schema, or why it does not compile: err
// completes "<keyword> …"; bad is where the text stops being JSON, when
// that is why. cost is what compiling it takes (schemacost), when it is
// JSON; over says it was not compiled, its cost being over the budget it
// was given, and lower that cost is then only schemacost.Least. id
// names the text once a statement used the compiled schema: its place in
// compiler.schemaCosts, from 1.
type schemaResult struct {
	schema      json.RawMessage
	err, hint   string
	bad         *jsonpos.SyntaxError
	cost        int64
	over, lower bool
	id          int32
}

// jsonSyntax reports msg, a JSON syntax error se in src, the text of a
// (the file a names when inFile), at the bad character: in the file, or
// in a raw string, plain string or text block as written, so the caret
// is under it rather than under the opening quotes. A text block's text
// is dedented (pdl.Dedent), so its line and column are found in the
// block as valuePos finds an example's. A string with escapes is
// reported as a whole. The message is jsonpos's, the words lint uses
// for malformed JSON, not encoding/json's.
func (c *compiler) jsonSyntax(a *pdl.Arg, inFile bool, src []byte, se *jsonpos.SyntaxError, hint, msg string) {
	if !inFile && se.Pos.Offset < len(src) && a.Value.WrittenControl(src[se.Pos.Offset:]) {
		// JSON stops at the first raw control character, which the
		// parser already reported where it is written: one error.
		return
	}
	var at lexer.Position
	ok := true
	switch {
	case inFile:
		at = lexer.Position{Filename: c.path(a.Value.Str()), Offset: se.Pos.Offset, Line: se.Pos.Line, Column: se.Pos.Column}
	case a.Value.Kind() == pdl.KindText:
		// In a text block valuePos counts a column in characters, as
		// se does.
		at = valuePos(c.name, &a.Value, se.Pos.Line, se.Pos.Column)
	default:
		at, ok = contentPos(c.name, &a.Value, utf8.RuneCount(src[:min(se.Pos.Offset, len(src))]))
	}
	if !ok {
		c.errf(pdl.RuleJSON, argAt{a}, hint, "%s", msg)
		return
	}
	c.add(pdl.Errorf(pdl.RuleJSON, at, lexer.Position{}, hint, msg))
}

// compileSchema parses and compiles a JSON Schema, returning it with
// sorted keys, or a message (completing "<keyword> …") and a hint.
// It compiles the way lint and the engine do, with pilotage.CompileOffline:
// a schema may not pull in files or URLs, so a hostile definition cannot
// read the disk or the network through "$ref", and what compiles here
// compiles for them. A schema whose compiling would take more than
// budget (schemacost) is not compiled, nor its tree built when its
// values alone cost more: the caller reports it. Nor is one nested
// deeper than schemacost.MaxDepth, which would cost time quadratic in
// its depth. A text compiled before in the process, and still kept
// (compiled), is not compiled again.
func compileSchema(src []byte, budget int64) schemaResult {
	// A byte order mark or UTF-16 is named as lint names it in a JSON file.
	if se := jsonpos.CheckEncoding(src); se != nil {
		return schemaResult{hint: "a schema file is UTF-8 JSON without a byte order mark", err: "is not valid JSON: " + se.Msg}
	}
	var se *jsonpos.SyntaxError
	tally, err := jsonpos.CheckTally(src)
	if errors.As(err, &se) {
		return schemaResult{hint: "a schema is one JSON value", err: "is not valid JSON: " + se.Msg, bad: se}
	}
	if least := schemacost.Least(tally); least > budget {
		return schemaResult{cost: least, over: true, lower: true}
	}
	tree, err := jsonpos.ParseShared(src)
	if err != nil {
		return schemaResult{hint: "a schema is one JSON value", err: "is not valid JSON: " + err.Error()}
	}
	if schemacost.TooDeep(tree.Root) {
		return schemaResult{hint: `flatten the schema with "$defs" and "$ref"; compiling this depth would cost time quadratic in it`,
			err: fmt.Sprintf("nests more than %d levels deep, too deep to compile", schemacost.MaxDepth)}
	}
	cost := schemacost.Cost(tree.Root)
	if cost > budget {
		return schemaResult{cost: cost, over: true}
	}
	key := string(src) // a copy: src may be a piece of the whole source
	r, ok := compiled.Get(key)
	if !ok {
		r = compileText(src)
		r = compiled.Put(key, r, len(r.schema)+len(r.err)+len(r.hint))
	}
	r.cost = cost
	return r
}

// compileText compiles src, a schema within its budget, with
// pilotage.CompileOffline: checking it against its draft's metaschema
// is most of what compiling a small schema costs.
func compileText(src []byte) schemaResult {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return schemaResult{hint: "a schema is one JSON value", err: "is not valid JSON: " + err.Error()}
	}
	if _, err := pilotage.CompileOffline(schemaName, doc); err != nil {
		msg, hint := schemaProblem(err)
		return schemaResult{hint: hint, err: msg}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return schemaResult{err: err.Error()}
	}
	return schemaResult{schema: out}
}

// schemaName is what compileSchema names every schema for
// pilotage.CompileOffline. The results are shared by every keyword with
// the same text, so the messages leave the name out and say "it".
const schemaName = "schema"

// schemaProblem says why a schema does not compile, completing
// "<keyword> …", with a hint: the metaschema's complaints with the
// pointers they are at, a reference outside the schema, or a "$ref" to a
// place the schema does not have.
func schemaProblem(err error) (msg, hint string) {
	f := pilotage.ExplainCompileError(schemaName, err)
	switch {
	case f.Violations != nil:
		var parts []string
		for _, v := range f.Violations {
			at := v.Pointer
			if at == "" {
				at = "the top"
			}
			parts = append(parts, "at "+at+": "+oneLine(v.Message))
		}
		return "is not a valid JSON Schema: " + strings.Join(parts, "; "), "check it against JSON Schema draft 2020-12"
	case f.Outside != "":
		return fmt.Sprintf("refers to %q, outside itself; schemas are compiled offline and nothing is fetched", report.Clip(f.Outside)),
			`make it self-contained: copy the referenced schema under "$defs" and refer to it as "#/$defs/<name>"; a "$schema" must name a standard draft`
	case f.Dangling != "":
		return fmt.Sprintf(`has a "$ref" to %q, which is not in it`, report.Clip(f.Dangling)),
			`define the part under "$defs", or point the "$ref" at a part the schema has`
	}
	return "does not compile: " + oneLine(err.Error()), "check it against JSON Schema draft 2020-12"
}

// jsonValue parses a JSON literal (a raw string or text block), returning
// it with sorted keys.
func (c *compiler) jsonValue(a *pdl.Arg) json.RawMessage {
	if a == nil {
		return nil
	}
	src := c.text(a, "the JSON value")
	var se *jsonpos.SyntaxError
	if err := jsonpos.Check([]byte(src)); errors.As(err, &se) {
		c.jsonSyntax(a, false, []byte(src), se, "write one JSON value in `back-quotes` or a \"\"\"text block\"\"\"", "not valid JSON: "+se.Msg)
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		c.errf(pdl.RuleJSON, argAt{a}, "write one JSON value", "not valid JSON: %v", err)
		return nil
	}
	out, _ := json.Marshal(v)
	return out
}

// textAt is where the lines of the content text of a text block v are in
// the PDL, as valuePos places them: the first line, and the first of the
// others that is not blank (a blank line keeps no indentation to
// measure). Another literal has no lines of its own: the zero TextAt.
func (c *compiler) textAt(v *pdl.Value, text string) language.TextAt {
	at := func(line int) language.Spot {
		p := valuePos(c.name, v, line, 1)
		return language.Spot{Line: int32(p.Line), Column: int32(p.Column)}
	}
	if v.Kind() != pdl.KindText {
		return language.TextAt{} // valuePos places every line at the value
	}
	out := language.TextAt{First: at(1), Rest: at(1)}
	rest := text
	for n := 2; ; n++ {
		_, after, more := strings.Cut(rest, "\n")
		if !more {
			return out
		}
		rest = after
		if line, _, _ := strings.Cut(rest, "\n"); strings.TrimSpace(line) != "" {
			out.Rest = at(n)
			out.Rest.Line -= int32(n - 2)
			return out
		}
	}
}

// programBody is a promoted program's body as the engine keeps it: a
// body in the JSON step model is its JSON value; any other body is the
// program text of a Language with `syntax text`, kept as a JSON string,
// the form a text-range program travels in (binding.md). Each Language
// that sees the entry then reads it with its own Syntax (checkProgram),
// so a text body seen by a JSON Language is reported there.
func (c *compiler) programBody(a *pdl.Arg) json.RawMessage {
	if a == nil {
		return nil
	}
	src := c.text(a, "the program")
	if t := strings.TrimSpace(src); t == "" || t[0] == '{' || t[0] == '[' || t[0] == '"' {
		return c.jsonValue(a)
	}
	out, _ := json.Marshal(src)
	return out
}

func hintOr(h, fallback string) string {
	if h != "" {
		return h
	}
	return fallback
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// unwrapPathError drops the path from a file error: the finding already
// names the file.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// firstUndefined reports whether name, of a closed set (kind, risk) the
// Language ls does not define, is met there for the first time, and
// remembers it.
func (c *compiler) firstUndefined(ls *langState, set, name string) bool {
	key := undefinedUse{ls, set, name}
	if c.undefined[key] {
		return false
	}
	c.undefined[key] = true
	return true
}

// undefinedUse is a name of a closed set a Language does not define:
// keyed by the Language's state, not its id, which may be megabytes: a
// key holding the id would copy it for each undefined name.
type undefinedUse struct {
	ls        *langState
	set, name string
}

// lostDef reports whether value of set is defined, for Language ls, by
// a statement that could not be read (setDecls.lostDef).
func (c *compiler) lostDef(ls *langState, set, value string) bool {
	return c.shared.lostDef(set, value) || ls.sets.lostDef(set, value)
}

// capabilitiesMisspelt reports whether a Language of the file has its
// capabilities block misspelt: it may be the one meant to offer a
// catalog, so entries in no catalog are not reported for it.
func (c *compiler) capabilitiesMisspelt() bool {
	return slices.ContainsFunc(c.langs, func(ls *langState) bool { return misspeltCapabilities(ls.stmt) })
}
