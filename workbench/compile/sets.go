package compile

import (
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// setDecls are the closed-set statements of one scope (the file, or one
// Language), compiled, with the place of each value for positions.
type setDecls struct {
	c     *compiler
	risks []closedsets.Risk
	kinds []closedsets.Kind
	codes []closedsets.Code
	run   []closedsets.Status
	step  []closedsets.Status
	// at locates each value's statement, by set ("risk", "kind", …)
	// then value: the Language's SetValues once it is finished.
	at map[string]map[string]language.Spot
	// texts are the values of the statement of each key of at that
	// could name an entry (namesAny), in order, for shownTexts: the
	// statements are garbage once compiled (language), and most have
	// none.
	texts map[string][]pdl.Value
	// misreadRisk marks a risk statement with a flag that is not one:
	// its level's hints are not what the author meant, so which
	// aggregates the levels lack is not judged (the flag is reported).
	misreadRisk bool
	// lost are the values ("kind:device", "status:failed") whose
	// definition is unknown, its flags or scope misread (and reported):
	// what uses them is not judged on them.
	lost map[string]bool
	// unknown are the statements of the scope whose keyword is none of
	// its own, of which lostDef reads the likely misspelt definitions.
	unknown unknownKeywords
}

// setNames are the sets of setDecls.at: a status's is "status " and its
// scope, each other's its statement's keyword.
var setNames = []string{"risk", "kind", "diagnostic", "status run", "status step"}

// lose records that value of set is defined, but not as written.
func (d *setDecls) lose(set, value string) {
	if d.lost == nil {
		d.lost = map[string]bool{}
	}
	d.lost[set+":"+value] = true
}

// lostDef reports whether value of set (kind, risk, status or, at file
// level, entry) is defined in this scope by a statement that could not
// be read: one whose flags or scope are misread, or whose keyword is a
// likely misspelling of set (rsik write "…"). Its error is the one
// mistake, so a use of the value is not reported as undefined.
func (d *setDecls) lostDef(set, value string) bool {
	if d.lost[set+":"+value] {
		return true
	}
	// A kept statement's arguments are its positional ones (add).
	return d.unknown.misspells(set, func(s *pdl.Stmt) bool {
		return slices.ContainsFunc(s.Args, func(a *pdl.Arg) bool { return a.Value.Str() == value })
	})
}

// lostAny reports whether a value of set is defined in this scope by a
// statement that could not be read (lostDef), or by one whose keyword
// is a likely misspelling of set: its error is the one mistake.
func (d *setDecls) lostAny(set string) bool {
	for v := range d.lost {
		if strings.HasPrefix(v, set+":") {
			return true
		}
	}
	return d.unknown.misspell(set)
}

// statusOptions are the options of a status statement.
var statusOptions = []string{"ok", "effects"}

// add compiles one risk, kind, diagnostic or status statement.
func (d *setDecls) add(s *pdl.Stmt) {
	c := d.c
	if d.at == nil {
		d.at = map[string]map[string]language.Spot{}
	}
	switch s.Keyword {
	case "risk":
		p := c.shape(s, 1, 5, false)
		r := closedsets.Risk{Risk: c.word(arg(p, 0), "the risk level")}
		flags, meaning, misread := c.flags(p[min(1, len(p)):], "readOnly", "destructive", "openWorld")
		d.misreadRisk = d.misreadRisk || misread
		r.Hints = pilotage.RiskHints{ReadOnly: flags["readOnly"], Destructive: flags["destructive"], OpenWorld: flags["openWorld"]}
		r.Meaning = meaning
		if !r.Hints.Consistent() {
			c.valueErr("5.3", stmtAt{s}, "a level that destroys cannot be read-only; drop one flag",
				"risk %s is both readOnly and destructive (§5.3)", r.Risk)
		}
		if d.define(s, "risk", r.Risk) {
			d.risks = append(d.risks, r)
		}
	case "kind":
		p := c.shape(s, 1, 4, false)
		k := closedsets.Kind{Kind: c.word(arg(p, 0), "the kind")}
		flags, meaning, misread := c.flags(p[min(1, len(p)):], "callable", "promoted")
		k.Callable, k.Promoted, k.Meaning = flags["callable"], flags["promoted"], meaning
		if k.Promoted && !k.Callable {
			c.valueErr("3.5", stmtAt{s}, "add callable: promoted programs are run by reference", "promoted kind %s is not callable", report.Clip(k.Kind))
		}
		if !d.define(s, "kind", k.Kind) {
			return
		}
		if misread {
			// Whether its entries are callable or promoted is unknown.
			d.lose("kind", k.Kind)
		} else {
			d.kinds = append(d.kinds, k)
		}
	case "diagnostic":
		p := c.shape(s, 1, 2, false)
		code := closedsets.Code{Code: c.word(arg(p, 0), "the code"), Meaning: c.text(arg(p, 1), "the meaning")}
		for _, r := range pilotage.ReservedCodes {
			if r == code.Code {
				c.errf(pdl.RuleDuplicate, argAt{p[0]}, "remove it: reserved codes are always present (§5.5)", "diagnostic code %s is reserved", report.Clip(code.Code))
				return
			}
		}
		if d.define(s, "diagnostic", code.Code) {
			d.codes = append(d.codes, code)
		}
	case "status":
		p := c.shape(s, 2, 3, false, statusOptions...)
		scope := c.oneOf(arg(p, 0), "5.7", "the status scope", []string{"run", "step"})
		st := closedsets.Status{Status: c.word(arg(p, 1), "the status"), Meaning: c.text(arg(p, 2), "the meaning")}
		if a, ok := s.Option("ok"); ok {
			st.OK = c.oneOf(a, "5.7", "ok", []string{"true", "false"}) == "true"
		} else if !misspelt(s, "ok", statusOptions) {
			c.errf(pdl.RuleRequired, stmtAt{s}, "add ok=true or ok=false (§5.7)", "status %s does not say whether it is ok", report.Clip(st.Status))
		}
		st.SideEffects = !st.OK
		if a, ok := s.Option("effects"); ok {
			st.SideEffects = c.oneOf(a, "5.7", "effects", []string{"none", "possible"}) == "possible"
		}
		for _, r := range pilotage.ReservedRunStatuses {
			if r.Status == st.Status {
				c.errf(pdl.RuleDuplicate, argAt{p[1]}, "remove it: reserved statuses are always present (§5.7)", "status %s is reserved", report.Clip(st.Status))
				return
			}
		}
		if scope == "" {
			d.lose("status", st.Status)
			return
		}
		if !d.define(s, "status "+scope, st.Status) {
			return
		}
		if scope == "run" {
			d.run = append(d.run, st)
		} else {
			d.step = append(d.step, st)
		}
	}
}

// define records a value's statement; false when it is a duplicate.
func (d *setDecls) define(s *pdl.Stmt, set, value string) bool {
	if value == "" {
		return false
	}
	at := d.at[set]
	if at == nil {
		at = map[string]language.Spot{}
		d.at[set] = at
	}
	if prev, dup := at[value]; dup {
		d.c.errf(pdl.RuleDuplicate, stmtAt{s}, "remove one; the first is at line "+itoa(int(prev.Line)), "%s %s is defined twice", set, report.Clip(value))
		return false
	}
	at[value] = language.SpotOf(d.c.pos(s.Pos))
	if vs := namedArgs(s); len(vs) > 0 {
		if d.texts == nil {
			d.texts = map[string][]pdl.Value{}
		}
		key := set + ":" + value
		d.texts[key] = append(d.texts[key], vs...)
	}
	return true
}

// flags reads bare-word flags from set followed by an optional meaning
// string; misread reports a word that is no flag of set.
func (c *compiler) flags(args []*pdl.Arg, set ...string) (out map[string]bool, meaning string, misread bool) {
	out = map[string]bool{}
	for i, a := range args {
		if a.Value.Kind() != pdl.KindIdent {
			if i == len(args)-1 {
				meaning = c.text(a, "the meaning")
			} else {
				c.errf(pdl.RuleArgs, argAt{a}, "flags come first, the meaning last", "unexpected %s", a.Value.Kind())
			}
			continue
		}
		w := a.Value.Str()
		known := false
		for _, f := range set {
			known = known || f == w
		}
		if !known {
			hint := suggest.DidYouMean(w, set)
			if hint == "" {
				hint = "flags here: " + strings.Join(set, ", ")
			}
			c.errf(pdl.RuleUnknown, argAt{a}, hint, "unknown flag %s", report.Clip(w))
			misread = true
			continue
		}
		if out[w] {
			c.errf(pdl.RuleDuplicate, argAt{a}, "keep one", "flag %s given twice", report.Clip(w))
		}
		out[w] = true
	}
	return out, meaning, misread
}

// reservedMeanings explains the reserved diagnostic codes (data-model.md).
var reservedMeanings = map[string]string{
	pilotage.CodeSyntax:         "The program is not well-formed for the grammar: not JSON, or a member of the wrong shape.",
	pilotage.CodeUnknownName:    "A name does not resolve in the catalog visible to you; unauthorized names look the same.",
	pilotage.CodeConstraint:     "Any other violation; the fallback when no more specific code fits.",
	pilotage.CodeInputBinding:   "The execute request's input does not bind; path points into input.",
	pilotage.CodeContextBinding: "The context is missing, malformed, unexpected or off-schema; path points into context.",
}

// sets assembles a Language's closed sets: the reserved values first,
// then the file's shared values, then the Language's own, each table
// present exactly when the Language's capabilities require it, and each
// prose section written for its grammar and capabilities. Each table is
// sized as it is (slices.Concat; the kinds and risk levels, the file's
// then the Language's, as language sized them): 25,000 risk levels grown
// by appending left up to as much again unused, and joined to the
// file's in a copy held two lists of them.
func (c *compiler) sets(ls *langState, caps pilotage.Capabilities) closedsets.Sets {
	l := ls.lang
	var s closedsets.Sets
	for _, code := range pilotage.ReservedCodes {
		s.DiagnosticCodes = append(s.DiagnosticCodes, closedsets.Code{Code: code, Meaning: reservedMeanings[code]})
	}
	s.DiagnosticCodes = slices.Concat(s.DiagnosticCodes, c.shared.codes, ls.sets.codes)
	syn := syntax.For(l)
	s.DiagnosticPaths = syn.Paths()
	if caps.Has(pilotage.CapCatalog) {
		s.Kinds = slices.Clip(ls.sets.kinds)
	}
	if caps.Has(pilotage.CapCatalog) || caps.Has(pilotage.CapPlan) {
		s.RiskLevels = slices.Clip(ls.sets.risks)
	}
	// The grammar-dependent prose is written for every Language, each
	// section saying only what its grammar and capabilities have
	// (semantics.go): a snapshot does not show the grammar, so lint could
	// not tell a section left out because it does not apply from one
	// forgotten (data-model.md reading 14).
	g := &l.Grammar
	promoted := l.ExecutionMode == pilotage.ModeDeploy || l.ExecutionMode == pilotage.ModeBoth ||
		slices.ContainsFunc(s.Kinds, func(k closedsets.Kind) bool { return k.Promoted })
	s.ScopeRules = language.ScopeRules(g)
	s.ParameterBinding = language.ParameterBinding(g, promoted)
	s.StepIdentifiers = syn.StepIdentifiers()
	if caps.Has(pilotage.CapExecute) {
		for _, r := range pilotage.ReservedRunStatuses {
			s.RunStatuses = append(s.RunStatuses, closedsets.Status{Status: r.Status, OK: r.OK, SideEffects: r.SideEffects, Meaning: r.Meaning})
		}
		s.RunStatuses = slices.Concat(s.RunStatuses, c.shared.run, ls.sets.run)
		for _, r := range pilotage.ReservedStepStatuses {
			s.StepStatuses = append(s.StepStatuses, closedsets.Status{Status: r.Status, OK: r.OK, SideEffects: r.SideEffects, Meaning: r.Meaning})
		}
		s.StepStatuses = slices.Concat(s.StepStatuses, c.shared.step, ls.sets.step)
		s.Truncation = language.Truncation(g)
		s.Output = language.Output(g, l.ExecutionMode, caps.HasSub(pilotage.CapExecute, pilotage.SubTestRun))
	}
	appendProse(&s, ls.prose)
	if s.LoopDecisions != "" {
		// A documented Loop decisions section lists the took values its
		// form uses (closed-sets-format.md), so replay can check them:
		// the workbench engine records a continue per iteration and an
		// exit, nothing summarized.
		s.LoopTook = engineLoopTook
	}
	return s
}

// engineLoopTook are the took values of the workbench engine's loop
// decisions (§5.8.2).
var engineLoopTook = []closedsets.Took{
	{Took: pilotage.DecisionContinue, Meaning: "Another iteration runs; one is recorded before each."},
	{Took: pilotage.DecisionExit, Meaning: "The loop ends, after its last iteration or at once for an empty list."},
}

// checkRiskCover refuses a Language whose risk levels cannot name every
// plan's max_risk consistently with its max_risk_hints (§5.3, §5.6;
// reading 9 as docs/readings.md amends it): one declaring plan must see a
// level, and every aggregate of the levels it sees, and the read-only
// hints of a plan without calls when it plans programs, must have a level
// with exactly its hints.
// pilotage.RiskGaps decides, as it does for lint and the engine; it works
// over the levels, never the entries, so a large catalog costs it nothing.
func (c *compiler) checkRiskCover(ls *langState, caps pilotage.Capabilities, mode string, sets *closedsets.Sets) {
	id := ls.lang.ID
	if c.shared.unknown.misspell("risk") || ls.sets.unknown.misspell("risk") {
		// A level is defined by a misspelt statement (rsik write "…"):
		// which levels the Language sees is unknown.
		return
	}
	if caps.Has(pilotage.CapPlan) && len(sets.RiskLevels) == 0 {
		c.errf(pdl.RuleRisk, stmtAt{ls.stmt}, `declare the levels its plans and entries name, such as: risk safe readOnly "Reads only."`,
			"Language %s declares plan but sees no risk level, so no plan can name its max_risk", report.Clip(id))
		return
	}
	if caps.Has(pilotage.CapCatalog) && len(sets.RiskLevels) == 0 {
		// The generated closed-sets guide would lack the Risk levels
		// section §5.2 requires of a catalog, which lint then refuses
		// in a guide the author cannot edit.
		c.errf(pdl.RuleRisk, stmtAt{ls.stmt}, `declare the levels its entries name, such as: risk safe readOnly "Reads only."; or, if programs depend on the grammar alone, drop catalog (§3.2)`,
			"Language %s declares catalog but sees no risk level, which its closed-sets guide must list (§5.2)", report.Clip(id))
		return
	}
	if ls.sets.misreadRisk || c.shared.misreadRisk {
		return
	}
	for _, g := range pilotage.RiskGaps(sets.Levels(), pilotage.PlansPrograms(caps, mode)) {
		fix := `declare a level with exactly those hints: risk NAME` + pdlFlags(g.Hints) + ` "…"`
		if len(g.Levels) == 0 {
			c.errf(pdl.RuleRisk, stmtAt{ls.stmt}, fix,
				"no risk level of Language %s has exactly the hints %s of a plan without calls (§5.3 over zero steps), so such a plan has no max_risk consistent with its hints", report.Clip(id), g.Hints.Text())
			continue
		}
		// A consistent destructive level is never read-only, so two
		// levels produce every gap unless an inconsistent one (already an
		// error) is among them.
		calling := "both"
		if len(g.Levels) != 2 {
			calling = "each"
		}
		c.errf(pdl.RuleRisk, c.riskAt(ls, g.Levels[0]), fix,
			"risk levels %s of Language %s aggregate to %s, which no level has exactly, so a plan calling %s has no max_risk consistent with its hints",
			andWords(g.Levels), report.Clip(id), g.Hints.Text(), calling)
	}
}

// checkKinds refuses a Language that declares catalog but sees no entry
// kind: its generated closed-sets guide would lack the Catalog entry
// kinds section §5.2 requires, which lint then refuses in a guide the
// author cannot edit. A Language whose programs depend on its grammar
// alone is pure and declares no catalog (§3.2).
func (c *compiler) checkKinds(ls *langState, caps pilotage.Capabilities, sets *closedsets.Sets) {
	if !caps.Has(pilotage.CapCatalog) || len(sets.Kinds) > 0 || c.shared.lostAny("kind") || ls.sets.lostAny("kind") {
		return
	}
	c.errf(pdl.RuleRequired, stmtAt{ls.stmt}, `declare the kinds its entries are, such as: kind tool callable "A tool programs call."; or, if programs depend on the grammar alone, drop catalog (§3.2)`,
		"Language %s declares catalog but sees no catalog entry kind, which its closed-sets guide must list (§5.2)", report.Clip(ls.lang.ID))
}

// riskAt is the place of the statement declaring a risk level the
// Language sees (its own, or the file's): its keyword, as stmtAt's.
func (c *compiler) riskAt(ls *langState, name string) place {
	s, ok := ls.sets.at["risk"][name]
	if !ok {
		s = c.shared.at["risk"][name]
	}
	from := pdl.Pos{Offset: s.Offset, Line: s.Line, Column: s.Column}
	return stmtAt{&pdl.Stmt{Pos: from, Keyword: "risk"}}.place()
}

// pdlFlags writes hints as the flags of a risk statement, each with its
// leading space.
func pdlFlags(h pilotage.RiskHints) string {
	out := ""
	for _, f := range h.Flags() {
		out += " " + f
	}
	return out
}

// andWords writes names as "a, b and c".
func andWords(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	last := names[len(names)-1]
	// report.Clips ends a long list with "and N more" itself.
	if !strings.HasPrefix(last, "and ") {
		last = "and " + last
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + last
}

// appendProse appends the authors' paragraphs to the fixed prose
// sections, each after a blank line (none before the first of a section
// written empty), in the order of their statements. Each section is
// written once: joining a paragraph at a time copied the section so far
// for each, and 20,000 paragraphs took lint 35 s (docs/performance.md, "Many
// prose paragraphs"). A paragraph is trimmed, so the blank lines before
// the first that is not empty are the leading newlines of its section's
// paragraphs.
func appendProse(s *closedsets.Sets, prose proseSections) {
	for sec, b := range prose {
		field := proseFields[sec](s)
		if *field == "" {
			*field = strings.TrimLeft(b.String(), "\n")
		} else {
			*field += b.String()
		}
	}
}
