package compile

import (
	"path"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// file compiles the top level: the server, shared closed sets, Languages,
// entries and principals, then everything that needs all of them. It
// reads the file's statements twice (pdl.File.Statements): first all but
// the entries, whose schemas and behaviour CEL it only gathers, and
// checks the CEL; then the entries, once the Languages are compiled, one
// at a time, keeping of each only its model and places (entryState). So
// neither the CEL checks, most of a large catalog's garbage, nor the
// statement handlers run beside the file's whole tree.
func (c *compiler) file(f *pdl.File) {
	c.srv.Pos = c.pos(f.Pos)
	var langStmts []*pdl.Stmt
	var pre prepass
	handlers := map[string]func(*pdl.Stmt){
		"server":       c.server,
		"capabilities": func(s *pdl.Stmt) { c.srv.Capabilities = c.capabilities(s, "/manifest/capabilities", c.srv.Positions) },
		"risk":         c.shared.add,
		"kind":         c.shared.add,
		"diagnostic":   c.shared.add,
		"status":       c.shared.add,
		"language":     func(s *pdl.Stmt) { langStmts = append(langStmts, s) },
		"entry":        pre.entry,
		"principal":    c.principal,
	}
	for s := range f.Statements() {
		if !c.dispatch("the file", s, handlers) {
			c.shared.unknown.add(s, handlers)
		}
	}
	c.check(c.prepare(&pre))
	for _, s := range langStmts {
		c.language(s)
	}
	// A misspelt language statement is the error; its absence is not
	// another (unknownKeywords.misspell).
	if len(c.langs) == 0 && !c.shared.unknown.misspell("language") {
		c.errf(pdl.RuleRequired, stmtAt{&pdl.Stmt{Pos: f.Pos, Keyword: ""}}, `add language "family/v1" { … }`,
			"the file defines no Language")
	}
	// The reading stops after the last entry: a file without entries is
	// read once. It builds the entries' trees alone: the Language blocks'
	// are live still (langs), and one of many guides is tens of MB.
	if left := pre.entries; left > 0 {
		// Sized as they are, not grown by doubling: 60,000 entries'
		// index took 3 MB.
		c.entries = make([]*entryState, 0, left)
		c.itemSpots = make([]language.Spot, 0, left)
		c.entryByID = make(map[string]*entryState, left)
		for s := range f.StatementsOf("entry") {
			c.entry(s)
			if left--; left == 0 {
				break
			}
		}
	}
	c.resolveEntries()
	c.checkSchemaSums()
	c.checkPrincipals()
	for i, ls := range c.langs {
		c.finishLanguage(i, ls)
	}
	// After the closed sets are built: what each Language publishes is
	// checked.
	c.checkShownNames()
}

func (c *compiler) server(s *pdl.Stmt) {
	p := c.shape(s, 1, 1, false, "version")
	c.serverStmt = s
	c.srv.Name = c.word(arg(p, 0), "the server name")
	if v, ok := s.Option("version"); ok {
		c.srv.Version = c.word(v, "the server version")
	}
	c.srv.Positions["/manifest/server"] = c.pos(s.Pos)
}

// capabilities compiles a capability block (§4.1, §4.2) and records the
// position of each capability under ptr.
func (c *compiler) capabilities(s *pdl.Stmt, ptr string, positions map[string]language.Pos) pilotage.Capabilities {
	c.shape(s, 0, 0, true)
	positions[ptr] = c.pos(s.Pos)
	caps := pilotage.Capabilities{}
	handlers := map[string]func(*pdl.Stmt){}
	for _, spec := range pilotage.CapabilityTable {
		spec := spec
		handlers[spec.Name] = func(cs *pdl.Stmt) {
			if _, dup := caps[spec.Name]; dup {
				c.errf(pdl.RuleDuplicate, stmtAt{cs}, "list its sub-features on one line", "capability %s declared twice", spec.Name)
			}
			positions[ptr+"/"+spec.Name] = c.pos(cs.Pos)
			args := c.shape(cs, 0, -1, false)
			if len(args) == 1 && args[0].Value.Str() == "off" {
				caps[spec.Name] = pilotage.CapabilityValue{Declared: false}
				return
			}
			if len(args) == 0 {
				caps[spec.Name] = pilotage.On()
				return
			}
			v := pilotage.CapabilityValue{Declared: true, Sub: map[string]bool{}}
			for _, a := range args {
				sub := c.word(a, "a sub-feature")
				if sub == "" {
					continue
				}
				known := false
				for _, x := range spec.SubFeatures {
					known = known || x == sub
				}
				if !known {
					hint := suggest.DidYouMean(sub, spec.SubFeatures)
					if hint == "" && len(spec.SubFeatures) == 0 {
						hint = spec.Name + " has no sub-features (§4.1)"
					} else if hint == "" {
						hint = spec.Name + " has: " + strings.Join(spec.SubFeatures, ", ") + " (§4.1)"
					}
					c.errf(pdl.RuleUnknown, argAt{a}, hint, "unknown sub-feature %s of %s", report.Clip(sub), spec.Name)
					continue
				}
				v.Sub[sub] = true
				positions[ptr+"/"+spec.Name+"/"+sub] = c.pos(a.Pos)
			}
			caps[spec.Name] = v
		}
	}
	c.keywords("capabilities", s.Children(), handlers)
	return caps
}

// principalOptions are the options of a principal statement.
var principalOptions = []string{"token"}

// principal compiles `principal NAME token="…" { sees "glob" … }` (§10.3).
func (c *compiler) principal(s *pdl.Stmt) {
	p := c.shape(s, 1, 1, true, principalOptions...)
	pr := &language.Principal{Name: c.word(arg(p, 0), "the principal name")}
	if t, ok := s.Option("token"); ok {
		pr.Token = c.text(t, "the token")
	} else if !misspelt(s, "token", principalOptions) {
		c.errf(pdl.RuleRequired, stmtAt{s}, `add token="…": the bearer token that authenticates it over HTTP`, "principal %s has no token", report.Clip(pr.Name))
	}
	var patterns []*pdl.Arg
	unknown := c.keywords("a principal", s.Children(), map[string]func(*pdl.Stmt){
		"sees": func(ss *pdl.Stmt) {
			for _, a := range c.shape(ss, 1, -1, false) {
				g := c.text(a, "a pattern")
				if _, err := path.Match(g, ""); err != nil {
					// Reported by checkPrincipals, whose did-you-mean
					// needs the catalog, read after the principals.
					c.badPatterns = append(c.badPatterns, badPattern{pr, a, g})
					c.markSeesUnknown(pr)
					continue
				}
				pr.Sees = append(pr.Sees, g)
				patterns = append(patterns, a)
			}
		},
	})
	// Principals and their tokens are §10.3's (Authorization), not the
	// catalog's section the rule cites.
	twice := c.principalNames[pr.Name]
	if twice {
		c.citeErr(pdl.RuleDuplicate, "10.3", stmtAt{s}, func() string { return "rename one of them" },
			"principal %s is defined twice", report.Clip(pr.Name))
	}
	c.principalNames[pr.Name] = true
	if unknown.misspell("sees") {
		c.markSeesUnknown(pr)
	}
	if other, dup := c.principalTokens[pr.Token]; dup && pr.Token != "" {
		// A principal defined twice is that one error: its second
		// definition most often repeats the first's token.
		if !twice {
			c.citeErr(pdl.RuleDuplicate, "10.3", stmtAt{s}, func() string { return "give every principal its own token" },
				"principals %s and %s share a token", report.Clip(other), report.Clip(pr.Name))
		}
	} else {
		c.principalTokens[pr.Token] = pr.Name
	}
	c.srv.Principals = append(c.srv.Principals, pr)
	c.principalPatterns = append(c.principalPatterns, patterns)
}

// matchBudget bounds the pattern-against-entry matches checkPrincipals
// tries; past it the remaining patterns go unchecked rather than let a
// hostile file take quadratic time.
const matchBudget = 10_000_000

// checkPrincipals reports principals that see nothing: a pattern that
// matches no entry is most likely a misspelling.
func (c *compiler) checkPrincipals() {
	for _, b := range c.badPatterns {
		// Like a pattern that matches nothing, a malformed one is most
		// likely a typo of a namespace's ("sensors.[" for "sensors.*"),
		// and principals' patterns are §10.3's.
		c.citeErr(pdl.RuleValue, "10.3", argAt{b.at}, func() string {
			if h := suggest.DidYouMean(b.g, c.patternsLike(b.g)); h != "" {
				return h
			}
			return `patterns use * and ? as in "lights.*"`
		}, "principal %s: malformed pattern %s", report.Clip(b.principal.Name), report.QuoteName(b.g))
	}
	if len(c.srv.Catalog) == 0 {
		return
	}
	budget := matchBudget
	for i, pr := range c.srv.Principals {
		for j, g := range pr.Sees {
			hit := false
			if !strings.ContainsAny(g, `*?[\`) {
				_, hit = c.entryByID[g]
			} else {
				if budget < len(c.srv.Catalog) {
					return
				}
				for _, e := range c.srv.Catalog {
					budget--
					if ok, _ := path.Match(g, e.ID); ok {
						hit = true
						break
					}
				}
			}
			if !hit && c.shared.unknown.misspells("entry", func(s *pdl.Stmt) bool {
				// A misspelt entry statement (entyr "lights.set") may be
				// what the pattern sees.
				if id := arg(s.Args, 0); id != nil {
					ok, _ := path.Match(g, id.Value.Str())
					return ok
				}
				return false
			}) {
				continue
			}
			if !hit {
				// Principals and what they see are §10.3's, not the
				// catalog's (§5.4) the rule cites for its other names.
				c.citeErr(pdl.RuleReference, "10.3", argAt{c.principalPatterns[i][j]}, func() string { return suggest.DidYouMean(g, c.patternsLike(g)) },
					"principal %s: pattern %s matches no catalog entry", report.Clip(pr.Name), report.QuoteName(g))
				// The principal meant to see something else, so what it
				// sees is unknown rather than what its other patterns
				// match: the checks that depend on it (checkShownNames)
				// pass it over instead of reporting the typo again at
				// every name it hides.
				c.markSeesUnknown(pr)
			}
		}
	}
}

// badPattern is a malformed sees pattern of a principal, at its argument.
type badPattern struct {
	principal *language.Principal
	at        *pdl.Arg
	g         string
}

// markSeesUnknown records that what pr sees is unknown (see seesUnknown).
func (c *compiler) markSeesUnknown(pr *language.Principal) {
	if c.seesUnknown == nil {
		c.seesUnknown = map[*language.Principal]bool{}
	}
	c.seesUnknown[pr] = true
}

// suggestIDs bounds the entries patternsLike draws its candidates from,
// so a huge catalog costs no more than a thousand entries' worth.
const suggestIDs = 1000

// patternsLike lists what pattern g, which matches no entry, may have
// meant: for a pattern with a wildcard every namespace of an entry id
// with its wildcard ("sensors.*" of "sensors.read", "a.*" and "a.b.*" of
// "a.b.c"), since "sensor.*" is a typo of a namespace, not of any one
// id; for an exact id the ids themselves.
func (c *compiler) patternsLike(g string) []string {
	entries := c.srv.Catalog[:min(len(c.srv.Catalog), suggestIDs)]
	wild := strings.ContainsAny(g, "*?[")
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if !wild {
			out = append(out, e.ID)
			continue
		}
		for i := range len(e.ID) {
			if e.ID[i] != '.' {
				continue
			}
			if p := e.ID[:i+1] + "*"; !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
