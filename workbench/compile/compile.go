// Package compile turns a parsed PDL file into the compiled Language model
// (internal/model/language): it resolves every name, fills defaults, adds the
// reserved closed-set values, reads the guides and JSON Schemas the file
// names, type-checks CEL in entry behaviour, checks promoted program
// bodies, and records where in the PDL every emitted value came from. It
// reports every problem it finds as a positioned finding and never stops
// at the first.
package compile

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/schemacost"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// Options tune compilation.
type Options struct {
	// ReadFile reads a file the PDL names (a guide, a JSON Schema), given
	// its path relative to the PDL file's directory Dir. Nil reads from
	// disk.
	ReadFile func(path string) ([]byte, error)
	// Dir is the directory file names are relative to.
	Dir string
	// Cap, when set, lists at most its number of findings of one rule per
	// file (--max-per-rule): a finding past it is counted in Cap and its
	// message is never built, so a file repeating one wrong line 300,000
	// times does not build 600,000 findings to list 100. Result.Findings
	// then holds only what Cap lists in the end, the first of each rule
	// by position, handed on (report.Cap.Take); a report that lists them
	// adds them with report.Report.AddListed and takes Cap's counts
	// (sharing Cap, or through Cap.Include).
	Cap *report.Cap
	// Shared promises that the source is never changed after: the
	// compiled model's strings are then slices of it rather than of a
	// copy (pdl.ParseShared), a byte a byte of the file less to hold.
	Shared bool
}

// Result is a compiled file.
type Result struct {
	Server   *language.Server
	Findings []report.Finding
	// Sources holds the bytes of the PDL file and every file it named, by
	// the name findings carry, so reporters can show snippets.
	Sources map[string][]byte
}

// OK reports whether the file compiled without errors. Under a cap it
// still can tell: every compile finding is an error and the cap lists the
// first of each rule, so an error left out follows one that is listed.
func (r *Result) OK() bool {
	for _, f := range r.Findings {
		if f.Severity == report.Error {
			return false
		}
	}
	return true
}

// FileBound is the most read of a PDL file or a file it names (a guide):
// pdl.Parse refuses a larger file anyway, and reading stops there, so a
// device or FIFO named as one ends with this error instead of growing
// without end.
var FileBound = inputs.Bound{Bytes: pdl.MaxFileBytes, Of: "the most a PDL file or a file it names may hold",
	Hint: "a Language's files are far smaller; check that the right file is named"}

// Load reads and compiles the PDL file at path, listing at most max
// findings of one rule (so a file repeating one wrong line 300,000 times
// never holds more), and returns with the result the text-ready report of
// its findings, the PDL and every file it names as sources. The error is
// the one reading path gave.
func Load(path string, max int) (*Result, *report.Report, error) {
	src, err := inputs.ReadFile(path, FileBound)
	if err != nil {
		return nil, nil, err
	}
	if err := notPDL(path, src); err != nil {
		return nil, nil, err
	}
	rep := &report.Report{Tool: "pilotage", Files: []string{path}, Cap: report.NewCap(max)}
	res := Source(path, src, Options{Dir: filepath.Dir(path), Cap: rep.Cap, Shared: true})
	rep.AddListed(res.Findings...)
	rep.Sources = res.Sources
	rep.Summary.Files = 1
	rep.Sort()
	return res, rep, nil
}

// Source parses and compiles src, named name. It reads src with
// pdl.Stream, a top-level statement at a time, so the whole tree of a
// large file is never live (docs/performance.md, "Peak memory of build and
// lint").
func Source(name string, src []byte, opts Options) *Result {
	return source(name, src, opts, func(name string, src []byte) (*pdl.File, []report.Finding) {
		return pdl.Stream(name, src, opts.Shared)
	})
}

// source is Source reading src with read (tests compare the streamed
// reading with Parse's whole tree).
func source(name string, src []byte, opts Options, read func(string, []byte) (*pdl.File, []report.Finding)) *Result {
	f, findings := read(name, src)
	res := &Result{Sources: map[string][]byte{name: src}}
	c := newCompiler(opts, res)
	c.schemaBudget = schemacost.Budget(len(src))
	for _, p := range findings {
		c.add(p)
	}
	if f == nil || f.Unbalanced {
		// A tree whose blocks are a guess would have each statement
		// recovery put in the wrong block reported again.
		return c.done()
	}
	c.name, c.tree = f.Name, f
	c.file(f)
	res.Server = c.srv
	return c.done()
}

// compiler holds the state of one compilation.
type compiler struct {
	opts Options
	// name is the PDL file's, which its tree's positions are in; tree
	// is the file, whose Language blocks are read with tree.Children.
	name string
	tree *pdl.File
	// res collects the findings as they are raised (add).
	res *Result
	srv *language.Server

	// serverStmt is the server statement, whose name every caller reads
	// in the manifest (checkShownNames).
	serverStmt *pdl.Stmt
	// shared are the closed-set statements at file level, which every
	// Language inherits.
	shared setDecls
	// langs holds each Language's statements and sets while compiling.
	langs []*langState
	// entries are the catalog entries with their statements, and
	// itemSpots the place of each one's item, the same in every Language
	// whose catalog lists it: a Language that lists every entry shares
	// them as its Items (positions). Held in each entry's state, and
	// copied into those Items beside it, the places of an item and its
	// members took 288 bytes an entry (docs/performance.md, "Many small
	// entries"); held once, 144, which the members' places, read again
	// when a finding needs them (ItemSpotsAt), no longer take.
	entries   []*entryState
	itemSpots []language.Spot
	// principalPatterns locate each principal's sees patterns, in order,
	// beside its Sees, so a pattern that matches nothing is reported at
	// itself.
	principalPatterns [][]*pdl.Arg
	// badPatterns are the malformed sees patterns, reported with the
	// others by checkPrincipals.
	badPatterns []badPattern
	// seesUnknown are the principals with a misspelt sees statement, a
	// malformed pattern or one that matches no entry: what they see is
	// unknown, so no guide is judged on hiding names from them. Nil
	// until one is.
	seesUnknown map[*language.Principal]bool
	// schemas and celCache remember what was already checked (celCache
	// by celKey); inputEnvs are the behaviour CEL environments by
	// input_schema.
	schemas   map[string]schemaResult
	celCache  map[celKey]celResult
	inputEnvs map[string]*inputEnv
	// schemaBudget is what compiling an inline schema may take: the
	// budget of the PDL's bytes (schemacost.Budget); a schema in a file
	// adds its own bytes (schema).
	schemaBudget int64
	// schemaCosts are the distinct schema texts statements used, by
	// schemaResult.id - 1.
	schemaCosts []schemaCost
	// Indexes by name, so no check is quadratic in the size of the file.
	langByID     map[string]*langState
	entryByID    map[string]*entryState
	visibleCache map[string][]*entryState
	// tooBig is set when the catalogs would exceed MaxCatalogItems; no
	// catalog is then built.
	tooBig bool
	// principalNames and principalTokens find duplicates.
	principalNames  map[string]bool
	principalTokens map[string]string
	// undefined holds the undefined kinds and risk levels already
	// reported, by Language (firstUndefined).
	undefined map[undefinedUse]bool
	// fileTexts are the files entries' schemas name, as strings, and
	// fileNames the words of each that name an entry (checkShownNames).
	fileTexts map[string]string
	fileNames map[string][]idWord
	// idHeads are the first two bytes of every entry id (named), and
	// longestID the length of the longest.
	idHeads   *heads
	longestID int
	// cur is the Language whose definition is being compiled: an error
	// then marks its definition broken (langState.broken).
	cur *langState
	// nearFile is the file a missing name most likely meant, "" for
	// none; nil when files are not read from disk (Options.ReadFile).
	nearFile func(name string) string
}

func newCompiler(opts Options, res *Result) *compiler {
	var nearFile func(string) string
	if opts.ReadFile == nil {
		dir := opts.Dir
		opts.ReadFile = func(p string) ([]byte, error) { return inputs.ReadRegular(filepath.Join(dir, p), FileBound) }
		nearFile = func(p string) string { return suggest.Path(dir, p) }
	}
	c := &compiler{opts: opts, res: res, nearFile: nearFile, srv: &language.Server{Positions: map[string]language.Pos{}},
		schemas: map[string]schemaResult{}, celCache: map[celKey]celResult{}, inputEnvs: map[string]*inputEnv{},
		langByID: map[string]*langState{}, entryByID: map[string]*entryState{}, visibleCache: map[string][]*entryState{},
		principalNames: map[string]bool{}, principalTokens: map[string]string{}, undefined: map[undefinedUse]bool{}}
	c.shared.c = c
	return c
}

// errf records an error finding at a statement, argument or value. The
// message is built only when the cap lists the finding.
func (c *compiler) errf(rule string, at positioned, hint, format string, args ...any) {
	c.errHint(rule, at, func() string { return hint }, format, args...)
}

// errHint is errf with a hint that costs something to find (a
// did-you-mean), built, like the message, only when the cap lists the
// finding: a file of 100,000 misspelt keywords would otherwise compare
// each with every keyword for findings never shown.
func (c *compiler) errHint(rule string, at positioned, hint func() string, format string, args ...any) {
	pos, end := at.span(c.name)
	c.addLazy(pdl.Errorf(rule, pos, end, "", ""), hint, format, args...)
}

// citeErr is errHint for a finding that cites section rather than its
// rule's: a rule whose checks serve several sections.
func (c *compiler) citeErr(rule, section string, at positioned, hint func() string, format string, args ...any) {
	pos, end := at.span(c.name)
	f := pdl.Errorf(rule, pos, end, "", "")
	f.CiteSections([]string{section})
	c.addLazy(f, hint, format, args...)
}

// valueErr is a pdl-value error citing section, the one that defines
// the value (the rule's Sections list every one cited).
func (c *compiler) valueErr(section string, at positioned, hint, format string, args ...any) {
	c.citeErr(pdl.RuleValue, section, at, func() string { return hint }, format, args...)
}

// addLazy records f, given its hint and message only when the cap lists
// it (errHint).
func (c *compiler) addLazy(f report.Finding, hint func() string, format string, args ...any) {
	if c.listed(f) {
		f.Hint = hint()
		f.Message = fmt.Sprintf(format, args...)
		c.record(f)
	}
}

// add records a finding built whole, when the cap lists it.
func (c *compiler) add(f report.Finding) {
	if c.listed(f) {
		c.record(f)
	}
}

// listed reports whether a finding is listed: always without a cap, else
// when the cap admits it (counting it otherwise), for now (report.Cap:
// one raised later before it may take its place). Only the finding's
// rule, section, severity, file and position are read.
func (c *compiler) listed(f report.Finding) bool {
	if c.cur != nil && f.Severity == report.Error {
		c.cur.broken = true
	}
	return c.opts.Cap == nil || c.opts.Cap.Admit(f)
}

// record keeps f, which listed admitted: in the findings, or in the cap
// until the compilation ends (done).
func (c *compiler) record(f report.Finding) {
	if c.opts.Cap != nil {
		c.opts.Cap.Keep(f)
		return
	}
	c.res.Findings = append(c.res.Findings, f)
}

// done takes the findings the cap lists in the end into the result.
func (c *compiler) done() *Result {
	if c.opts.Cap != nil {
		c.res.Findings = c.opts.Cap.Take()
	}
	return c.res
}

// positioned is anything with a source span in the PDL file.
type positioned interface {
	span(file string) (lexer.Position, lexer.Position)
}

type stmtAt struct{ s *pdl.Stmt }
type argAt struct{ a *pdl.Arg }

// place is the span of a statement or an argument without its tree: what
// a later check needs of an entry once the entry's statement is garbage.
type place struct{ from, to pdl.Pos }

func (p place) span(file string) (lexer.Position, lexer.Position) {
	return p.from.In(file), p.to.In(file)
}

// A statement's span is its first line: underlining a whole block helps
// nobody.
func (x stmtAt) place() place {
	end := x.s.Pos
	end.Advance(x.s.Keyword)
	return place{x.s.Pos, end}
}

// An argument's span is the whole of it, or its key when it spans lines.
func (x argAt) place() place {
	end := x.a.End()
	if strings.Contains(x.a.Value.Literal(), "\n") {
		end = x.a.Pos
		end.Advance(x.a.Key)
	}
	return place{x.a.Pos, end}
}

func (x stmtAt) span(file string) (lexer.Position, lexer.Position) { return x.place().span(file) }
func (x argAt) span(file string) (lexer.Position, lexer.Position)  { return x.place().span(file) }

// pos converts a position of the PDL file to the model's.
func (c *compiler) pos(p pdl.Pos) language.Pos {
	return language.Pos{File: c.name, Line: int(p.Line), Column: int(p.Column), Offset: int(p.Offset)}
}

// keywords dispatches the statements of one body to handlers (dispatch),
// and returns those whose keyword is unknown. stmts is the caller's to
// give up (a Children list): each is cleared once dispatched, so a
// statement neither the handler nor the tree keeps is garbage while the
// next compiles (language).
func (c *compiler) keywords(where string, stmts []*pdl.Stmt, handlers map[string]func(*pdl.Stmt)) unknownKeywords {
	var u unknownKeywords
	for i, s := range stmts {
		if !c.dispatch(where, s, handlers) {
			u.add(s, handlers)
		}
		stmts[i] = nil
	}
	return u
}

// dispatch hands a statement to its handler, reporting an unknown
// keyword with a did-you-mean over the keywords of that place; false for
// an unknown keyword, and for a statement left out for an error of its
// value (pdl.Stmt.Dropped), which the caller keeps as it keeps an
// unknown one: its error said the statement is there, so its absence is
// not reported too.
func (c *compiler) dispatch(where string, s *pdl.Stmt, handlers map[string]func(*pdl.Stmt)) bool {
	if s.Keyword == pdl.Placeholder {
		return s.Dropped() == ""
	}
	h, ok := handlers[s.Keyword]
	if !ok {
		c.errHint(pdl.RuleUnknown, stmtAt{s}, func() string {
			names := slices.Sorted(maps.Keys(handlers))
			if hint := suggest.DidYouMean(s.Keyword, names); hint != "" {
				return hint
			}
			return where + " takes: " + strings.Join(names, ", ")
		}, "unknown keyword %s in %s", report.Clip(s.Keyword), where)
		return false
	}
	h(s)
	return true
}

// unknownKeywords are the statements of a body whose keyword is none of
// its handlers'.
type unknownKeywords struct {
	stmts []*pdl.Stmt
	// names are the body's keywords, sorted. Not the handlers: a map
	// kept would leave the heap a handlers map every body builds.
	names []string
	// meant is the keyword each statement likely misspells ("" for
	// none), found at the first question (meanings).
	meant []string
}

// misspell reports whether one of the statements is a likely misspelling
// of keyword (dispatch's did-you-mean). Its "unknown keyword" error then
// says the statement is missing, so its absence is not reported again,
// and what it would set is unknown, not absent (a misspelt program gave
// "is a promoted program without a body" besides). Only a check about
// to report an absence asks, so a body of many unknown keywords costs no
// did-you-mean it does not show.
func (u *unknownKeywords) misspell(keyword string) bool {
	return u.misspells(keyword, func(*pdl.Stmt) bool { return true })
}

// misspells is misspell for the statements that match.
func (u *unknownKeywords) misspells(keyword string, match func(*pdl.Stmt) bool) bool {
	for i, m := range u.meanings() {
		if m == keyword && match(u.stmts[i]) {
			return true
		}
	}
	return false
}

// meanings is meant, found once: a scope is asked about each value a
// use of which it does not define.
func (u *unknownKeywords) meanings() []string {
	if u.meant == nil && len(u.stmts) > 0 {
		u.meant = make([]string, len(u.stmts))
		for i, s := range u.stmts {
			u.meant[i] = suggest.Closest(s.Keyword, u.names)
		}
	}
	return u.meant
}

// add adds s, an unknown keyword of a body of handlers or a statement
// left out for an error of its value, unless the list
// holds maxUnknown. It keeps the keyword and the positional arguments,
// what misspells reads, apart from the tree: a file's top level is read
// a statement at a time (pdl.File.Statements), and a statement kept
// would keep the statements read with it. A file of more mistakes than
// maxUnknown has more to mend than a cascade.
func (u *unknownKeywords) add(s *pdl.Stmt, handlers map[string]func(*pdl.Stmt)) {
	if len(u.stmts) == maxUnknown {
		return
	}
	kept := &pdl.Stmt{Pos: s.Pos, Keyword: s.Keyword}
	if kw := s.Dropped(); kw != "" {
		// Its keyword is the one it means; its value was in error.
		kept.Keyword = kw
	} else {
		for _, a := range s.Positional() {
			a := *a
			kept.Args = append(kept.Args, &a)
		}
	}
	if u.names == nil {
		u.names = slices.Sorted(maps.Keys(handlers))
	}
	u.stmts = append(u.stmts, kept)
	u.meant = nil
}

const maxUnknown = 100

// shape checks a statement's arguments: between min and max positional
// ones (max < 0: no limit), only the named options, and a block when
// block is true (and none otherwise). It reports problems and returns
// the positional arguments.
func (c *compiler) shape(s *pdl.Stmt, min, max int, block bool, options ...string) []*pdl.Arg {
	pos := s.Positional()
	for _, a := range s.Args {
		if a.Key == "" {
			continue
		}
		known := false
		for _, o := range options {
			known = known || o == a.Key
		}
		if !known {
			c.errHint(pdl.RuleUnknown, argAt{a}, func() string {
				if hint := suggest.DidYouMean(a.Key, options); hint != "" {
					return hint
				} else if len(options) > 0 {
					return s.Keyword + " takes the options: " + strings.Join(options, ", ")
				}
				return s.Keyword + " takes no options"
			}, "unknown option %s for %s", report.Clip(a.Key), report.Clip(s.Keyword))
		}
	}
	seen := map[string]bool{}
	for _, a := range s.Args {
		if a.Key != "" && seen[a.Key] {
			c.errf(pdl.RuleDuplicate, argAt{a}, "keep one", "option %s given twice", report.Clip(a.Key))
		}
		seen[a.Key] = true
	}
	switch {
	case len(pos) < min:
		c.errf(pdl.RuleArgs, stmtAt{s}, usage[s.Keyword], "%s needs %s, has %d", report.Clip(s.Keyword), count(min), len(pos))
	case max >= 0 && len(pos) > max:
		c.errf(pdl.RuleArgs, argAt{pos[max]}, usage[s.Keyword], "%s takes at most %s", report.Clip(s.Keyword), count(max))
	}
	if s.Block != nil && !block {
		c.errf(pdl.RuleArgs, stmtAt{s}, "remove the { … } block", "%s takes no block", report.Clip(s.Keyword))
	}
	return pos
}

// misspelt reports whether s, whose options are options, has an unknown
// option that is a likely misspelling of option (shape's did-you-mean).
// Its "unknown option" error then says the option is missing, so a
// statement without the option is not reported again, and what the
// option sets is unknown, not absent (kidn=device gave "has no kind" and
// one error per program calling the entry besides, issue 13 item 15).
func misspelt(s *pdl.Stmt, option string, options []string) bool {
	for _, a := range s.Args {
		if a.Key != "" && !slices.Contains(options, a.Key) && suggest.Closest(a.Key, options) == option {
			return true
		}
	}
	return false
}

func count(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}

// arg returns positional i, or nil.
func arg(pos []*pdl.Arg, i int) *pdl.Arg {
	if i < len(pos) {
		return pos[i]
	}
	return nil
}

// word returns a as a name: a word or a string. It reports other kinds.
func (c *compiler) word(a *pdl.Arg, what string) string {
	if a == nil {
		return ""
	}
	switch a.Value.Kind() {
	case pdl.KindIdent, pdl.KindString:
		return a.Value.Str()
	}
	c.errf(pdl.RuleArgs, argAt{a}, "write it as a word or a \"string\"", "%s must be a name, not a %s", what, a.Value.Kind())
	return ""
}

// text returns a as prose: any string kind.
func (c *compiler) text(a *pdl.Arg, what string) string {
	if a == nil {
		return ""
	}
	switch a.Value.Kind() {
	case pdl.KindString, pdl.KindRaw, pdl.KindText:
		return a.Value.Str()
	}
	c.errf(pdl.RuleArgs, argAt{a}, "quote it: \"…\"", "%s must be a string, not a %s", what, a.Value.Kind())
	return ""
}

// oneOf returns a's value when it is one of set, reporting otherwise,
// citing section, the one that defines the set.
func (c *compiler) oneOf(a *pdl.Arg, section, what string, set []string) string {
	v := c.word(a, what)
	if v == "" {
		return ""
	}
	for _, x := range set {
		if x == v {
			return v
		}
	}
	c.citeErr(pdl.RuleValue, section, argAt{a}, func() string {
		if hint := suggest.DidYouMean(v, set); hint != "" {
			return hint
		}
		return "use one of: " + strings.Join(set, ", ")
	}, "%s %s is not one of %s", what, report.QuoteName(v), strings.Join(set, ", "))
	return ""
}

// usage is the one-line form of each keyword, for argument-count hints.
var usage = map[string]string{
	"server":         `server NAME [version="1.0"]`,
	"risk":           `risk NAME [readOnly] [destructive] [openWorld] "meaning"`,
	"kind":           `kind NAME [callable] [promoted] "meaning"`,
	"diagnostic":     `diagnostic CODE "meaning"`,
	"status":         `status run|step NAME ok=true|false [effects=none|possible] "meaning"`,
	"language":       `language "family/version" { … }`,
	"entry":          `entry "id" kind=KIND risk=RISK { … }`,
	"principal":      `principal NAME token="…" { sees "pattern" … }`,
	"guide":          `guide ID "Title" level=core|reference|example [file="path.md"] { … }`,
	"title":          `title "Title"`,
	"description":    `description "One line."`,
	"locator":        `locator json-pointer|text-range`,
	"mode":           `mode immediate|deploy|both`,
	"trace":          `trace summary|full`,
	"retention":      `retention none|session|P7D`,
	"subprograms":    `subprograms opaque|expanded`,
	"promotion":      `promotion caller|promoter`,
	"context_schema": "context_schema `{…}` or context_schema file=\"schema.json\"",
	"input_schema":   "input_schema `{…}` or input_schema file=\"schema.json\"",
	"output_schema":  "output_schema `{…}` or output_schema file=\"schema.json\"",
	"call":           `call MEMBER ARGS_MEMBER`,
	"branch":         `branch MEMBER THEN_MEMBER ELSE_MEMBER`,
	"loop":           `loop MEMBER ITEM_MEMBER BODY_MEMBER`,
	"run":            `run MEMBER ARGS_MEMBER`,
	"expressions":    `expressions cel`,
	"syntax":         `syntax json|text { keywords if=… else=… for=… in=… run=… output=…; punctuation assign="=" bind=":"; fence WORD }`,
	"keywords":       `keywords [if=WORD] [else=WORD] [for=WORD] [in=WORD] [run=WORD] [output=WORD]`,
	"punctuation":    `punctuation [assign="="|":="|"<-"] [bind=":"|"="]`,
	"fence":          `fence WORD`,
	"prose":          `prose scope_rules|parameter_binding|step_identifiers|summary_truncation|output|loop_decisions """…"""`,
	"topics":         `topics TOPIC …`,
	"body":           `body """…"""`,
	"name":           `name "Display name"`,
	"tags":           `tags TAG …`,
	"languages":      `languages "family/version" …`,
	"revision":       `revision "r1"`,
	"returns":        "returns `JSON`",
	"compute":        "compute `CEL over input`",
	"fail":           "fail STATUS [when=`CEL`] \"message\"",
	"latency":        `latency 20ms`,
	"program":        `program """{ "steps": [ … ] }"""`,
	"sees":           `sees "pattern" …`,
}

// NotPDLError is a file named where a PDL file is expected that is
// plainly another kind: JSON, most often the snapshot or manifest build
// wrote, or a program; or YAML, a test case file. Read as PDL it gave a
// screenful of "unexpected character ':'".
type NotPDLError struct {
	Name string
	// Is says what the file is: "JSON (a program)", "YAML".
	Is string
}

func (e *NotPDLError) Error() string { return e.Name + " is " + e.Is + ", not a PDL file" }

// notPDL is a NotPDLError when src is JSON, its first character past
// blanks opening an object or an array, which no PDL statement does (one
// starts with a keyword or a comment), or when name is a YAML file's.
func notPDL(name string, src []byte) error {
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".yaml" || ext == ".yml" {
		return &NotPDLError{Name: name, Is: "YAML (such as a pilotage test case file)"}
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(src, []byte(textenc.UTF8BOM)), " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' && trimmed[0] != '[' {
		return nil
	}
	is := "JSON"
	if k := inputs.Sniff(bytes.NewReader(src)); k != inputs.Unknown && k != inputs.Other {
		is += " (" + k.String() + ")"
	}
	return &NotPDLError{Name: name, Is: is}
}
