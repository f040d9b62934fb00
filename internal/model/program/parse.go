package program

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// LimitError is a bound of §10.1 exceeded while reading a program: the
// caller answers it with a resource_limit request error, not diagnostics.
// Where the program exceeded it, when known, is Pointer (the step
// model's JSON Pointer) or At (a text program's line and column), so a
// command line can print the error at its place.
type LimitError struct {
	Msg     string
	Pointer string
	At      pilotage.LineCol
}

func (e *LimitError) Error() string { return e.Msg }

// parser turns the jsonpos tree into steps, collecting syntax diagnostics.
type parser struct {
	g                  *language.Grammar
	maxDepth, maxSteps int
	diags              []pilotage.Diagnostic
	limit              *LimitError
	// cons are the Grammar's constructs (constructs), names their
	// sorted names and noConstruct and notObject the hints of a step
	// with no construct and of one that is no object: read once, not
	// per step, so a program of 300,000 wrong steps builds 300,000
	// diagnostics and not as many maps and hint strings besides.
	cons                   map[string][]string
	names                  []string
	noConstruct, notObject string
	// ptrs and slab hold the steps' pointers, arguments and their
	// expressions a few large allocations at a time, as package syntax
	// does for a text program; strs holds the strings of src the steps
	// keep (ids, targets, names and expressions), which the tree only
	// views, unless held (ParseHeld): the steps then view them too.
	ptrs, strs Pointers
	slab       Slab
	held       bool
	// ids and idProblems count, in program order, the step ids Check
	// finds wrong before anything else (empty, reserved characters,
	// used before). Past MaxDiagnostics of them Check refuses the
	// program for its diagnostics, whatever the steps after, so the
	// steps after the one that passed it (keep, in the order NewStep
	// made them: made) are read for their syntax but not kept: 36,000
	// steps of one id were modelled whole, 5 MB, to be refused.
	ids              map[string]bool
	idProblems       int
	made, keepBefore int
	// docs hold the tree of the step being read at each depth of
	// nesting (stepFold), one step's after another's.
	docs []*jsonpos.Doc
}

// Parse reads a JSON program. Malformed programs give syntax diagnostics;
// a program nested deeper than maxDepth constructs, or of more than
// maxSteps steps (the Language's `limits steps`, nested steps counted),
// gives a *LimitError. A program with more than MaxDiagnostics wrong
// step ids, which Check refuses for them, is modelled only up to the
// step whose id is one too many.
func Parse(src []byte, g *language.Grammar, maxDepth, maxSteps int) (*Program, []pilotage.Diagnostic, error) {
	return parse(src, g, maxDepth, maxSteps, false)
}

// ParseHeld is Parse for a caller that holds src, unchanged, as long as
// it holds the program (a command's file): the strings the steps keep
// are views of src where it writes them without escapes, not copies.
// Copied, they were 27 bytes a step of a program of 20,000 steps, beside
// the program's own bytes (docs/performance.md, "A large valid
// program").
func ParseHeld(src []byte, g *language.Grammar, maxDepth, maxSteps int) (*Program, []pilotage.Diagnostic, error) {
	return parse(src, g, maxDepth, maxSteps, true)
}

func parse(src []byte, g *language.Grammar, maxDepth, maxSteps int, held bool) (*Program, []pilotage.Diagnostic, error) {
	// The tree reads src itself, not a copy of it (1 byte a byte of the
	// program): the strings the steps keep are written into p.strs. It
	// is built to the steps, each step's own when it is read (step): the
	// tree of the whole program, 3 bytes a byte, was held beside the
	// steps made of it, and was as large as they.
	doc, err := jsonpos.ParseSharedTo(src, stepFold)
	if err != nil {
		return nil, []pilotage.Diagnostic{NotJSON(src, err)}, nil
	}
	p := &parser{g: g, maxDepth: maxDepth, maxSteps: maxSteps, cons: constructs(g), ids: map[string]bool{}, held: held}
	p.names = slices.Sorted(maps.Keys(p.cons))
	if len(p.names) > 0 {
		p.noConstruct = "add one of: " + strings.Join(quoteAll(p.names), ", ")
		p.notObject = `a step is an object such as {"id": "a", "` + p.example() + `": "..."}`
	}
	prog := p.program(doc.Root)
	if p.limit != nil {
		return nil, nil, p.limit
	}
	return prog, p.diags, nil
}

// NotJSON is the syntax diagnostic of src, a program that is not JSON,
// err being what jsonpos says of it. Text that starts with a word or a
// comment is a program written as text, most likely in the syntax of
// another Language: the hint says what this one reads instead.
func NotJSON(src []byte, err error) pilotage.Diagnostic {
	hint := "fix the JSON syntax; no other check can run on the program"
	if inputs.LooksLikeText(src) {
		hint = `a program of this Language is a JSON object such as {"steps": [...]}; it has no syntax of its own to write it as text`
	}
	return syntax("", "the program is not valid JSON: "+err.Error(), hint)
}

// stepFold is how deep the tree of a program or of a step is built: to
// the elements of the arrays of steps a program or a step holds (a
// program's steps, a branch's arms, a loop's body), each step a tree of
// its own then.
const stepFold = 2

func syntax(ptr, msg, hint string) pilotage.Diagnostic {
	return pilotage.Diagnostic{Code: pilotage.CodeSyntax, Severity: pilotage.SeverityError, Message: msg, Path: pilotage.PointerPath(ptr), Hint: hint}
}

func (p *parser) errorf(ptr, hint, format string, args ...any) {
	if len(p.diags) == MaxDiagnostics {
		// sequence stops at the step that set it.
		if p.limit == nil {
			p.limit = tooMany(p.diags, nil)
		}
		return
	}
	p.diags = append(p.diags, syntax(ptr, fmt.Sprintf(format, args...), hint))
}

// MaxDiagnostics bounds the diagnostics one validation builds. §10.1:
// the Engine MUST bound the memory of validation, and a bound exceeded
// during validation is a request error (resource_limit). A 900 KB
// program of 300,000 empty steps built as many diagnostics, 100 MB and
// ten times that in a response; compilers stop after some errors too,
// and no program a person writes has this many.
const MaxDiagnostics = 1000

// tooMany is the LimitError of a program with more than MaxDiagnostics
// diagnostics, naming the first, which is where to start: at its
// pointer, quoted, or where place (Env.Place) says it is. A request
// error has no hint member (data-model.md §8), so the way on is in the
// message: so many diagnostics are nearly always one mistake repeated by
// whatever wrote the program.
func tooMany(diags []pilotage.Diagnostic, place func(string) string) *LimitError {
	d := diags[0]
	at := strconv.Quote(d.Path.Pointer)
	if place != nil {
		at = place(d.Path.Pointer)
	}
	return &LimitError{Msg: fmt.Sprintf("the program has more than %d diagnostics, the most one validation builds; the first, at %s: %s; fix it where the program repeats it, then validate again", MaxDiagnostics, at, d.Message), Pointer: d.Path.Pointer}
}

// TooManySteps is the LimitError message of a program with more than
// max steps, the Language's `limits steps`, at the first step past it
// (where: a JSON Pointer, or a text's line and column); what is what the
// program's syntax calls its steps. §10.1: validation bounds the step
// count, and a bound exceeded during validation is a request error. The
// steps are counted as written, every arm of a branch and a loop's body
// once, so the message does not claim a Run would take that many.
func TooManySteps(max int, what, where string) string {
	return fmt.Sprintf("the program has more than %d %s (at %s), past limits steps, which bounds the steps a program writes, every arm of a branch counted; split the program, or raise the limit (limits { steps N } in the Language's PDL)", max, what, where)
}

// aKind names a JSON kind with its article: "an array", "a string".
func aKind(k jsonpos.Kind) string {
	if k == jsonpos.Object || k == jsonpos.Array {
		return "an " + k.String()
	}
	return "a " + k.String()
}

func join(ptr, tok string) string { return ptr + "/" + pilotage.EscapePointerToken(tok) }

// members returns an object's members whose names are allowed,
// reporting the others. A name given twice never gets here: jsonpos
// refuses it. allowed holds a handful of names (a construct's), so they
// are looked up in place: a map of them, and a set of allowed names,
// made for each step would be 70% of what reading a program of 36,000
// steps allocates.
func (p *parser) members(n jsonpos.Node, ptr string, allowed []string) kept {
	out := make(kept, 0, len(allowed))
	for _, m := range n.Members() {
		if !slices.Contains(allowed, m.Key) {
			hint := suggest.DidYouMean(m.Key, allowed)
			if hint == "" {
				hint = "allowed here: " + strings.Join(quoteAll(allowed), ", ")
			}
			p.errorf(join(ptr, m.Key), hint, "unknown member %s", report.QuoteName(m.Key))
			continue
		}
		out = append(out, m)
	}
	return out
}

// kept are the members of an object that members kept.
type kept []jsonpos.Member

// get is the member named k, if the object has it.
func (f kept) get(k string) (jsonpos.Node, bool) {
	for _, m := range f {
		if m.Key == k {
			return m.Value, true
		}
	}
	return jsonpos.Node{}, false
}

// node is the member named k, or the zero Node.
func (f kept) node(k string) jsonpos.Node {
	n, _ := f.get(k)
	return n
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func (p *parser) program(root jsonpos.Node) *Program {
	if !root.Is(jsonpos.Object) {
		p.errorf("", `a program is an object: {"steps": [...], "output": "..."}`, "the program is a JSON %s, not an object", root.Kind())
		return &Program{}
	}
	m := p.members(root, "", []string{"steps", "output"})
	prog := &Program{}
	if s, ok := m.get("steps"); ok {
		prog.Steps = p.sequence(s, "/steps", nil, 0, 1)
	} else {
		p.errorf("", `add "steps": [] even when the program has no steps`, "the program has no %q member", "steps")
	}
	if o, ok := m.get("output"); ok {
		prog.Output = p.expr(&Expr{}, o, "/output")
	}
	return prog
}

func (p *parser) sequence(n jsonpos.Node, ptr string, enclosing *Step, arm, depth int) []*Step {
	if depth > p.maxDepth {
		if p.limit == nil {
			p.limit = &LimitError{Msg: fmt.Sprintf("the program nests constructs deeper than this Language's limit of %d (at %s)", p.maxDepth, ptr), Pointer: ptr}
		}
		return nil
	}
	if !n.Is(jsonpos.Array) {
		p.errorf(ptr, "write the steps as a JSON array", "a step sequence must be an array, not %s", aKind(n.Kind()))
		return nil
	}
	if len(p.cons) == 0 {
		// With no step construct there is no step to write: say so once,
		// where a hint naming the missing construct would list nothing.
		if n.Len() > 0 {
			p.errorf(ptr, `remove the steps: write "steps": [] and put the computation in "output"`,
				"this Language has no steps; a program is only its output expression")
		}
		return nil
	}
	var out []*Step
	for i, e := range n.Elems() {
		at := p.made // the step's place in program order, if step makes it
		if s := p.step(e, p.ptrs.Join(ptr, strconv.Itoa(i)), i, enclosing, arm, depth); s != nil && (p.keepBefore == 0 || at < p.keepBefore) {
			out = append(out, s)
		}
		if p.limit != nil {
			return nil
		}
	}
	return out
}

// constructs lists the construct members the Grammar defines, with the
// members each allows.
func constructs(g *language.Grammar) map[string][]string {
	out := map[string][]string{}
	add := func(name string, others ...string) {
		if name == "" {
			return
		}
		allowed := []string{"id", name}
		for _, o := range others {
			if o != "" {
				allowed = append(allowed, o)
			}
		}
		out[name] = allowed
	}
	add(g.Call, g.Args)
	if len(g.Arms) == 2 {
		add(g.Branch, g.Arms[0], g.Arms[1])
	}
	add(g.Loop, g.Item, g.Body)
	add(g.Run, g.RunArgs)
	return out
}

// allowed reports whether some construct allows the member k.
func (p *parser) allowed(k string) bool {
	for _, ms := range p.cons {
		if slices.Contains(ms, k) {
			return true
		}
	}
	return false
}

// example is the construct member a hint shows a step with: the call
// where the grammar has one, else its first construct in sorted order
// (sequence never reads steps of a grammar with none).
func (p *parser) example() string {
	if p.g.Call != "" {
		return p.g.Call
	}
	return p.names[0]
}

// step reads the step n at ptr, element index of its array.
func (p *parser) step(n jsonpos.Node, ptr string, index int, enclosing *Step, arm, depth int) *Step {
	for len(p.docs) < depth {
		p.docs = append(p.docs, new(jsonpos.Doc))
	}
	n, err := n.UnfoldIn(p.docs[depth-1], stepFold)
	if err != nil { // a folded value was checked whole when it was read
		p.diags = append(p.diags, NotJSON(nil, err))
		return nil
	}
	if !n.Is(jsonpos.Object) {
		p.errorf(ptr, p.notObject, "a step must be an object, not %s", aKind(n.Kind()))
		return nil
	}
	var which string
	for _, k := range p.names {
		if n.Has(k) {
			if which != "" {
				p.errorf(ptr, "split it into two steps", "a step has exactly one construct, this one has both %q and %q", which, k)
				return nil
			}
			which = k
		}
	}
	if which == "" {
		// A misspelt construct ("cal") is the error, at that member; a
		// member some construct allows ("id", "with") is none.
		for _, m := range n.Members() {
			if hint := suggest.DidYouMean(m.Key, p.names); hint != "" && !p.allowed(m.Key) {
				p.errorf(join(ptr, m.Key), hint, "the step has no construct member; %s is none", report.QuoteName(m.Key))
				return nil
			}
		}
		p.errorf(ptr, p.noConstruct, "the step has no construct member")
		return nil
	}
	if p.made == p.maxSteps {
		p.limit = &LimitError{Msg: TooManySteps(p.maxSteps, "steps", ptr), Pointer: ptr}
		return nil
	}
	m := p.members(n, ptr, p.cons[which])
	s := NewStep(index, enclosing, arm)
	p.made++
	if id, ok := m.get("id"); !ok {
		p.errorf(ptr, `add "id": "<name>", unique within the program`, "the step has no %q", "id")
	} else if !id.Is(jsonpos.String) {
		p.errorf(join(ptr, "id"), "", "a step id must be a string, not %s", aKind(id.Kind()))
	} else {
		s.ID = p.keep(id.Str())
		p.countID(s.ID)
	}
	g := p.g
	switch which {
	case g.Call, g.Run:
		s.Kind = Call
		argsName := g.Args
		if which == g.Run && which != g.Call {
			s.Kind, argsName = Run, g.RunArgs
		}
		t := m.node(which)
		if !t.Is(jsonpos.String) {
			p.errorf(join(ptr, which), "write the catalog id as a string", "%q must name a catalog entry as a string, not %s", which, aKind(t.Kind()))
		} else {
			s.Target = p.keep(t.Str())
		}
		if a, ok := m.get(argsName); ok {
			s.Args = p.args(a, ptr, argsName)
			// Checks point at it for a missing argument; arguments that
			// are no object have their diagnostic already.
			s.HasArgs = a.Is(jsonpos.Object)
		}
	case g.Branch:
		s.SetKind(Branch)
		s.Cond = p.expr(&Expr{}, m.node(which), p.ptrs.Join(ptr, which))
		for i, a := range g.Arms {
			if n, ok := m.get(a); ok {
				s.Arms[i] = p.sequence(n, p.ptrs.Join(ptr, a), s, i, depth+1)
			}
		}
	case g.Loop:
		s.SetKind(Loop)
		s.List = p.expr(&Expr{}, m.node(which), p.ptrs.Join(ptr, which))
		if it, ok := m.get(g.Item); !ok {
			p.errorf(ptr, fmt.Sprintf(`add %q: "<name>" to name the current element`, g.Item), "the loop has no %q member", g.Item)
		} else if !it.Is(jsonpos.String) {
			p.errorf(join(ptr, g.Item), "", "%q must be a string naming the loop variable", g.Item)
		} else {
			s.Item = p.keep(it.Str())
		}
		if b, ok := m.get(g.Body); ok {
			s.Body = p.sequence(b, p.ptrs.Join(ptr, g.Body), s, 0, depth+1)
		}
	}
	return s
}

// countID counts the id of the step made last as Check's first pass
// judges it (checker.ids), and once more than MaxDiagnostics are wrong,
// keeps no step made after it.
func (p *parser) countID(id string) {
	switch {
	case p.keepBefore > 0:
	case !pilotage.ValidStepID(id) || p.ids[id]:
		if p.idProblems++; p.idProblems > MaxDiagnostics {
			p.keepBefore, p.ids = p.made, nil
		}
	default:
		p.ids[id] = true
	}
}

// args reads the arguments n, the member name of the step at step.
func (p *parser) args(n jsonpos.Node, step, name string) []Arg {
	if !n.Is(jsonpos.Object) {
		p.errorf(join(step, name), `write the arguments as an object of CEL expressions: {"name": "input.x"}`, "the arguments must be an object, not %s", aKind(n.Kind()))
		return nil
	}
	seen := map[string]bool{}
	out, exprs := p.slab.Args(n.Len()), p.slab.Exprs(n.Len())
	for i, mem := range n.Members() {
		mp := p.ptrs.Join(step, name, mem.Key)
		if seen[mem.Key] {
			// As in members, the last one stays, the one mp names.
			p.errorf(mp, "remove one of the two members", "argument %q appears twice", report.Clip(mem.Key))
			out = slices.DeleteFunc(out, func(a Arg) bool { return a.Name == mem.Key })
		}
		seen[mem.Key] = true
		if e := p.expr(&exprs[i], mem.Value, mp); e != nil {
			out = append(out, Arg{Name: p.keep(mem.Key), Expr: e})
		}
	}
	return out
}

// expr reads the expression n into e, or reports why it is none (nil).
func (p *parser) expr(e *Expr, n jsonpos.Node, ptr string) *Expr {
	if !n.Is(jsonpos.String) {
		hint := "write a CEL expression as a string"
		if n.Exists() && (n.Kind() == jsonpos.Number || n.Kind() == jsonpos.Bool || n.Kind() == jsonpos.Null) {
			hint = fmt.Sprintf("write it as the CEL expression %s", strconv.Quote(jsonLiteral(n)))
		}
		p.errorf(ptr, hint, "an expression must be a CEL string, not %s", aKind(n.Kind()))
		return nil
	}
	*e = Expr{Src: p.keep(n.Str()), Pointer: ptr}
	return e
}

// keep is s, a string of the tree (a view of src, or the string an
// escaped one decodes to), as a step keeps it: a copy in p.strs, or
// itself when src is held.
func (p *parser) keep(s string) string {
	if p.held {
		return s
	}
	return p.strs.Write(s)
}

func jsonLiteral(n jsonpos.Node) string {
	b, _ := json.Marshal(n.Value())
	return string(b)
}
