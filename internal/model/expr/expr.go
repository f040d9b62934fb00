// Package expr is the engine's only way to evaluate program text: CEL
// (google/cel-go) with declarations derived from JSON Schemas, compile
// issues located by Unicode code-point offsets inside the expression
// string, and evaluation under a cost limit and a context deadline
// (§10.1, §10.2). Nothing here reflects program text into any other
// interpreter.
package expr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"

	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

// Decl declares one CEL variable. Name may be qualified
// ("steps.read.output.temp"): CEL resolves the longest declared prefix of
// a select chain, which is how fields of schema-typed values get their own
// types.
type Decl struct {
	Name string
	Type *cel.Type
	// conv retypes the numbers of the variable's value as its schema says
	// (see numbers.go); nil when the schema types no number.
	conv *conv
}

// Limits bound the parsing and evaluation of one expression.
type Limits struct {
	// Depth bounds nesting; the parser's recursion limit is derived from
	// it (see recursionLimit).
	Depth int
	// Size bounds the expression's length in code points: MaxSize for
	// every expression of a Language.
	Size int
	// Cost bounds one evaluation in CEL cost units.
	Cost uint64
}

// MaxSize is the length of the longest expression a program, a guide
// example, a promoted body or a scripted behaviour may hold, in code
// points. cel-go builds the whole parse tree before a limit on its depth
// or size can refuse it, at about a kilobyte a code point, so the bound
// is on the text: a 600 KB list literal took 800 MB and 33 s to refuse.
// 4096 is far above any expression a program needs (steps hold the
// structure); §10.1 asks validation to be bounded as execution is.
const MaxSize = 4096

// recursionLimit turns a nesting depth into the CEL parser's recursion
// limit, which counts grammar rules, not visible nesting: `1 + 1 + … + 1`
// with 30 terms already recurses deeper than 8. Eight rules per level,
// at least 32 and at most cel-go's own default of 250.
func recursionLimit(depth int) int { return min(250, max(32, 8*depth)) }

// Env is a CEL environment for one scope of a program. Environments are
// shared: every NewEnv or Extend with the same limits and declarations
// returns the same Env while it is cached, and the Env remembers the
// expressions checked in it, because validate and execute check the same
// program's expressions again on every call. An Env from NewPrivateEnv
// is outside every cache (see there). An Env is safe for concurrent use.
type Env struct {
	// key is the Env's identity: a hash of its limits and every
	// declaration, with the declaration's number typing (envKey).
	key string
	env *cel.Env
	// planner prepares this Env's checked expressions to run: the root
	// Env's, which every Env extended from it shares. Planning reads the
	// checked expression's references, not the declarations, and a
	// planned expression holds the environment that planned it: planned
	// in its own, an expression checked in an Env extended for the step
	// outputs a few steps address (program.Check) would keep that whole
	// Env, 16 KB and more, for as long as it can run.
	planner *cel.Env
	limits  Limits
	names   []string
	// conv maps the declared names whose values hold schema-typed numbers
	// to their conversion.
	conv map[string]*conv
	// eval is what the Env's checked expressions evaluate with.
	eval *evalEnv

	mu      sync.Mutex
	checked map[string]checkResult
	// uncached is set once the Env left the cache (or would outgrow it
	// by itself), and from the start if private: its later checks are
	// not remembered, so memory stays within the cache's budget.
	uncached bool
	// private is set for an Env from NewPrivateEnv, and for those
	// extended from it: it has no key, and parses are its callers' own,
	// not cached.
	private bool
}

type checkResult struct {
	x      *Expr
	issues []Issue
}

// Cache budgets, in estimated bytes. Measured with cel-go v0.31: an
// environment costs about 20 KB plus 130 bytes per declaration once its
// checker is built, a checked expression about 25-100 bytes per
// character of source. A parse holds some 1,000 bytes besides its text
// (its AST, its source information and offsets, the cache's entry and
// key), hence perParse: charged perEntry as a checked expression is, the
// parse cache of one-line expressions held 1.35 times what it counted.
// A typed expression (Typed) holds some 150 bytes of its charge, a
// planned one (Check) nearly all of it (TestCachesHoldWhatTheyCount).
const (
	envBudget   = 64 << 20
	parseBudget = 32 << 20
	envBase     = 24 << 10
	perDecl     = 256
	perChar     = 96
	perEntry    = 512
	perParse    = 1024
)

// envs holds environments by identity; each Env's weight grows with the
// expressions checked in it.
var envs = lru.New[*Env](envBudget, 0)

// NewEnv builds the root environment: the CEL standard library only (no
// extension that could build huge values cheaply) and the given variables.
func NewEnv(l Limits, decls []Decl) (*Env, error) {
	key := envKey(fmt.Sprintf("%d:%d:%d", l.Depth, l.Size, l.Cost), decls)
	if v, ok := envs.Get(key); ok {
		return v, nil
	}
	e, err := newEnv(key, l, decls)
	if err != nil {
		return nil, err
	}
	return cacheEnv(e, len(decls)), nil
}

// NewPrivateEnv builds the same environment as NewEnv outside every
// cache, for a caller that checks each expression once and keeps what
// it needs (pilotage build): its parses are not shared, so the checker
// rewrites them in place instead of a copy, and nothing it parses or
// checks stays alive for the garbage collector to mark once the caller
// lets go of it.
func NewPrivateEnv(l Limits, decls []Decl) (*Env, error) {
	e, err := newEnv("", l, decls)
	if err != nil {
		return nil, err
	}
	e.uncached, e.private = true, true
	return e, nil
}

func newEnv(key string, l Limits, decls []Decl) (*Env, error) {
	opts := []cel.EnvOption{
		cel.ParserRecursionLimit(recursionLimit(l.Depth)),
		cel.ParserExpressionSizeLimit(max(l.Size, 1)),
		cel.CrossTypeNumericComparisons(true),
	}
	for _, d := range decls {
		opts = append(opts, cel.Variable(d.Name, d.Type))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, err
	}
	return withEval(&Env{key: key, env: env, planner: env, limits: l, names: names(nil, decls), conv: convs(nil, decls)}), nil
}

// evalEnv is what an Env's checked expressions evaluate with: the
// conversions of its numbers, and the planner and cost limit an
// identifier is planned with when its name does not resolve (Expr.ident).
// One a Env, which its expressions point to: held in each, they made an
// Expr 80 bytes instead of 64, 0.3 MB of a Run of 20,000 steps
// (docs/performance.md, "A large valid program").
type evalEnv struct {
	planner *cel.Env
	cost    uint64
	conv    map[string]*conv
}

// withEval sets e.eval from e.
func withEval(e *Env) *Env {
	e.eval = &evalEnv{planner: e.planner, cost: e.limits.Cost, conv: e.conv}
	return e
}

// Extend adds variables for an inner scope (a loop's item variable). The
// inner scope of a private Env is private too.
func (e *Env) Extend(decls ...Decl) (*Env, error) {
	key := ""
	if !e.private {
		key = envKey(e.key+"\x00extend", decls)
		if v, ok := envs.Get(key); ok {
			return v, nil
		}
	}
	opts := make([]cel.EnvOption, len(decls))
	for i, d := range decls {
		opts[i] = cel.Variable(d.Name, d.Type)
	}
	env, err := e.env.Extend(opts...)
	if err != nil {
		return nil, err
	}
	inner := withEval(&Env{key: key, env: env, planner: e.planner, limits: e.limits, names: names(e.names, decls), conv: convs(e.conv, decls)})
	if e.private {
		inner.uncached, inner.private = true, true
		return inner, nil
	}
	return cacheEnv(inner, len(e.names)+len(decls)), nil
}

// cacheEnv stores a new Env, or returns the one a concurrent caller
// stored first under the same identity.
func cacheEnv(e *Env, ndecls int) *Env {
	e.checked = map[string]checkResult{}
	return envs.Put(e.key, e, envBase+perDecl*ndecls)
}

// envKey is the identity of an environment: what precedes it (limits, or
// the parent's key) and each declaration's name, CEL type and number
// typing, hashed so that an extended environment's key does not copy a
// large program's declarations once per loop.
func envKey(base string, decls []Decl) string {
	var b strings.Builder
	b.WriteString(base)
	for _, d := range decls {
		b.WriteByte('\n')
		b.WriteString(d.Name)
		b.WriteByte(' ')
		b.WriteString(d.Type.String())
		if d.conv != nil {
			b.WriteByte(' ')
			d.conv.key(&b)
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

func names(base []string, decls []Decl) []string {
	out := append([]string(nil), base...)
	for _, d := range decls {
		out = append(out, d.Name)
	}
	sort.Strings(out)
	return out
}

func convs(base map[string]*conv, decls []Decl) map[string]*conv {
	out := maps.Clone(base)
	for _, d := range decls {
		if d.conv != nil {
			if out == nil {
				out = map[string]*conv{}
			}
			out[d.Name] = d.conv
		}
	}
	return out
}

// Names lists the declared variable names (qualified ones included), for
// close-match hints.
func (e *Env) Names() []string { return e.names }

// Issue is a problem with one expression, located inside its string by
// 0-based, end-exclusive code-point offsets.
type Issue struct {
	Start, End int
	Message    string
	// Syntax is true for parse errors, false for type-check errors.
	Syntax bool
	// Undeclared is true when the checker met a name with no declaration.
	Undeclared bool
	// Limit is true when the expression exceeded a parser bound (nesting
	// or size): §10.1 makes that a request error, not a diagnostic.
	Limit bool
	// Hint is the fix, when the message has an obvious one (plain.go).
	Hint string
}

// Parsed is an expression that parsed; it can be inspected before it is
// checked. From a shared Env its AST is shared with every other caller
// that parsed the same text under the same limits, and is only read: the
// checker, which rewrites the AST it checks, gets a copy. From a private
// Env the AST is this Parsed's own, and its first check rewrites it.
type Parsed struct {
	src string
	r   *parseResult
}

// Parse parses src. On failure the issues say where. Parsing depends only
// on the source and the parser limits, so a shared Env caches results:
// the same expressions are parsed again by every validate and execute of
// a program.
func (e *Env) Parse(src string) (*Parsed, []Issue) {
	var r *parseResult
	if e.private {
		r = parse(e.env, src)
		r.private = true
	} else {
		key := fmt.Sprintf("%d:%d\x00%s", e.limits.Depth, e.limits.Size, src)
		v, ok := parses.Get(key)
		if !ok {
			v = parses.Put(key, parse(e.env, src), perParse+perChar*len(src))
		}
		r = v
	}
	if r.issues != nil {
		return nil, r.issues
	}
	return &Parsed{src: src, r: r}, nil
}

func parse(env *cel.Env, src string) *parseResult {
	r := &parseResult{parser: env}
	a, iss := env.Parse(src)
	if iss != nil && iss.Err() != nil {
		r.issues = issues(src, iss, nil, true)
	} else {
		r.ast = a
	}
	return r
}

type parseResult struct {
	// parser parsed the source, and parses it again when a private AST
	// was taken by a check and is needed once more.
	parser *cel.Env
	issues []Issue

	mu sync.Mutex
	// ast is the parse. A shared one is never modified and is read
	// without mu. A private one is read under mu, and the first check
	// takes it (ast becomes nil) to rewrite it.
	ast     *cel.Ast
	private bool
	// refs remembers Refs by its roots. Callers ask for one or two sets
	// of roots, so a slice searched in order does: a map of one entry
	// took some 400 bytes, a quarter of what a cached parse of a short
	// expression holds (docs/performance.md, "Requests written faster
	// than they are answered").
	refs []rootRefs
}

// rootRefs are the Refs of one parse for the roots joined as key.
type rootRefs struct {
	key  string
	refs []Ref
}

var parses = lru.New[*parseResult](parseBudget, 0)

// LimitCaches lowers the budgets of the caches of environments and of
// parsed expressions to at most bytes each, and returns what restores
// them. The budgets are for a server, which validates and executes the
// same programs again; a process that checks one program once (pilotage
// validate, plan, run) meets again only what repeats in that program,
// and the default budgets let it keep some 2 KB an expression it will
// not meet again: 35 MB of a program of 20,000 steps
// (docs/performance.md, "A large valid program").
//
// Limits held at once (verbs run in one process, as tests run them)
// leave the least of them in force until each is restored, whatever the
// order.
func LimitCaches(bytes int) (restore func()) {
	held := &bytes
	cacheLimits.set(held, true)
	return func() { cacheLimits.set(held, false) }
}

// heldLimits are the LimitCaches not yet restored.
type heldLimits struct {
	mu   sync.Mutex
	held map[*int]bool
}

var cacheLimits heldLimits

// set holds or lets go of limit, then gives the caches the least limit
// held, or their own budgets when none is.
func (l *heldLimits) set(limit *int, hold bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[*int]bool{}
	}
	if hold {
		l.held[limit] = true
	} else {
		delete(l.held, limit)
	}
	env, parse := envBudget, parseBudget
	for b := range l.held {
		env, parse = min(env, *b), min(parse, *b)
	}
	envs.SetMax(env)
	parses.SetMax(parse)
}

// ResetCaches drops every cached environment, parsed expression and
// decoded schema. Results do not change, only their cost: a host may call
// it to give the memory back, and a benchmark to measure what a fresh
// process (one pilotage build) pays.
func ResetCaches() {
	envs.Reset()
	parses.Reset()
	schemas.Reset()
}

// Expr is a checked expression, runnable when Check made it (not Typed)
// or when it is a declared identifier. It is shared by every check of
// the same source in the same environment, and safe for concurrent use.
// It holds no copy of its source, which its caller has: a Run of 20,000
// steps held one of every argument (docs/performance.md, "A large valid
// program").
type Expr struct {
	// Type is the static type the checker inferred.
	Type *cel.Type
	prg  cel.Program
	// ident is the declared variable the expression is, when it is no
	// more than one (`input.room`, `steps.read.output.temp`, a loop's
	// item: the checker resolves a select chain of declared names into
	// one identifier), the commonest argument of a program. Such an
	// expression is evaluated by resolving the name, as the planned
	// program would, and holds no plan: cel-go's program is about 800
	// bytes, which a Run of 20,000 steps held for each of them at once,
	// 16 bytes a byte of its program (docs/performance.md, "A large
	// valid program"). eval's planner and cost plan it when a name does
	// not resolve, for cel-go's own error.
	ident string
	eval  *evalEnv
}

// runnable reports whether x can be evaluated.
func (x *Expr) runnable() bool { return x.prg != nil || x.ident != "" }

// Check type-checks p in this environment and prepares it for evaluation
// under the cost limit. A shared Env remembers the result, issues
// included: it depends only on the environment and the source.
func (e *Env) Check(p *Parsed) (*Expr, []Issue) { return e.remembered(p, true) }

// Typed type-checks p as Check does, without preparing it for evaluation:
// its Expr has the Type and cannot be evaluated, unless it is a declared
// identifier, which needs no plan (Expr.ident). It is for a caller that
// reports what the checker finds and runs nothing (validate, plan,
// pilotage build): planning, about a quarter of the CPU of Check, has
// nothing to find there, since the planner rejects only functions and
// types the checker did not resolve, and these environments declare no
// function beyond CEL's standard library; and a planned expression, about
// 900 bytes, would be half of what checking a program of 20,000 steps
// holds (docs/performance.md, "A large valid program"). A shared Env remembers
// it as Check does, and a later Check plans it.
func (e *Env) Typed(p *Parsed) (*Expr, []Issue) { return e.remembered(p, false) }

// Type is the static type of p, as Typed finds it.
func (e *Env) Type(p *Parsed) (*cel.Type, []Issue) {
	x, issues := e.Typed(p)
	if x == nil {
		return nil, issues
	}
	return x.Type, nil
}

// remembered is Check (planned) or Typed: what the Env remembers of p
// when it serves, or p checked now and remembered. An expression is
// charged to the cache once, when first remembered; planning it later
// replaces it at the same charge.
func (e *Env) remembered(p *Parsed, planned bool) (*Expr, []Issue) {
	serves := func(r checkResult) bool { return !planned || r.x == nil || r.x.runnable() }
	e.mu.Lock()
	r, ok := e.checked[p.src]
	e.mu.Unlock()
	if ok && serves(r) {
		return r.x, r.issues
	}
	if !e.uncached {
		// What the Env keeps holds its own copy of the source (keepable).
		p = &Parsed{src: keepable(p.src), r: p.r}
	}
	r = e.check(p, planned)
	e.mu.Lock()
	defer e.mu.Unlock()
	prev, had := e.checked[p.src]
	switch {
	case had && serves(prev):
		return prev.x, prev.issues
	case had:
		e.checked[p.src] = r
	case !e.uncached:
		if envs.Grow(e.key, perEntry+perChar*len(p.src)) {
			e.checked[p.src] = r
		} else {
			e.uncached = true
		}
	}
	return r.x, r.issues
}

// keepable is src as a cache keeps it: a copy of its own. The caller's
// src is often a part of a much larger string (a request's text, the
// program reader's block of expressions and pointers), all of which a
// cached view would keep alive: 20,000 validates of distinct one-line
// programs over serve held 72 MB of 4 KB blocks.
func keepable(src string) string { return strings.Clone(src) }

// typeCheck type-checks p, locating any issues in its source.
func (e *Env) typeCheck(p *Parsed) (*cel.Ast, []Issue) {
	a, ranges, iss := p.take()
	if iss != nil {
		return nil, issues(p.src, iss, nil, true)
	}
	checked, iss := e.env.Check(a)
	if iss != nil && iss.Err() != nil {
		return nil, issues(p.src, iss, ranges, false)
	}
	return checked, nil
}

// check type-checks p and, if planned and more than an identifier,
// prepares it for evaluation.
func (e *Env) check(p *Parsed, planned bool) checkResult {
	checked, found := e.typeCheck(p)
	if found != nil {
		return checkResult{issues: found}
	}
	x := &Expr{Type: checked.OutputType(), eval: e.eval}
	if name, ok := declaredIdent(checked.NativeRep()); ok {
		if name == p.src {
			// Written as its name, the commonest: the source's bytes,
			// the Env's own (keepable), not the declaration's name,
			// which the expression would hold beyond its Env's life
			// (24 bytes an expression).
			name = p.src
		}
		x.ident = name
		return checkResult{x: x}
	}
	if !planned {
		return checkResult{x: x}
	}
	prg, err := plan(e.planner, checked.NativeRep(), e.limits.Cost)
	if err != nil {
		return checkResult{issues: []Issue{{Start: 0, End: runeLen(p.src), Message: err.Error()}}}
	}
	x.prg = prg
	return checkResult{x: x}
}

// plan prepares a checked expression to run under the cost limit.
func plan(planner *cel.Env, a *celast.AST, cost uint64) (cel.Program, error) {
	return planner.PlanProgram(a,
		cel.CostLimit(cost),
		cel.InterruptCheckFrequency(64),
		cel.EvalOptions(cel.OptTrackCost))
}

// declaredIdent returns the variable a checked expression is, when it is
// one declared variable and nothing else: the planner makes of it an
// attribute that resolves the name and adapts the value (cel-go's
// planCheckedIdent), which Expr.Eval does without a plan. A constant
// (an enum value) or a type name is not such a variable.
func declaredIdent(a *celast.AST) (string, bool) {
	root := a.Expr()
	if root.Kind() != celast.IdentKind {
		return "", false
	}
	ref := a.ReferenceMap()[root.ID()]
	if ref == nil || ref.Value != nil || len(ref.OverloadIDs) > 0 || a.GetType(root.ID()).Kind() == types.TypeKind {
		return "", false
	}
	return ref.Name, true
}

// take returns an AST of p for the checker to rewrite, and the source
// ranges of the parse by expression id, which issues are located by. A
// shared parse gives a copy (whose ranges the proto form loses); a
// private one gives its own AST the first time, and is parsed again after
// that. The checker drops the ranges of the nodes it removes, but it
// removes only the operands of a select chain it resolved as one declared
// name, without visiting them, so no issue names a removed node. Parse
// issues are returned only if parsing again fails, which the same parser
// on the same text does not.
func (p *Parsed) take() (*cel.Ast, map[int64]celast.OffsetRange, *cel.Issues) {
	r := p.r
	if !r.private {
		if a, err := copyAST(r.ast, p.src); err == nil {
			return a, r.ast.NativeRep().SourceInfo().OffsetRanges(), nil
		}
	} else {
		r.mu.Lock()
		a := r.ast
		r.ast = nil
		r.mu.Unlock()
		if a != nil {
			return a, a.NativeRep().SourceInfo().OffsetRanges(), nil
		}
	}
	a, iss := p.reparse()
	if a == nil {
		return nil, nil, iss
	}
	return a, a.NativeRep().SourceInfo().OffsetRanges(), nil
}

// reparse parses p's source again: for a private parse whose AST a check
// took, or a shared one that does not copy.
func (p *Parsed) reparse() (*cel.Ast, *cel.Issues) {
	a, iss := p.r.parser.Parse(p.src)
	if iss != nil && iss.Err() != nil {
		return nil, iss
	}
	return a, nil
}

// copyAST copies a parsed AST through its proto form, which keeps start
// offsets only; the ranges are restored from the original.
func copyAST(orig *cel.Ast, src string) (*cel.Ast, error) {
	pe, err := cel.AstToParsedExpr(orig)
	if err != nil {
		return nil, err
	}
	a := cel.ParsedExprToAstWithSource(pe, common.NewTextSource(src))
	info := a.NativeRep().SourceInfo()
	for id, r := range orig.NativeRep().SourceInfo().OffsetRanges() {
		info.SetOffsetRange(id, r)
	}
	return a, nil
}

// issues locates cel-go's errors in src: by the source range of the
// expression an error names, if ranges has it, else by its location.
func issues(src string, iss *cel.Issues, ranges map[int64]celast.OffsetRange, syntax bool) []Issue {
	s := common.NewTextSource(src)
	n := runeLen(src)
	var out []Issue
	for _, e := range iss.Errors() {
		start, end := -1, -1
		if e.ExprID != 0 {
			if r, ok := ranges[e.ExprID]; ok {
				start, end = int(r.Start), int(r.Stop)
			}
		}
		if start < 0 {
			if off, ok := s.LocationOffset(e.Location); ok {
				start, end = int(off), int(off)+1
			} else {
				start, end = 0, n
			}
		}
		start, end = clamp(start, n), clamp(end, n)
		if end <= start {
			end = min(start+1, n)
			if end <= start {
				start = max(n-1, 0)
			}
		}
		msg, hint := plain(cleanMessage(e.Message))
		out = append(out, Issue{Start: start, End: end, Message: msg, Hint: hint, Syntax: syntax,
			Undeclared: strings.HasPrefix(e.Message, "undeclared reference"),
			Limit:      strings.Contains(e.Message, "recursion") && strings.Contains(e.Message, "exceeded") || strings.Contains(e.Message, "size exceeds limit")})
		if syntax && !out[len(out)-1].Limit {
			// The parser goes on past its first error and reports what
			// follows from it: an unclosed 'milk is also an expression
			// that ends too early. The first is the mistake.
			break
		}
	}
	return out
}

// cleanMessage drops cel-go's container note, which names nothing the
// program author controls.
func cleanMessage(m string) string {
	return strings.TrimSuffix(m, " (in container '')")
}

func clamp(v, n int) int { return max(0, min(v, n)) }

func runeLen(s string) int { return len([]rune(s)) }

// Ref is a select chain rooted at an identifier, as written:
// `steps.read.output.temp` is Ref{Root: "steps", Path: [read output temp]}.
type Ref struct {
	Root       string
	Path       []string
	Start, End int
}

// Refs lists every maximal select chain rooted at one of the named
// identifiers, outermost chains only. Comprehension variables that shadow
// a root are not told apart: programs cannot bind the reserved roots.
// The result is remembered with the parse and must not be modified.
func (p *Parsed) Refs(roots ...string) []Ref {
	key := strings.Join(roots, ".")
	p.r.mu.Lock()
	defer p.r.mu.Unlock()
	for _, r := range p.r.refs {
		if r.key == key {
			return r.refs
		}
	}
	if p.r.ast == nil {
		// A check took this private parse's AST, and rewrote it.
		a, iss := p.reparse()
		if iss != nil {
			return nil
		}
		p.r.ast = a
	}
	refs := p.refs(p.r.ast, roots)
	p.r.refs = append(p.r.refs, rootRefs{key, refs})
	return refs
}

func (p *Parsed) refs(a *cel.Ast, roots []string) []Ref {
	want := map[string]bool{}
	for _, r := range roots {
		want[r] = true
	}
	info := a.NativeRep().SourceInfo()
	inner := map[int64]bool{}
	var out []Ref
	celast.PreOrderVisit(a.NativeRep().Expr(), celast.NewExprVisitor(func(x celast.Expr) {
		if inner[x.ID()] || (x.Kind() != celast.SelectKind && x.Kind() != celast.IdentKind) {
			return
		}
		var path []string
		cur := x
		for cur.Kind() == celast.SelectKind {
			path = append([]string{cur.AsSelect().FieldName()}, path...)
			inner[cur.AsSelect().Operand().ID()] = true
			cur = cur.AsSelect().Operand()
		}
		if cur.Kind() != celast.IdentKind || !want[cur.AsIdent()] {
			return
		}
		r := Ref{Root: cur.AsIdent(), Path: path}
		if o, ok := info.GetOffsetRange(cur.ID()); ok {
			r.Start = int(o.Start)
		}
		r.End = chainEnd([]rune(p.src), r.Start, r.Root, path)
		out = append(out, r)
	}))
	return out
}

// chainEnd finds where the written chain `root.f1.f2` starting at start
// ends in src (code points); AST positions do not record it reliably.
func chainEnd(src []rune, start int, root string, path []string) int {
	i := start + len([]rune(root))
	for _, f := range path {
		j := i
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
			j++
		}
		if j >= len(src) || src[j] != '.' {
			break
		}
		j++
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
			j++
		}
		if !strings.HasPrefix(string(src[j:]), f) {
			break
		}
		i = j + len([]rune(f))
	}
	return min(i, len(src))
}

// UndeclaredName is the name an Undeclared issue is about.
func (is Issue) UndeclaredName() string {
	return strings.TrimSuffix(strings.TrimPrefix(is.Message, "undeclared reference to '"), "'")
}

// UndeclaredWord is the word an Undeclared issue's name starts in src,
// as written, and the code-point offset in src it starts at: CEL reads
// my-item as my - item, so cel-go names my alone, while the text meant,
// and the span shown, is my-item. A dash that starts it (-milk, read as
// minus milk) is the word's, and so are dotted parts (x.y-z, read as
// x.y minus z) when a dash follows them: no field of a CEL value has a
// dash in its name, so that is text too.
func (is Issue) UndeclaredWord(src string) (string, int) {
	name := is.UndeclaredName()
	rs := []rune(src)
	n := len([]rune(name))
	if is.Start < 0 || is.Start+n > len(rs) || string(rs[is.Start:is.Start+n]) != name {
		return name, is.Start
	}
	start, end := is.Start, is.Start+n
	if start > 0 && rs[start-1] == '-' && (start == 1 || !isWordRune(rs[start-2]) && rs[start-2] != ')' && rs[start-2] != ']') {
		start--
	}
	// dashed is the end of the word with its dashed parts alone,
	// dotted of the one with dotted parts too, which is the word when
	// it holds a dash past its dashed parts.
	dashed, dotted := wordEnd(rs, end, "-"), wordEnd(rs, end, "-.")
	if dotted > dashed && strings.ContainsRune(string(rs[dashed:dotted]), '-') {
		dashed = dotted
	}
	return string(rs[start:dashed]), start
}

// wordEnd is the end of the word whose name part ends at end in rs,
// going on over each of joins followed by a word character.
func wordEnd(rs []rune, end int, joins string) int {
	for end+1 < len(rs) && strings.ContainsRune(joins, rs[end]) && isWordRune(rs[end+1]) {
		end += 2
		for end < len(rs) && isWordRune(rs[end]) {
			end++
		}
	}
	return end
}

func isWordRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// TextHint explains a bare word CEL does not know, written where a
// literal text was meant: the first mistake of anyone new to CEL, in a
// program's argument as in a PDL entry's condition. name is as the
// message shows it (clipped, when long).
func TextHint(name string) string {
	return fmt.Sprintf(textHintPrefix+"%s is written '%s'", name, name)
}

const textHintPrefix = "expressions are CEL: the text "

// IsTextHint reports whether a diagnostic's hint is a TextHint: the
// engine read a bare word where a text was likely meant.
func IsTextHint(hint string) bool { return strings.HasPrefix(hint, textHintPrefix) }

// ErrCost is returned when an evaluation exceeds its cost limit.
var ErrCost = errors.New("expression exceeded its evaluation cost limit")

// Eval evaluates x with the variables act resolves and returns the result
// as a JSON-compatible Go value (nil, bool, int64, float64, string,
// []any, map[string]any). The context's deadline interrupts long
// comprehensions.
func (x *Expr) Eval(ctx context.Context, act interpreter.Activation) (any, error) {
	if len(x.eval.conv) > 0 {
		act = typed{act, x.eval.conv}
	}
	prg := x.prg
	if x.ident != "" {
		// What the planned attribute does when the name resolves: an
		// identifier costs 1 of the cost limit, and the context is
		// consulted only between a comprehension's iterations.
		if v, ok := act.ResolveName(x.ident); ok && x.eval.cost >= 1 {
			if out := x.eval.planner.CELTypeAdapter().NativeToValue(v); !types.IsError(out) {
				return FromCEL(out)
			}
		}
		// Otherwise cel-go says what is wrong, as it would have.
		var err error
		if prg, err = x.planIdent(); err != nil {
			return nil, err
		}
	}
	out, _, err := prg.ContextEval(ctx, act)
	if err != nil {
		if strings.Contains(err.Error(), "cost limit exceeded") {
			return nil, fmt.Errorf("%w (%s)", ErrCost, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return FromCEL(out)
}

// planIdent plans x, an identifier, as Check would have planned it.
func (x *Expr) planIdent() (cel.Program, error) {
	root := celast.NewExprFactory().NewIdent(1, x.ident)
	a := celast.NewCheckedAST(celast.NewAST(root, celast.NewSourceInfo(nil)),
		map[int64]*types.Type{1: x.Type},
		map[int64]*celast.ReferenceInfo{1: celast.NewIdentReference(x.ident, nil)})
	return plan(x.eval.planner, a, x.eval.cost)
}
