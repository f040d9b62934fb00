package compile

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/google/cel-go/cel"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// behaviourLimits bound the parsing of behaviour expressions: the
// default nesting bound of §10.1 and a size no real script comes near.
var behaviourLimits = expr.Limits{Depth: language.DefaultLimits.Depth, Size: expr.MaxSize, Cost: 1 << 20}

// celHint is the hint of every behaviour CEL finding without a better one.
const celHint = `expressions are CEL over input, the entry's arguments: input.NAME reads one`

// inputEnv is the CEL environment of an entry's behaviour: `input` typed
// by the entry's input_schema with the engine's schema-typed
// declarations, exactly as `pilotage serve` compiles the same expressions.
// It is private (expr.NewPrivateEnv): the compiler checks each distinct
// expression once and keeps only its type, and the engine's own checks
// run under other limits, so the engine's caches would only add a copy of
// every parse and a live heap of programs that nothing reads again.
type inputEnv struct {
	env    *expr.Env
	schema expr.Schema
	err    error
}

// newInputEnv builds the environment for an input_schema (nil: any
// object, as the engine reads a missing schema).
func newInputEnv(inputSchema json.RawMessage) *inputEnv {
	schema := expr.ParseSchema(inputSchema)
	if schema == nil {
		schema = expr.Schema{"type": "object"}
	}
	env, err := expr.NewPrivateEnv(behaviourLimits, schema.Decls("input"))
	return &inputEnv{env: env, schema: schema, err: err}
}

// celResult is a behaviour expression checked in one input environment:
// its type, or the first problem with it.
type celResult struct {
	typ     *cel.Type
	problem *celProblem
}

// celProblem is an error inside an expression, at a code-point offset.
type celProblem struct {
	start     int
	msg, hint string
}

// checkCEL parses and type-checks src in ie. A select chain through
// `input` must follow properties the schema lists: CEL alone would type a
// misspelt field as dyn and fail only when the entry is called.
func (ie *inputEnv) checkCEL(src string) celResult {
	if ie.err != nil {
		return celResult{problem: &celProblem{msg: "CEL: " + ie.err.Error(), hint: celHint}}
	}
	parsed, issues := ie.env.Parse(src)
	if len(issues) > 0 {
		return celResult{problem: issueProblem(issues, src)}
	}
	for _, r := range parsed.Refs("input") {
		schema, what := ie.schema, "input"
		for _, f := range r.Path {
			if schema == nil || schema["type"] != "object" {
				break
			}
			prop, listed, _ := schema.Property(f)
			if !listed {
				return celResult{problem: &celProblem{start: r.Start,
					msg:  fmt.Sprintf("CEL: %s has no field %s in the entry's input_schema", what, report.QuoteName(f)),
					hint: hintOr(suggest.DidYouMean(f, schema.Properties()), "add it to input_schema, or read a field it lists")}}
			}
			schema, what = prop, what+"."+f
		}
	}
	typ, issues := ie.env.Type(parsed)
	if len(issues) > 0 {
		return celResult{problem: issueProblem(issues, src)}
	}
	return celResult{typ: typ}
}

// issueProblem is the finding of the first of a CEL expression's issues
// in src, or of its first undeclared name: a name CEL does not know is
// the cause of the type errors around it (room-2 is room minus 2, which
// no string equals), so it is the one to mend.
func issueProblem(issues []expr.Issue, src string) *celProblem {
	is := issues[0]
	for _, x := range issues {
		if x.Undeclared {
			is = x
			break
		}
	}
	hint, start := hintOr(is.Hint, celHint), is.Start
	word, wordStart := "", 0
	if is.Undeclared {
		word, wordStart = is.UndeclaredWord(src)
	}
	switch {
	case is.Undeclared && suggest.Closest(is.UndeclaredName(), []string{"input"}) != "":
		// inptu.item: the one variable, misspelt.
		hint = "did you mean input?"
	case is.Undeclared && (!selected(src, is.End) || strings.Contains(word, "-")):
		// `input` is the one variable, so a bare name no field is read
		// from is text written without its quotes (input.item ==
		// overflow), as in a program; my-item is one text, not my
		// minus item, and so are -milk and x.y-z.
		hint, start = expr.TextHint(report.Clip(word)), wordStart
	case is.Limit:
		hint = fmt.Sprintf("keep a behaviour expression under %d characters and %d levels of nesting", behaviourLimits.Size, behaviourLimits.Depth)
	}
	return &celProblem{start: start, msg: "CEL: " + is.Message, hint: hint}
}

// selected reports whether a field is read from the name that ends at
// code-point offset end of src (other.x).
func selected(src string, end int) bool {
	for i := range src {
		if end == 0 {
			return strings.HasPrefix(strings.TrimLeft(src[i:], " \t\n"), ".")
		}
		end--
	}
	return false
}

// inputEnvFor returns the environment for an input_schema, built once per
// distinct schema: catalogs share a few schemas over many entries.
func (c *compiler) inputEnvFor(inputSchema json.RawMessage) *inputEnv {
	ie, ok := c.inputEnvs[string(inputSchema)]
	if !ok {
		ie = newInputEnv(inputSchema)
		c.inputEnvs[string(inputSchema)] = ie
	}
	return ie
}

// celKey identifies a behaviour expression checked in the environment of
// an input_schema. The expression is the PDL text's own string, so a key
// copies nothing: a key of the schema's text and the expression's was a
// copy of both for each of a large catalog's expressions, alive until
// the compile ended.
type celKey struct {
	env *inputEnv
	src string
}

// cel checks a behaviour expression of an entry whose input_schema is
// inputSchema; wantBool requires a condition. It returns the source when
// it checks, and reports a finding at the expression's column otherwise.
func (c *compiler) cel(a *pdl.Arg, inputSchema json.RawMessage, wantBool bool) string {
	if a == nil {
		return ""
	}
	src := c.text(a, "the CEL expression")
	if src == "" {
		return ""
	}
	key := celKey{c.inputEnvFor(inputSchema), src}
	r, ok := c.celCache[key]
	if !ok {
		r = key.env.checkCEL(src)
		c.celCache[key] = r
	}
	if p := r.problem; p != nil {
		pos, end := argAt{a}.span(c.name)
		if at, ok := contentPos(c.name, &a.Value, p.start); ok {
			pos, end = at, lexer.Position{}
		}
		c.add(pdl.Errorf(pdl.RuleCEL, pos, end, p.hint, oneLine(p.msg)))
		return ""
	}
	if p := r.notBool(wantBool); p != nil {
		c.errf(pdl.RuleCEL, argAt{a}, p.hint, "%s", p.msg)
		return ""
	}
	return src
}

// notBool is the problem of a condition (wantBool) whose type is not
// bool, nil for any other.
func (r celResult) notBool(wantBool bool) *celProblem {
	if !wantBool || cel.BoolType.IsExactType(r.typ) || cel.DynType.IsExactType(r.typ) {
		return nil
	}
	return &celProblem{msg: fmt.Sprintf("CEL condition has type %s, not bool", r.typ), hint: "a condition is true or false"}
}

// Behaviours checks behaviour expressions written outside a PDL (a test
// case's stubs) as the compiler checks an entry's compute and when=.
// It keeps one environment per input_schema, as a compile does.
type Behaviours struct{ envs map[string]*inputEnv }

// NewBehaviours is an empty Behaviours.
func NewBehaviours() *Behaviours { return &Behaviours{envs: map[string]*inputEnv{}} }

// BehaviourProblem is what is wrong with a behaviour expression: Msg and
// Hint in the PDL's words, at code point Offset of the expression, or
// of the whole expression when Whole is set.
type BehaviourProblem struct {
	Offset    int
	Whole     bool
	Msg, Hint string
}

// Check checks src, a behaviour expression of an entry whose
// input_schema is inputSchema; cond asks for a condition (when=). It is
// nil when src checks.
func (b *Behaviours) Check(inputSchema json.RawMessage, src string, cond bool) *BehaviourProblem {
	ie, ok := b.envs[string(inputSchema)]
	if !ok {
		ie = newInputEnv(inputSchema)
		b.envs[string(inputSchema)] = ie
	}
	r := ie.checkCEL(src)
	if p := r.problem; p != nil {
		return &BehaviourProblem{Offset: p.start, Msg: oneLine(p.msg), Hint: p.hint}
	}
	if p := r.notBool(cond); p != nil {
		return &BehaviourProblem{Whole: true, Msg: p.msg, Hint: p.hint}
	}
	return nil
}

// contentPos is the source position of code point offset of a literal's
// content, when the content is the source text as written: a raw string,
// or a string without escapes. Text blocks are dedented, so their content
// columns are not the file's.
func contentPos(file string, v *pdl.Value, offset int) (lexer.Position, bool) {
	switch v.Kind() {
	case pdl.KindRaw:
	case pdl.KindString:
		if strings.Contains(v.Token, `\`) {
			return lexer.Position{}, false
		}
	default:
		return lexer.Position{}, false
	}
	content := []rune(v.Token[1 : len(v.Token)-1])
	if offset < 0 || offset > len(content) {
		return lexer.Position{}, false
	}
	pos := v.Pos
	pos.Advance(v.Token[:1] + string(content[:offset]))
	return pos.In(file), true
}
