package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/bytesize"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// langState is one Language while it compiles.
type langState struct {
	lang  *language.Language
	stmt  *pdl.Stmt
	sets  setDecls
	prose proseSections
	// proseTexts are the values of its prose statements that could name
	// an entry (namedArgs), in statement order, each with its section,
	// for shownTexts once the statement is let go of.
	proseTexts []namedValue
	// guides locate each authored guide, in order.
	guides []guideAt
	// settings locate the Language's scalar settings by wire name.
	settings map[string]*pdl.Stmt
	// guideIDs maps each guide's file name to its id.
	guideIDs map[string]string
	// index is the Language's place in the file.
	index int
	// context is its context_schema once compiled, for checkSchemaSums.
	context schemaUse
	// env checks programs of the Language; built on first use, once the
	// catalog is complete.
	env *program.Env
	// broken is set by an error in the Language's definition (its block,
	// or an entry it sees naming a kind or risk level it lacks). Its
	// program examples and promoted bodies are then not checked: against
	// a misspelt kind, grammar keyword or capabilities block every one of
	// them failed too, one root cause in many errors (issue 13 item 15).
	broken bool
}

// proseSections are the authors' paragraphs of each prose section they
// extend, in statement order, each after a blank line ("\n\n"): the
// section is written once from them (appendProse). They are joined as
// each statement is compiled, which is then let go of: a record of each
// paragraph and its statement kept 9 bytes a byte of lint of 30,000
// (docs/performance.md, "Many prose paragraphs").
type proseSections map[string]*strings.Builder

// add appends the paragraph text to section sec.
func (p *proseSections) add(sec, text string) {
	if *p == nil {
		*p = proseSections{}
	}
	b := (*p)[sec]
	if b == nil {
		b = &strings.Builder{}
		(*p)[sec] = b
	}
	b.WriteString("\n\n")
	b.WriteString(text)
}

// proseFields are the prose sections an author may extend.
var proseFields = map[string]func(*closedsets.Sets) *string{
	"scope_rules":        func(s *closedsets.Sets) *string { return &s.ScopeRules },
	"parameter_binding":  func(s *closedsets.Sets) *string { return &s.ParameterBinding },
	"step_identifiers":   func(s *closedsets.Sets) *string { return &s.StepIdentifiers },
	"summary_truncation": func(s *closedsets.Sets) *string { return &s.Truncation },
	"output":             func(s *closedsets.Sets) *string { return &s.Output },
	"loop_decisions":     func(s *closedsets.Sets) *string { return &s.LoopDecisions },
}

// language compiles one language block.
func (c *compiler) language(s *pdl.Stmt) {
	p := c.shape(s, 1, 1, true)
	l := &language.Language{Locator: pilotage.LocatorJSONPointer, Limits: language.DefaultLimits, Grammar: language.DefaultGrammar,
		Pos: c.pos(s.Pos), Positions: map[string]language.Pos{}}
	l.Grammar.Arms = append([]string(nil), language.DefaultGrammar.Arms...)
	// The lists the block's statements fill are sized from them, not
	// grown by doubling: the guides' (and the closed-sets guide), and
	// those of 25,000 risk levels (docs/performance.md, "A Language
	// block a statement at a time"). The Language's kinds and risk
	// levels start with the file's, which every Language inherits: they
	// are its closed sets as they are, not joined in a copy.
	n := c.tree.CountChildren(s)
	ls := &langState{lang: l, stmt: s, settings: map[string]*pdl.Stmt{}, guideIDs: map[string]string{},
		sets: setDecls{c: c, texts: maps.Clone(c.shared.texts),
			risks: append(make([]closedsets.Risk, 0, len(c.shared.risks)+n["risk"]), c.shared.risks...),
			kinds: append(make([]closedsets.Kind, 0, len(c.shared.kinds)+n["kind"]), c.shared.kinds...),
			at:    make(map[string]map[string]language.Spot, len(setNames))},
		index: len(c.langs)}
	for _, set := range setNames {
		keyword, _, _ := strings.Cut(set, " ")
		ls.sets.at[set] = make(map[string]language.Spot, len(c.shared.at[set])+n[keyword])
		maps.Copy(ls.sets.at[set], c.shared.at[set])
	}
	c.cur = ls
	defer func() { c.cur = nil }()
	if a := arg(p, 0); a != nil {
		l.ID = c.word(a, "the Language id")
		if _, err := pilotage.ParseLanguageID(l.ID); l.ID != "" && err != nil {
			c.valueErr("3.3", argAt{a}, `write family/version, as in "homeflow/v1" (§3.3)`, "Language id %q: %v", report.Clip(l.ID), err)
		}
		// serve registers a tool per operation named from the id; one
		// longer than MCP allows is refused there, so the Language would
		// be served without its tools.
		if tool := binding.LongestTool(l.ID); len(tool) > binding.MaxTool {
			// The tool names are the binding's (binding.md).
			c.valueErr("binding.md", argAt{a}, "shorten the id to at most "+strconv.Itoa(binding.MaxTool-len(binding.LongestTool("")))+" characters: serve names its tools <id>_<operation>",
				"Language id %q gives the tool name %q of %d bytes; MCP allows at most %d", report.Clip(l.ID), report.Clip(tool), len(tool), binding.MaxTool)
		}
		if _, dup := c.langByID[l.ID]; dup {
			c.errf(pdl.RuleDuplicate, argAt{a}, "Language ids are unique within a Server (§3.3)", "Language %s is defined twice", report.Clip(l.ID))
		} else if l.ID != "" {
			c.langByID[l.ID] = ls
		}
	}
	setting := func(wire string, set []string, dst *string) func(*pdl.Stmt) {
		return func(ss *pdl.Stmt) {
			if _, dup := ls.settings[wire]; dup {
				c.errf(pdl.RuleDuplicate, stmtAt{ss}, "keep one", "%s is set twice", report.Clip(ss.Keyword))
			}
			ls.settings[wire] = ss
			a := arg(c.shape(ss, 1, 1, false), 0)
			switch {
			case dst == nil:
				// The caller reads the value itself.
			case set == nil:
				*dst = c.text(a, ss.Keyword)
			default:
				*dst = c.oneOf(a, "5.1", ss.Keyword, set)
			}
		}
	}
	guides := n["guide"]
	l.Guides, l.GuideSpots, ls.guides = make([]*language.Guide, 0, guides+1), make([]language.GuideSpots, 0, guides), make([]guideAt, 0, guides)
	handlers := map[string]func(*pdl.Stmt){
		"title":       setting("title", nil, &l.Title),
		"description": setting("description", nil, &l.Description),
		"locator":     setting("locator", pilotage.Locators, &l.Locator),
		"mode":        setting("execution_mode", pilotage.ExecutionModes, &l.ExecutionMode),
		"trace":       setting("trace_level", pilotage.TraceLevels, &l.TraceLevel),
		"subprograms": setting("trace_subprogram", pilotage.TraceSubprograms, &l.TraceSubprogram),
		"promotion":   setting("promotion_authority", pilotage.PromotionAuthorities, &l.PromotionAuthority),
		"retention": func(ss *pdl.Stmt) {
			setting("retention", nil, nil)(ss)
			a := arg(ss.Positional(), 0)
			r := ""
			if a != nil && a.Value.Kind() == pdl.KindNumber {
				// 7days reads as a number, but is a duration written
				// another way: the hint is its ISO form, not "a word".
				r = a.Value.Str()
			} else {
				l.Retention = c.word(a, "retention")
				r = l.Retention
			}
			if r != "" && r != pilotage.RetentionNone && r != pilotage.RetentionSession {
				if _, err := pilotage.ParseISODuration(r); err != nil || a.Value.Kind() == pdl.KindNumber {
					hint := "use none, session or an ISO 8601 duration such as P7D or PT1H"
					if iso, ok := isoDuration(r); ok {
						hint = "did you mean retention " + iso + "?"
						if _, err := pilotage.ParseISODuration(strings.Trim(iso, `"`)); err != nil && iso != pilotage.RetentionNone {
							// Its ISO form is refused in turn.
							hint = "it is longer than a duration can be (about 292 years): use none, session or a shorter one such as P7D"
						}
					}
					// §6.6 defines the retention values, as lint's
					// retention-value on a manifest cites.
					c.citeErr(pdl.RuleValue, "6.6", argAt{a}, func() string { return hint }, "retention %q is not none, session or a duration", report.Clip(r))
				}
			}
		},
		"context_schema": func(ss *pdl.Stmt) {
			ls.settings["context_schema"] = ss
			l.ContextSchema = c.schema(ss, &ls.context)
		},
		"capabilities": func(ss *pdl.Stmt) {
			l.Capabilities = c.capabilities(ss, "", l.Positions)
		},
		"limits":  func(ss *pdl.Stmt) { c.limits(ss, &l.Limits) },
		"grammar": func(ss *pdl.Stmt) { c.grammar(ss, &l.Grammar) },
		"syntax": func(ss *pdl.Stmt) {
			ls.settings["syntax"] = ss
			c.syntax(ss, l)
		},
		"guide":      func(ss *pdl.Stmt) { c.guide(ls, ss) },
		"risk":       ls.sets.add,
		"kind":       ls.sets.add,
		"diagnostic": ls.sets.add,
		"status":     ls.sets.add,
		"prose": func(ss *pdl.Stmt) {
			p := c.shape(ss, 2, 2, false)
			names := slices.Sorted(maps.Keys(proseFields))
			sec := c.oneOf(arg(p, 0), "closed-sets-format.md", "the section", names)
			if proseFields[sec] != nil {
				ls.prose.add(sec, strings.TrimSpace(c.text(arg(p, 1), "the paragraph")))
				for _, v := range namedArgs(ss) {
					ls.proseTexts = append(ls.proseTexts, namedValue{what: sec, v: v})
				}
			}
		},
	}
	// The block's statements are read one at a time (pdl.Stream leaves
	// a Language block unread, File.Children reads it), and the guides,
	// closed-set values and prose paragraphs, of which their handlers
	// keep what later checks need, are let go of as each is compiled
	// (pdl.Release): 30,000 prose paragraphs kept 9 bytes a byte of lint
	// (docs/performance.md, "Many prose paragraphs"). The
	// block keeps its other statements, which later checks read
	// (shownTexts, misspeltCapabilities). A Language of 15,000 small
	// guides kept its whole tree, 4 bytes a byte of the file, beside the
	// guides' model while it compiled, and one of 25,000 risk levels 14;
	// the tree built whole before the compiler let go of any statement
	// was the peak of lint of either (docs/performance.md, "Many small
	// guides", "A Language block a statement at a time"). The tree is
	// the compiler's: Source reads it (pdl.Stream) for this reading alone.
	if s.Block != nil {
		var kept []pdl.Node
		for ss := range c.tree.Children(s) {
			if !c.dispatch("a language block", ss, handlers) {
				ls.sets.unknown.add(ss, handlers)
			}
			if letGo[ss.Keyword] {
				pdl.Release(ss)
			} else {
				kept = append(kept, ss)
			}
		}
		s.Block.Body, s.Block.Unread = kept, false
	}
	if ss := ls.settings["syntax"]; ss != nil && l.Text != nil {
		if loc := ls.settings["locator"]; loc != nil && l.Locator != pilotage.LocatorTextRange {
			c.valueErr("5.5", stmtAt{loc}, "remove the locator line: a text syntax implies locator text-range", "a Language with syntax text locates its findings by text-range, not %s (§5.5)", report.Clip(l.Locator))
		}
		l.Locator = pilotage.LocatorTextRange
		if l.Text.Fence == "" {
			l.Text.Fence, _, _ = strings.Cut(l.ID, "/")
		}
	}
	c.langs = append(c.langs, ls)
}

// letGo are the keywords of the statements of a language block that
// language lets go of once compiled.
var letGo = map[string]bool{"guide": true, "risk": true, "kind": true, "diagnostic": true, "status": true, "prose": true}

// syntax compiles `syntax json|text { keywords …; punctuation …; fence … }`:
// json is the step model as JSON (the default); text is the statement
// surface of docs/pdl.md, with the words the block names.
func (c *compiler) syntax(s *pdl.Stmt, l *language.Language) {
	kind := c.oneOf(arg(c.shape(s, 1, 1, true), 0), report.Convention, "the syntax", []string{"json", "text"})
	if kind != "text" {
		if len(s.Children()) > 0 {
			c.errf(pdl.RuleArgs, stmtAt{s}, "remove the block, or write syntax text", "syntax json takes no block: its members are the grammar block's")
		}
		return
	}
	ts := language.DefaultTextSyntax
	l.Text = &ts
	c.keywords("syntax", s.Children(), map[string]func(*pdl.Stmt){
		"keywords": func(ss *pdl.Stmt) {
			c.shape(ss, 0, 0, false, "if", "else", "for", "in", "run", "output")
			// In the order written, so the findings come in a fixed order.
			dst := map[string]*string{"if": &ts.If, "else": &ts.Else, "for": &ts.For, "in": &ts.In, "run": &ts.Run, "output": &ts.Output}
			for _, a := range ss.Args {
				if d := dst[a.Key]; d != nil {
					*d = c.keyword(a)
				}
			}
		},
		"punctuation": func(ss *pdl.Stmt) {
			c.shape(ss, 0, 0, false, "assign", "bind")
			// A value outside the set is reported and the default kept.
			for _, x := range []struct {
				key string
				dst *string
				set []string
			}{{"assign", &ts.Assign, language.TextAssigns}, {"bind", &ts.Bind, language.TextBinds}} {
				if a, ok := ss.Option(x.key); ok {
					if v := c.oneOf(a, report.Convention, x.key, x.set); v != "" {
						*x.dst = v
					}
				}
			}
		},
		"fence": func(ss *pdl.Stmt) { ts.Fence = c.word(arg(c.shape(ss, 1, 1, false), 0), "the fence") },
	})
	words := map[string]bool{}
	for _, w := range []string{ts.If, ts.Else, ts.For, ts.In, ts.Run, ts.Output} {
		if words[w] {
			c.errf(pdl.RuleDuplicate, stmtAt{s}, "give every statement its own keyword", "keyword %q is used twice in the syntax", report.Clip(w))
		}
		words[w] = true
	}
	if ts.Assign == ts.Bind {
		c.errf(pdl.RuleDuplicate, stmtAt{s}, `write, for example, punctuation assign="=" bind=":"`, "a label and an argument cannot share the punctuation %q", report.Clip(ts.Assign))
	}
}

// keyword reads a keyword of the text syntax: a name, and not one every
// expression has.
func (c *compiler) keyword(a *pdl.Arg) string {
	w := c.word(a, "a keyword")
	valid := w != "" && !('0' <= w[0] && w[0] <= '9')
	for _, r := range w {
		valid = valid && (r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}
	switch {
	case w == "":
	case !valid:
		c.valueErr(report.Convention, argAt{a}, "use letters, digits and '_', starting with a letter", "keyword %q is not a name", report.Clip(w))
	case w == "input" || w == "context" || w == "steps" || w == "true" || w == "false" || w == "null":
		c.valueErr(report.Convention, argAt{a}, "choose another word", "keyword %q is a name expressions use", report.Clip(w))
	}
	return w
}

// limits compiles `limits { steps 10000; time 5s; … }` (§10.1).
func (c *compiler) limits(s *pdl.Stmt, l *language.Limits) {
	c.shape(s, 0, 0, true)
	num := func(dst *int) func(*pdl.Stmt) {
		return func(ss *pdl.Stmt) {
			a := arg(c.shape(ss, 1, 1, false), 0)
			if a == nil {
				return
			}
			n, err := strconv.Atoi(strings.ReplaceAll(a.Value.Str(), "_", ""))
			if err != nil || n <= 0 || a.Value.Kind() != pdl.KindNumber {
				c.valueErr("10.1", argAt{a}, "write a positive whole number, such as 1000", "%s must be a positive number", report.Clip(ss.Keyword))
				return
			}
			*dst = n
		}
	}
	size := func(dst *int64) func(*pdl.Stmt) {
		return func(ss *pdl.Stmt) {
			a := arg(c.shape(ss, 1, 1, false), 0)
			if a == nil {
				return
			}
			n, ok := bytesize.Parse(a.Value.Str())
			if !ok || a.Value.Kind() != pdl.KindNumber {
				c.valueErr("10.1", argAt{a}, "write a size such as 512KiB, 16MiB or 1GiB", "%s must be a size in bytes", report.Clip(ss.Keyword))
				return
			}
			*dst = n
		}
	}
	var program int64 = int64(l.ProgramBytes)
	c.keywords("limits", s.Children(), map[string]func(*pdl.Stmt){
		"steps":      num(&l.Steps),
		"depth":      num(&l.Depth),
		"iterations": num(&l.Iterations),
		"expansion":  num(&l.Expansion),
		"memory":     size(&l.MemoryBytes),
		"program":    size(&program),
		"time": func(ss *pdl.Stmt) {
			a := arg(c.shape(ss, 1, 1, false), 0)
			if a == nil {
				return
			}
			d, err := time.ParseDuration(a.Value.Str())
			if err != nil || d <= 0 {
				c.valueErr("10.1", argAt{a}, "write a duration such as 500ms, 5s or 2m", "time must be a positive duration")
				return
			}
			l.Time = d
		},
	})
	if program > 1<<40 {
		program = 1 << 40
	}
	l.ProgramBytes = int(program)
}

// grammar compiles the grammar block: only the constructs it lists exist.
func (c *compiler) grammar(s *pdl.Stmt, g *language.Grammar) {
	c.shape(s, 0, 0, true)
	*g = language.Grammar{Expressions: "cel"}
	members := func(ss *pdl.Stmt, n int, dst ...*string) {
		p := c.shape(ss, n, n, false)
		for i, d := range dst {
			*d = c.word(arg(p, i), "a member name")
		}
	}
	c.keywords("grammar", s.Children(), map[string]func(*pdl.Stmt){
		"call": func(ss *pdl.Stmt) { members(ss, 2, &g.Call, &g.Args) },
		"branch": func(ss *pdl.Stmt) {
			var then, els string
			members(ss, 3, &g.Branch, &then, &els)
			g.Arms = []string{then, els}
		},
		"loop":  func(ss *pdl.Stmt) { members(ss, 3, &g.Loop, &g.Item, &g.Body) },
		"run":   func(ss *pdl.Stmt) { members(ss, 2, &g.Run, &g.RunArgs) },
		"input": func(ss *pdl.Stmt) { c.shape(ss, 0, 0, false); g.Input = true },
		"expressions": func(ss *pdl.Stmt) {
			g.Expressions = c.oneOf(arg(c.shape(ss, 1, 1, false), 0), report.Convention, "the expression language", []string{"cel"})
		},
	})
	// Every member name must be distinct from the others and from the
	// fixed "id", or steps would be ambiguous.
	seen := map[string]bool{"id": true}
	for _, m := range []string{g.Call, g.Args, g.Branch, g.Loop, g.Item, g.Body, g.Run, g.RunArgs} {
		if m == "" {
			continue
		}
		if seen[m] && !(m == g.Args && m == g.RunArgs) {
			c.errf(pdl.RuleDuplicate, stmtAt{s}, "give every construct its own member name", "member name %q is used twice in the grammar", report.Clip(m))
		}
		seen[m] = true
	}
	for _, a := range g.Arms {
		if seen[a] {
			c.errf(pdl.RuleDuplicate, stmtAt{s}, "give every construct its own member name", "member name %q is used twice in the grammar", report.Clip(a))
		}
		seen[a] = true
	}
}

// maxFileName is the longest file name, in bytes, the common file
// systems allow (NAME_MAX of ext4, XFS, btrfs, APFS and NTFS's 255 UTF-16
// units): a longer guide file name fails build's write.
const maxFileName = 255

// guideOptions are the options of a guide statement.
var guideOptions = []string{"level", "file"}

// guide compiles `guide ID "Title" level=L [file="x.md"] { topics …; body … }`.
// A guide without its level (absent, misspelt or not one) has an empty
// one, which finishLanguage reads as unknown.
func (c *compiler) guide(ls *langState, s *pdl.Stmt) {
	p := c.shape(s, 2, 2, true, guideOptions...)
	g := &language.Guide{}
	g.ID = c.word(arg(p, 0), "the guide id")
	g.Title = c.text(arg(p, 1), "the guide title")
	g.MediaType = "text/markdown"
	if a, ok := s.Option("level"); ok {
		g.Level = c.oneOf(a, "5.2", "level", pilotage.GuideLevels)
	} else if !misspelt(s, "level", guideOptions) {
		c.errf(pdl.RuleRequired, stmtAt{s}, "add level=core, level=reference or level=example (§5.2)", "guide %s has no level", report.Clip(g.ID))
	}
	if g.ID == pilotage.TopicClosedSets {
		c.errf(pdl.RuleDuplicate, argAt{p[0]}, "choose another id: build generates the closed-sets guide from the sets", "guide id closed-sets is reserved")
	}
	// Build writes each guide to a file named by the binding's prefix
	// rule, so ids that differ only in characters it replaces collide.
	fileName := binding.Prefix(g.ID)
	if len(fileName)+len(".md") > maxFileName {
		c.valueErr(report.Convention, argAt{p[0]}, "shorten the id to at most "+strconv.Itoa(maxFileName-len(".md"))+" characters",
			"guide id %q gives a file name of %d bytes; build writes each guide to guides/<language>/<id>.md, and a file system allows at most %d", report.Clip(g.ID), len(fileName)+len(".md"), maxFileName)
	}
	if prev, dup := ls.guideIDs[fileName]; dup && g.ID != "" {
		if prev == g.ID {
			c.errf(pdl.RuleDuplicate, argAt{p[0]}, "guide ids are unique within a Language (§5.2)", "guide %s is defined twice", report.Clip(g.ID))
		} else {
			c.errf(pdl.RuleDuplicate, argAt{p[0]}, "rename one: build writes both to "+fileName+".md", "guides %s and %s have the same file name", report.Clip(prev), report.Clip(g.ID))
		}
	} else {
		ls.guideIDs[fileName] = g.ID
	}
	var body *pdl.Stmt
	// A guide's description and body are each given once, as an
	// entry's are: a second silently replaced the first. As for a
	// catalog entry given twice, the first is the one checked.
	first := map[string]int32{}
	once := func(f func(*pdl.Stmt)) func(*pdl.Stmt) {
		return func(ss *pdl.Stmt) {
			if line, ok := first[ss.Keyword]; ok {
				c.errf(pdl.RuleDuplicate, stmtAt{ss}, "keep one; the first, at line "+itoa(int(line))+", is the one checked",
					"%s is given twice", report.Clip(ss.Keyword))
				return
			}
			first[ss.Keyword] = ss.Pos.Line
			f(ss)
		}
	}
	unknown := c.keywords("a guide", s.Children(), map[string]func(*pdl.Stmt){
		"topics": func(ss *pdl.Stmt) {
			for _, a := range c.shape(ss, 1, -1, false) {
				t := c.word(a, "a topic")
				if t == pilotage.TopicClosedSets {
					c.valueErr("5.2", argAt{a}, "only the generated closed-sets guide carries it (§5.2)", "topic closed-sets is reserved")
					continue
				}
				g.Topics = append(g.Topics, t)
			}
		},
		"description": once(func(ss *pdl.Stmt) { g.Description = c.text(arg(c.shape(ss, 1, 1, false), 0), "the description") }),
		"body": once(func(ss *pdl.Stmt) {
			body = ss
			g.Body = c.text(arg(c.shape(ss, 1, 1, false), 0), "the body")
		}),
	})
	file, hasFile := s.Option("file")
	switch {
	case hasFile && body != nil:
		c.errf(pdl.RuleArgs, stmtAt{body}, "keep either file= or body", "guide %s has both a file and a body", report.Clip(g.ID))
	case hasFile:
		name := c.text(file, "the file name")
		if b, ok := c.read(file, name, guideFile); ok {
			if b, ok = c.guideText(file, name, b); ok {
				g.Body, g.Source = string(b), name
			}
		}
	case body == nil && !misspelt(s, "file", guideOptions) && !unknown.misspell("body"):
		c.errf(pdl.RuleRequired, stmtAt{s}, `add file="guides/x.md" or a body """…""" block`, "guide %s has no content", report.Clip(g.ID))
	}
	ls.lang.Guides = append(ls.lang.Guides, g)
	ls.lang.GuideSpots = append(ls.lang.GuideSpots, c.guideSpots(s))
	ls.guides = append(ls.guides, guideAtOf(s))
}

// guideSpots locates an authored guide and its members (positions).
func (c *compiler) guideSpots(s *pdl.Stmt) language.GuideSpots {
	var g language.GuideSpots
	set := func(member string, p pdl.Pos) {
		g[1+slices.Index(language.GuideMembers[:], member)] = language.SpotOf(c.pos(p))
	}
	g[0] = language.SpotOf(c.pos(s.Pos))
	if a, ok := s.Option("level"); ok {
		set("level", a.Pos)
	}
	if a, ok := s.Option("file"); ok {
		set("body", a.Pos)
	}
	for _, ch := range s.Children() {
		switch ch.Keyword {
		case "body", "topics", "description":
			set(ch.Keyword, ch.Pos)
		}
	}
	return g
}

// guideAt is what later checks need of a guide's statement, which is
// let go of once compiled (language): the places of its body (bodyPos),
// the statement's and its file= name or else its first body's value,
// and the texts of the guide index (shownTexts). Values are copies,
// which keep no statement.
type guideAt struct {
	at               pdl.Pos
	hasFile, hasBody bool
	file             string
	body             pdl.Value
	texts            []namedValue
}

func guideAtOf(s *pdl.Stmt) guideAt {
	g := guideAt{at: s.Pos, texts: guideTexts(s)}
	if a, ok := s.Option("file"); ok {
		g.file, g.hasFile = a.Value.Str(), true
		return g
	}
	for _, ch := range s.Children() {
		if ch.Keyword == "body" && len(ch.Args) > 0 {
			g.body, g.hasBody = ch.Args[0].Value, true
			break
		}
	}
	return g
}

// The sections of Part II that define what a file a PDL names holds,
// which its pdl-file findings cite: a guide's body, a catalog entry's
// schemas, a Language's context_schema (in the manifest).
const (
	sectionGuide    = "5.2"
	sectionEntry    = "5.4"
	sectionManifest = "5.1"
)

// namedFile is what a file a PDL names holds, to read: the section that
// defines it (sectionGuide…), and the hints of a text pdl.NamedText
// refuses, kind starting that of a byte that is not UTF-8 and control
// giving that of a control character.
type namedFile struct {
	section, kind string
	control       func(rune) string
}

var (
	// Markdown offers no escape for a control character.
	guideFile = namedFile{sectionGuide, "guides are UTF-8 Markdown", func(rune) string {
		return "remove it: a guide reaches every caller as it is written, and Markdown has no escape for a control character"
	}}
	entrySchemaFile    = namedFile{sectionEntry, "JSON Schemas are UTF-8 JSON", schemaControl}
	manifestSchemaFile = namedFile{sectionManifest, "JSON Schemas are UTF-8 JSON", schemaControl}
)

// read reads a file the PDL names, holding what, reporting failure at a,
// citing what.section: reading a file is PDL's own affair, what it is
// for is the spec's. Its text is held to the policy of PDL strings
// (pdl.NamedText): a byte that is not UTF-8 would reach the artifacts as
// U+FFFD without a word, and a control character would reach every
// caller and terminal as it is. Either is an error at its place in the
// file, which is then not used.
func (c *compiler) read(a *pdl.Arg, name string, what namedFile) ([]byte, bool) {
	if name == "" {
		return nil, false
	}
	b, err := c.opts.ReadFile(name)
	if err != nil {
		hint := func() string {
			if c.nearFile != nil && errors.Is(err, fs.ErrNotExist) {
				if near := c.nearFile(name); near != "" {
					return "did you mean " + suggest.OneLine(report.Clip(near)) + "?"
				}
			}
			return "file names are relative to the PDL file's directory"
		}
		c.fileErr(what.section, a, hint, "cannot read %s: %v", report.Clip(name), unwrapPathError(err))
		return nil, false
	}
	c.res.Sources[c.path(name)] = b
	if f, bad := pdl.NamedText(c.path(name), b, what.kind, what.control); bad {
		f.CiteSections([]string{what.section})
		c.add(f)
		return nil, false
	}
	return b, true
}

// fileErr records a pdl-file finding at a citing section.
func (c *compiler) fileErr(section string, a *pdl.Arg, hint func() string, format string, args ...any) {
	c.citeErr(pdl.RuleFile, section, argAt{a}, hint, format, args...)
}

// guideText is a guide file's Markdown as it is published: a UTF-8 byte
// order mark at its start is dropped (an editor shows none, and in the
// body it would be counted in size_bytes and keep the first line from
// being a heading), and a file in UTF-16 or UTF-32 is an error at a.
func (c *compiler) guideText(a *pdl.Arg, name string, b []byte) ([]byte, bool) {
	switch enc := textenc.Sniff(b); {
	case enc.UTF8WithBOM():
		return b[len(textenc.UTF8BOM):], true
	case enc.Foreign():
		c.fileErr(sectionGuide, a, func() string { return "guides are UTF-8 Markdown: " + enc.Convert() }, "guide file %s %s", report.Clip(name), enc.Shows)
		return nil, false
	}
	return b, true
}

// path is the name findings use for a file the PDL names: relative to
// the PDL's directory, as the user would open it.
func (c *compiler) path(name string) string {
	return filepath.ToSlash(filepath.Join(c.opts.Dir, name))
}

// fillGuide sets the fields derived from the body: size and a version
// that changes exactly when the content does (§11.2).
func fillGuide(g *language.Guide) {
	g.SizeBytes = len(g.Body)
	sum := sha256.Sum256([]byte(g.Body))
	g.Version = hex.EncodeToString(sum[:6])
}

// ClosedSetsTitle is the title of every generated closed-sets guide.
const ClosedSetsTitle = "Closed sets"

// finishLanguage checks what needs the whole file, builds the closed sets
// and the generated guide, and records positions. i is the Language's
// index in the manifest.
func (c *compiler) finishLanguage(i int, ls *langState) {
	l := ls.lang
	c.cur = ls
	caps := pilotage.Effective(c.srv.Capabilities, l.Capabilities)
	if caps.Has(pilotage.CapExecute) {
		if l.ExecutionMode == "" && ls.settings["execution_mode"] == nil {
			l.ExecutionMode = pilotage.ModeImmediate
		}
		if l.TraceLevel == "" && ls.settings["trace_level"] == nil {
			l.TraceLevel = pilotage.LevelFull
		}
		if l.Retention == "" && ls.settings["retention"] == nil {
			l.Retention = pilotage.RetentionSession
		}
		if caps.HasSub(pilotage.CapExecute, pilotage.SubTestRun) && l.ExecutionMode == pilotage.ModeImmediate {
			c.valueErr("6.5.7", stmtAt{ls.stmt}, "test runs observe a deployed body: use mode deploy or both (§6.5.7)",
				"Language %s declares execute test_run but its mode is immediate", report.Clip(l.ID))
		}
	} else if !misspeltCapabilities(ls.stmt) {
		// With the capabilities block misspelt, its "unknown keyword"
		// is the one mistake; execute may well be declared in it.
		for _, wire := range []string{"execution_mode", "trace_level", "retention"} {
			// retention none claims nothing: lint's truthful-declarations
			// warns that it is redundant (reading 12, docs/readings.md).
			if wire == "retention" && l.Retention == pilotage.RetentionNone {
				continue
			}
			if s := ls.settings[wire]; s != nil {
				// A claim of a feature not provided: §4.3 rule 6, as
				// lint's truthful-declarations on a manifest cites.
				c.valueErr("4.3", stmtAt{s}, "declare execute in capabilities, or remove it (§4.3 rule 6)",
					"%s is set but Language %s does not declare execute", report.Clip(s.Keyword), report.Clip(l.ID))
			}
		}
	}
	hasGuide := map[string]bool{}
	for _, g := range l.Guides {
		hasGuide[g.Level] = true
	}
	// A guide whose level is unknown (reported at the guide) may be the
	// core guide.
	if !hasGuide[pilotage.GuideCore] && !hasGuide[""] {
		c.errf(pdl.RuleRequired, stmtAt{ls.stmt}, `add a core guide (§5.2): guide core "Getting started" level=core { body """…""" } over lines of its own, or level=core file="guides/core.md" naming a Markdown file you write`,
			"Language %s has no core guide", report.Clip(l.ID))
	}
	// Recording positions touches only l.Positions and statements, and a
	// large catalog makes it the costliest step here: it runs while the
	// examples are checked and the closed sets built.
	c.visible(l.ID)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.positions(i, ls)
	}()
	c.cur = nil
	c.checkExamples(ls)
	l.Sets = c.sets(ls, caps)
	c.checkRiskCover(ls, caps, l.ExecutionMode, &l.Sets)
	c.checkKinds(ls, caps, &l.Sets)
	// lint reads the guide back within guidemd's bounds (closed-sets-format):
	// a build must not write one it would reject, as 30,000 risk levels did.
	// Its head says so (guidemd.CheckHead), and what is refused is not
	// written whole: the head is all the body of a guide that fails.
	closedSets, size := closedsets.Head(ClosedSetsTitle, &l.Sets, guidemd.MaxBlocks+1)
	var tc *guidemd.TooComplexError
	if errors.As(guidemd.CheckHead(closedSets, size), &tc) {
		c.valueErr(report.Convention, stmtAt{ls.stmt}, fmt.Sprintf("declare fewer risk levels, diagnostic codes, statuses and loop decisions: a guide is read within %d bytes and %d lines and table cells", guidemd.MaxBodyBytes, guidemd.MaxBlocks),
			"Language %s: its generated closed-sets guide would be too large to read back (line %d: %s)", report.Clip(l.ID), tc.Line, tc.Message)
	}
	l.Guides = append(l.Guides, &language.Guide{
		Guide:     pilotage.Guide{ID: pilotage.TopicClosedSets, Title: ClosedSetsTitle, Level: pilotage.GuideReference, Topics: []string{pilotage.TopicClosedSets}, MediaType: "text/markdown"},
		Body:      closedSets,
		Generated: true,
	})
	for _, g := range l.Guides {
		fillGuide(g)
	}
	<-done
	c.srv.Languages = append(c.srv.Languages, l)
}

// positions records, for every value the Language emits, the PDL
// construct it came from, keyed by its JSON Pointer in the snapshot.
func (c *compiler) positions(i int, ls *langState) {
	l := ls.lang
	mp := "/manifest/languages/" + strconv.Itoa(i)
	local := l.Positions
	visible := c.visible(l.ID)
	// Sized up front; the catalog's items are recorded in l.Items, the
	// guides in l.GuideSpots.
	l.Positions = make(map[string]language.Pos, 6+len(local)+len(ls.settings))
	l.Positions[mp] = c.pos(ls.stmt.Pos)
	if a := arg(ls.stmt.Positional(), 0); a != nil {
		l.Positions[mp+"/id"] = c.pos(a.Pos)
	}
	for wire, s := range ls.settings {
		l.Positions[mp+"/"+wire] = c.pos(s.Pos)
	}
	// Capability positions were recorded relative to the block.
	for k, p := range local {
		l.Positions[mp+"/capabilities"+k] = p
	}
	// The places of the set values are the Language's own from now on.
	l.SetValues = ls.sets.at
	key := pilotage.EscapePointerToken(l.ID)
	l.Positions["/guides/"+key] = c.pos(ls.stmt.Pos)
	l.Positions["/catalog/"+key] = c.pos(ls.stmt.Pos)
	if len(visible) > 0 && len(visible) == len(c.entries) {
		// Every entry, in order (visible).
		l.Items = slices.Clip(c.itemSpots)
		return
	}
	l.Items = make([]language.Spot, len(visible))
	for n, e := range visible {
		l.Items[n] = c.itemSpots[e.index]
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// isoUnits are the units a duration written as a number (7days, 90min,
// 1h30m) is most likely in, as places in isoDesignators.
var isoUnits = map[string]int{
	"y": 0, "year": 0, "years": 0,
	"mo": 1, "month": 1, "months": 1,
	"w": 2, "week": 2, "weeks": 2,
	"d": 3, "day": 3, "days": 3,
	"h": 4, "hour": 4, "hours": 4,
	"m": 5, "min": 5, "mins": 5, "minute": 5, "minutes": 5,
	"s": 6, "sec": 6, "secs": 6, "second": 6, "seconds": 6,
}

// isoDesignators are ISO 8601's duration units, largest first (the last
// three follow T), each with how many of the next one it makes: 0 where
// that is no whole number (a year is not 12 months of 30 days, which is
// what ParseISODuration counts), so a fraction of it is not carried.
var isoDesignators = [...]struct {
	unit string
	next int64
}{{"Y", 0}, {"M", 0}, {"W", 7}, {"D", 24}, {"H", 60}, {"M", 60}, {"S", 0}}

// isoDuration is the ISO 8601 duration a number with units means, as
// PDL takes it: P7D for 7days, PT1H30M for 1h30m and for 1.5h (a
// fraction is carried to the smaller units, as PT1.5H is no word and
// would need quotes), "PT0.5S" quoted when a fraction of a second is
// left, none for a duration of nothing (P0D keeps no Run, and lint says
// to write none). ok is false when it cannot say: a number without a
// unit, a unit it does not know or given twice or out of order, a
// fraction of a year or month.
func isoDuration(number string) (string, bool) {
	var amounts [len(isoDesignators)]*big.Rat
	places, last := 0, -1
	for rest := number; rest != ""; {
		i := strings.IndexFunc(rest, func(r rune) bool { return r != '_' && r != '.' && (r < '0' || r > '9') })
		if i <= 0 {
			return "", false
		}
		j := i + strings.IndexFunc(rest[i:], func(r rune) bool { return r >= '0' && r <= '9' })
		if j < i {
			j = len(rest)
		}
		u, ok := isoUnits[strings.ToLower(rest[i:j])]
		if !ok || u <= last {
			return "", false
		}
		n := strings.ReplaceAll(rest[:i], "_", "")
		if k := strings.IndexByte(n, '.'); k >= 0 {
			places = max(places, len(n)-k-1)
		}
		amounts[u], ok = new(big.Rat).SetString(n)
		if !ok {
			return "", false
		}
		last, rest = u, rest[j:]
	}
	var b strings.Builder
	b.WriteString("P")
	fraction := false
	for i, d := range isoDesignators {
		a := amounts[i]
		if a == nil {
			continue
		}
		whole := new(big.Int).Quo(a.Num(), a.Denom())
		if left := new(big.Rat).Sub(a, new(big.Rat).SetInt(whole)); left.Sign() != 0 {
			if i == len(isoDesignators)-1 {
				fraction = true
			} else if d.next == 0 {
				return "", false
			} else {
				carried := left.Mul(left, new(big.Rat).SetInt64(d.next))
				if amounts[i+1] == nil {
					amounts[i+1] = new(big.Rat)
				}
				amounts[i+1].Add(amounts[i+1], carried)
				a = new(big.Rat).SetInt(whole)
			}
		}
		if a.Sign() == 0 {
			continue
		}
		if i >= 4 && !strings.Contains(b.String(), "T") {
			b.WriteString("T")
		}
		if fraction {
			b.WriteString(strings.TrimRight(a.FloatString(places), "0"))
		} else {
			b.WriteString(a.RatString())
		}
		b.WriteString(d.unit)
	}
	switch {
	case b.Len() == 1:
		return pilotage.RetentionNone, true
	case fraction:
		return strconv.Quote(b.String()), true
	}
	return b.String(), true
}

// misspeltCapabilities reports whether a language block has no
// capabilities block but a statement whose keyword is a likely misspelling
// of it (capabilites {…}).
func misspeltCapabilities(s *pdl.Stmt) bool {
	caps := []string{"capabilities"}
	misspelt := false
	for _, ch := range s.Children() {
		if ch.Keyword == "capabilities" {
			return false
		}
		misspelt = misspelt || suggest.Closest(ch.Keyword, caps) != ""
	}
	return misspelt
}
