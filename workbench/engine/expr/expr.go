// Package expr is the engine's only way to evaluate program text: CEL
// (google/cel-go) with declarations derived from JSON Schemas, compile
// issues located by Unicode code-point offsets inside the expression
// string, and evaluation under a cost limit and a context deadline
// (§10.1, §10.2). Nothing here reflects program text into any other
// interpreter.
package expr

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/interpreter"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
)

// Decl declares one CEL variable. Name may be qualified
// ("steps.read.output.temp"): CEL resolves the longest declared prefix of
// a select chain, which is how fields of schema-typed values get their own
// types.
type Decl struct {
	Name string
	Type *cel.Type
}

// Limits bound the parsing and evaluation of one expression.
type Limits struct {
	// Depth bounds nesting; the parser's recursion limit is derived from
	// it (see recursionLimit).
	Depth int
	// Size bounds the expression's length in code points.
	Size int
	// Cost bounds one evaluation in CEL cost units.
	Cost uint64
}

// recursionLimit turns a nesting depth into the CEL parser's recursion
// limit, which counts grammar rules, not visible nesting: `1 + 1 + … + 1`
// with 30 terms already recurses deeper than 8. Eight rules per level,
// at least 32 and at most cel-go's own default of 250.
func recursionLimit(depth int) int { return min(250, max(32, 8*depth)) }

// Env is a CEL environment for one scope of a program.
type Env struct {
	env    *cel.Env
	limits Limits
	names  []string
}

// NewEnv builds the root environment: the CEL standard library only (no
// extension that could build huge values cheaply) and the given variables.
func NewEnv(l Limits, decls []Decl) (*Env, error) {
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
	return &Env{env: env, limits: l, names: names(nil, decls)}, nil
}

// Extend adds variables for an inner scope (a loop's item variable).
func (e *Env) Extend(decls ...Decl) (*Env, error) {
	opts := make([]cel.EnvOption, len(decls))
	for i, d := range decls {
		opts[i] = cel.Variable(d.Name, d.Type)
	}
	env, err := e.env.Extend(opts...)
	if err != nil {
		return nil, err
	}
	return &Env{env: env, limits: e.limits, names: names(e.names, decls)}, nil
}

func names(base []string, decls []Decl) []string {
	out := append([]string(nil), base...)
	for _, d := range decls {
		out = append(out, d.Name)
	}
	sort.Strings(out)
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
}

// Parsed is an expression that parsed; it can be inspected before it is
// checked.
type Parsed struct {
	src string
	ast *cel.Ast
}

// Parse parses src. On failure the issues say where. Parsing depends only
// on the source and the parser limits, so results are cached: the same
// expressions are parsed again by every validate and execute of a
// program. The checker rewrites the AST it checks, so the cache keeps the
// proto form and every caller gets its own copy.
func (e *Env) Parse(src string) (*Parsed, []Issue) {
	key := fmt.Sprintf("%d:%d\x00%s", e.limits.Depth, e.limits.Size, src)
	if v, ok := parses.get(key); ok {
		p := v.(parseResult)
		if p.issues != nil {
			return nil, p.issues
		}
		a := cel.ParsedExprToAstWithSource(p.parsed, common.NewTextSource(src))
		// The proto form keeps start offsets only; restore the ranges.
		info := a.NativeRep().SourceInfo()
		for id, r := range p.ranges {
			info.SetOffsetRange(id, r)
		}
		return &Parsed{src: src, ast: a}, nil
	}
	var r parseResult
	a, iss := e.env.Parse(src)
	if iss != nil && iss.Err() != nil {
		r.issues = issues(src, iss, nil, true)
		parses.put(key, r)
		return nil, r.issues
	}
	if pe, err := cel.AstToParsedExpr(a); err == nil {
		r.parsed, r.ranges = pe, maps.Clone(a.NativeRep().SourceInfo().OffsetRanges())
		parses.put(key, r)
	}
	return &Parsed{src: src, ast: a}, nil
}

type parseResult struct {
	parsed *exprpb.ParsedExpr
	ranges map[int64]celast.OffsetRange
	issues []Issue
}

var parses = newCache(8192)

// Expr is a checked, runnable expression.
type Expr struct {
	Source string
	// Type is the static type the checker inferred.
	Type *cel.Type
	prg  cel.Program
}

// Check type-checks p in this environment and prepares it for evaluation
// under the cost limit.
func (e *Env) Check(p *Parsed) (*Expr, []Issue) {
	checked, iss := e.env.Check(p.ast)
	if iss != nil && iss.Err() != nil {
		return nil, issues(p.src, iss, p.ast, false)
	}
	prg, err := e.env.Program(checked,
		cel.CostLimit(e.limits.Cost),
		cel.InterruptCheckFrequency(64),
		cel.EvalOptions(cel.OptTrackCost))
	if err != nil {
		return nil, []Issue{{Start: 0, End: runeLen(p.src), Message: err.Error()}}
	}
	return &Expr{Source: p.src, Type: checked.OutputType(), prg: prg}, nil
}

func issues(src string, iss *cel.Issues, parsed *cel.Ast, syntax bool) []Issue {
	s := common.NewTextSource(src)
	n := runeLen(src)
	var out []Issue
	for _, e := range iss.Errors() {
		start, end := -1, -1
		if parsed != nil && e.ExprID != 0 {
			if r, ok := parsed.NativeRep().SourceInfo().GetOffsetRange(e.ExprID); ok {
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
		out = append(out, Issue{Start: start, End: end, Message: cleanMessage(e.Message), Syntax: syntax,
			Undeclared: strings.HasPrefix(e.Message, "undeclared reference"),
			Limit:      strings.Contains(e.Message, "recursion") && strings.Contains(e.Message, "exceeded") || strings.Contains(e.Message, "size exceeds limit")})
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
func (p *Parsed) Refs(roots ...string) []Ref {
	want := map[string]bool{}
	for _, r := range roots {
		want[r] = true
	}
	info := p.ast.NativeRep().SourceInfo()
	inner := map[int64]bool{}
	var out []Ref
	celast.PreOrderVisit(p.ast.NativeRep().Expr(), celast.NewExprVisitor(func(x celast.Expr) {
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

// NumericHint explains CEL's most common type surprise when msg is about
// it: int and double do not mix in arithmetic, and JSON input numbers
// without a fraction are ints.
func NumericHint(msg string) string {
	if strings.Contains(msg, "overload") && strings.Contains(msg, "int") && strings.Contains(msg, "double") {
		return "CEL does not mix int and double in arithmetic: write 2.0 instead of 2, or convert with double(x)"
	}
	return ""
}

// ErrCost is returned when an evaluation exceeds its cost limit.
var ErrCost = errors.New("expression exceeded its evaluation cost limit")

// Eval evaluates x with the variables act resolves and returns the result
// as a JSON-compatible Go value (nil, bool, int64, float64, string,
// []any, map[string]any). The context's deadline interrupts long
// comprehensions.
func (x *Expr) Eval(ctx context.Context, act interpreter.Activation) (any, error) {
	out, _, err := x.prg.ContextEval(ctx, act)
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
