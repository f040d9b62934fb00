package program

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// Target is a catalog entry as the caller sees it.
type Target struct {
	Entry    *pilotage.CatalogEntry
	Callable bool
	// Promoted is true for a promoted program (a kind marked promoted).
	Promoted bool
}

// Env is what a check needs to know about the world: the grammar, the
// bounds, the caller's visible catalog and the variables in scope.
type Env struct {
	Grammar *language.Grammar
	Limits  expr.Limits
	// Lookup resolves an id in the caller's visible catalog; an invisible
	// entry must look exactly like a missing one (§10.3).
	Lookup func(id string) (Target, bool)
	// Visible lists the ids the caller may see, for close-match hints.
	Visible []string
	// UnknownHint is the hint of an unknown name no visible id is close
	// to, such as why the caller sees no entry at all; "" for none.
	UnknownHint string
	// Code returns preferred when the Language declares that diagnostic
	// code, and constraint otherwise (§5.5).
	Code func(preferred string) string
	// Input declares `input` with this schema when HasInput is true.
	HasInput bool
	Input    expr.Schema
	// Context declares `context` with this schema when HasContext is true.
	HasContext bool
	Context    expr.Schema
	// Labels is set for a text program (syntax text), whose step ids
	// are labels and whose hints read a step's result as NAME.output,
	// the shorthand such a program writes (docs/pdl.md, "Text programs").
	Labels bool
	// TypesOnly checks each expression for its type without preparing it
	// to run (expr.Env.Typed), for a program validated, not run: Expr.X
	// is left nil.
	TypesOnly bool
	// Place says where a JSON Pointer of the step model is in the
	// program as its author wrote it, for a message that names another
	// place than its own (a text program's line and column: its author
	// never sees the pointers, docs/pdl.md); nil names the pointer, which
	// is where a JSON program's author finds it.
	Place func(ptr string) string
}

// place is ptr named for a message (Env.Place).
func (e *Env) place(ptr string) string {
	if e.Place != nil {
		return e.Place(ptr)
	}
	return ptr
}

// Preferred engine diagnostic codes: a Language that declares one of these
// in its closed set gets it; any other gets constraint.
const (
	CodeStepID      = "step_id"
	CodeDuplicateID = "duplicate_id"
	CodeScope       = "scope"
	CodeType        = "type"
	CodeNotCallable = "not_callable"
	CodeArguments   = "arguments"
	CodeField       = "field"
)

// Checked is the result of Check.
type Checked struct {
	Diagnostics []pilotage.Diagnostic
	// References lists every catalog entry id the program names, sorted.
	References []string
}

// reservedRoots are the variables every scope may declare; a loop item
// cannot take these names.
var reservedRoots = []string{"input", "context", "steps"}

// refRoots are the roots of the references an expression is checked for
// (ref), in one order, so that declare and expr share the references
// the parse remembers.
var refRoots = []string{"steps", "input", "context"}

type checker struct {
	env   *Env
	prog  *Program
	diags []pilotage.Diagnostic
	// known lists the step of every valid, unique id, sorted by id, and
	// addressable, at the same index, how many steps of that id an
	// expression being checked may address (sequence). A map of the ids
	// took 64 bytes a step, these 12: 1 MB of a program of 20,000 steps
	// (docs/performance.md, "A large valid program").
	known       []*Step
	addressable []int32
	refs        map[string]bool
	// loopOf maps a loop variable to the first loop id (in id order)
	// that declares it; built from known at the first hint that asks.
	loopOf map[string]string
	roots  map[*expr.Env][]string
	// at is the step whose expressions are being checked, nil for the
	// program's output; lastUser holds, at the index of known, for each
	// step whose output an expression addresses, the last step of its
	// own sequence at or around at (programOutput: the program's
	// output), for Step.Release; nil for a step nothing addresses. Kept
	// for a Run's check only. A map of the steps took 28 bytes a step
	// more (docs/performance.md, "A large valid program").
	at       *Step
	lastUser []*Step
	// stepPaths is set when some step's output can be written in CEL:
	// steps is then a root a misspelt reference comes close to.
	stepPaths bool
	// limit is set when an expression exceeded a parser bound.
	limit *LimitError
	// nearWork counts the names compared for near-miss hints (near).
	nearWork int
}

// maxNearWork bounds the ids one check compares for near-miss hints.
// Each diagnostic about a step id compares every id addressable there:
// 1,000 diagnostics in a program of 20,000 steps compared 19 million
// pairs, 90 s. Past the bound a diagnostic goes without the hint; a
// program of a few mistakes among thousands of steps keeps every one.
const maxNearWork = 200_000

// near is the name among names that name is close to, "" when none is
// or the check has spent maxNearWork on such hints. The names are step
// ids addressable somewhere, or the roots of an expression's
// environment, which in a text program declares each label.
func (c *checker) near(name string, names []string) string {
	if c.nearWork += len(names); c.nearWork > maxNearWork {
		return ""
	}
	return suggest.Closest(name, names)
}

// Check resolves names and checks every expression of prog, filling in
// Step.Entry and, unless env.TypesOnly, Expr.X. prog must come from Parse without syntax
// diagnostics. An expression beyond the parser's bounds gives a
// *LimitError.
func Check(prog *Program, env *Env) (*Checked, error) {
	c := &checker{env: env, prog: prog, refs: map[string]bool{}}
	c.ids()
	if !env.TypesOnly {
		c.lastUser = make([]*Step, len(c.known))
	}
	c.targets()
	root, err := expr.NewEnv(env.Limits, c.rootDecls())
	if err != nil {
		return nil, err
	}
	if err := c.sequence(prog.Steps, root, nil); err != nil {
		return nil, err
	}
	if prog.Output != nil {
		var top []string
		for _, s := range prog.Steps {
			top = append(top, s.ID)
			c.address(s.ID, 1)
		}
		in, err := c.declare(root, nil, prog.Output)
		if err != nil {
			return nil, err
		}
		c.at = nil
		c.expr(prog.Output, in, top)
	}
	if c.limit != nil {
		return nil, c.limit
	}
	c.release()
	return &Checked{Diagnostics: c.diags, References: slices.Sorted(maps.Keys(c.refs))}, nil
}

func (c *checker) add(code, sev, ptr, msg, hint string, r *pilotage.CharRange) {
	if len(c.diags) == MaxDiagnostics {
		if c.limit == nil {
			c.limit = tooMany(c.diags, c.env.Place)
		}
		return
	}
	c.diags = append(c.diags, pilotage.Diagnostic{Code: code, Severity: sev, Message: msg, Path: pilotage.PointerPath(ptr), Range: r, Hint: hint})
}

// find is the index in c.known of the step of a valid, unique id, if
// id is one.
func (c *checker) find(id string) (int, bool) {
	return slices.BinarySearchFunc(c.known, id, func(s *Step, id string) int { return strings.Compare(s.ID, id) })
}

// step is the step of a valid, unique id; nil for any other id.
func (c *checker) step(id string) *Step {
	if i, ok := c.find(id); ok {
		return c.known[i]
	}
	return nil
}

// addressableSteps is how many steps of id (the step, and steps that
// repeat the id) an expression being checked may address.
func (c *checker) addressableSteps(id string) int32 {
	if i, ok := c.find(id); ok {
		return c.addressable[i]
	}
	return 0
}

// address counts the steps of id an expression may address one more
// (d 1) or one fewer (d -1). An id that is not valid and unique is
// counted nowhere: no reference can name it.
func (c *checker) address(id string, d int32) {
	if i, ok := c.find(id); ok {
		c.addressable[i] += d
	}
}

// ids applies §3.4 and uniqueness. The first step of an id, in program
// order, is the one c.known keeps: a stable sort keeps it first of the
// steps of its id.
func (c *checker) ids() {
	n := 0
	Walk(c.prog.Steps, func(s *Step) {
		if pilotage.ValidStepID(s.ID) {
			n++
		}
	})
	c.known = make([]*Step, 0, n)
	Walk(c.prog.Steps, func(s *Step) {
		if pilotage.ValidStepID(s.ID) {
			c.known = append(c.known, s)
		}
	})
	slices.SortStableFunc(c.known, func(a, b *Step) int { return strings.Compare(a.ID, b.ID) })
	c.known = slices.CompactFunc(c.known, func(a, b *Step) bool { return a.ID == b.ID })
	c.addressable = make([]int32, len(c.known))
	Walk(c.prog.Steps, func(s *Step) {
		ptr := func() string { return s.Pointer(c.env.Grammar) + "/id" } // made for a diagnostic alone
		switch {
		case s.ID == "":
			c.add(c.env.Code(CodeStepID), pilotage.SeverityError, ptr(), "a step id must not be empty", "", nil)
		case !pilotage.ValidStepID(s.ID):
			c.add(c.env.Code(CodeStepID), pilotage.SeverityError, ptr(),
				fmt.Sprintf("step id %q contains %q, which is reserved for trace identity (§3.4)", report.Clip(s.ID), reservedChar(s.ID)),
				"use letters, digits and '_', e.g. "+suggestID(s.ID), nil)
		case c.step(s.ID) != s:
			c.add(c.env.Code(CodeDuplicateID), pilotage.SeverityError, ptr(),
				fmt.Sprintf("step id %q is already used at %s", report.Clip(s.ID), c.env.place(c.step(s.ID).Pointer(c.env.Grammar))), "step ids are unique within the whole program", nil)
		default:
			c.stepPaths = c.stepPaths || validPath(s.ID)
			if !validPath(s.ID) {
				c.add(c.env.Code(CodeStepID), pilotage.SeverityWarning, ptr(),
					fmt.Sprintf("step id %q cannot be written in CEL (it is not an identifier, or it is a reserved word), so no expression can address steps.%s.output", report.Clip(s.ID), report.Clip(s.ID)),
					"use letters, digits and '_', starting with a letter", nil)
			}
		}
	})
}

// suggestID is id made a step id every expression can address, for the
// author to paste: each character but an ASCII letter, digit or '_'
// replaced by '_' (a reserved one is never alone), an 's' before a
// leading digit, and at most report.ClipBytes of it, cut with no
// ellipsis, which would be one more character to replace.
func suggestID(id string) string {
	b := make([]byte, 0, min(len(id), report.ClipBytes)+1)
	for _, r := range id {
		if len(b) == report.ClipBytes {
			break
		}
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			b = append(b, byte(r))
		default:
			b = append(b, '_')
		}
	}
	if b[0] >= '0' && b[0] <= '9' {
		b = append([]byte{'s'}, b...)
	}
	return string(b)
}

func reservedChar(id string) string {
	if strings.Contains(id, "#") {
		return "#"
	}
	return "/"
}

// targets resolves every call and run against the visible catalog.
func (c *checker) targets() {
	Walk(c.prog.Steps, func(s *Step) {
		if s.Kind != Call && s.Kind != Run {
			return
		}
		t, ok := c.env.Lookup(s.Target)
		if !ok {
			// Only the entries the caller may see are offered (§10.3), so
			// a hint never reveals an invisible one.
			c.add(pilotage.CodeUnknownName, pilotage.SeverityError, s.TargetPointer(c.env.Grammar),
				fmt.Sprintf("no catalog entry named %s", report.QuoteName(s.Target)), cmp.Or(suggest.DidYouMean(s.Target, c.env.Visible), c.env.UnknownHint), nil)
			return
		}
		switch {
		case s.Kind == Run && !t.Promoted:
			// A grammar without a call construct cannot reach the entry
			// at all; the hint must not name an empty member.
			fix := "name a promoted program: this Language has no construct that calls other entries"
			if c.env.Grammar.Call != "" {
				fix = fmt.Sprintf("call it with %q instead", c.env.Grammar.Call)
			}
			c.add(c.env.Code(CodeNotCallable), pilotage.SeverityError, s.TargetPointer(c.env.Grammar),
				fmt.Sprintf("%q is of kind %s, not a promoted program", report.Clip(s.Target), t.Entry.Kind), fix, nil)
			return
		case s.Kind == Call && !t.Callable:
			c.add(c.env.Code(CodeNotCallable), pilotage.SeverityError, s.TargetPointer(c.env.Grammar),
				fmt.Sprintf("%q is of kind %s, which programs cannot call", report.Clip(s.Target), t.Entry.Kind), "", nil)
			return
		}
		s.Entry = t.Entry
		c.refs[s.Target] = true
	})
}

// rootDecls declares input and context. A step's output is declared
// only where expressions address it (declare): declaring every step's
// output at the root, about 300 bytes a step in CEL's environment, took
// a third of what checking a program of 20,000 steps held, and made the
// root environment of every program its own.
func (c *checker) rootDecls() []expr.Decl {
	var decls []expr.Decl
	if c.env.HasInput {
		decls = append(decls, c.env.Input.Decls("input")...)
	}
	if c.env.HasContext {
		decls = append(decls, c.env.Context.Decls("context")...)
	}
	return decls
}

// declChunk is how many steps of a sequence share an environment that
// declares the outputs their expressions address (declare): one
// environment for each expression cost a program of 20,000 steps a
// sixth more CPU than the root environment declaring every output did,
// one for many costs less.
const declChunk = 64

// declare is env extended by the outputs of the steps that output and
// the expressions of steps address (a call's or a run's arguments, a
// branch's condition, a loop's list; not those of the sequences inside
// them, which declare their own), in id order so that steps addressing
// the same ones share it. An output declared for an expression that may
// not address it is harmless: ref reports such a reference before the
// expression is checked. An expression that does not parse declares
// nothing; expr reports it.
func (c *checker) declare(env *expr.Env, steps []*Step, output *Expr) (*expr.Env, error) {
	var ids []string
	add := func(e *Expr) {
		if e == nil {
			return
		}
		parsed, issues := env.Parse(e.Src)
		if len(issues) > 0 {
			return
		}
		for _, r := range parsed.Refs(refRoots...) {
			if r.Root == "steps" && len(r.Path) >= 2 && c.step(r.Path[0]) != nil && validPath(r.Path[0]) {
				ids = append(ids, r.Path[0])
			}
		}
	}
	for _, s := range steps {
		for _, a := range s.Args {
			add(a.Expr)
		}
		add(s.Cond)
		add(s.List)
	}
	add(output)
	if len(ids) == 0 {
		return env, nil
	}
	slices.Sort(ids)
	var decls []expr.Decl
	for _, id := range slices.Compact(ids) {
		s := c.step(id)
		name := "steps." + id + ".output"
		switch {
		case s.Kind == Loop:
			decls = append(decls, expr.Decl{Name: name, Type: listOfDyn})
		case s.Kind != Branch && s.Entry != nil:
			decls = append(decls, expr.ParseSchema(s.Entry.OutputSchema).Decls(name)...)
		default:
			decls = append(decls, expr.Decl{Name: name, Type: cel.DynType})
		}
	}
	return env.Extend(decls...)
}

// listOfDyn is a loop's output type, shared.
var listOfDyn = cel.ListType(cel.DynType)

// validPath reports whether a step id can be written in a select chain.
func validPath(id string) bool { return expr.IsIdentifier(id) }

// sequence checks steps in order; visible are the ids addressable from
// enclosing sequences. vis grows on visible's array, not a copy of it:
// an inner sequence's ids are written past the enclosing one's length and
// overwritten once it returns, so a program of n steps in branches costs
// no n² copies. addressable counts the same ids for the scope checks:
// asking the list would take a program of 20,000 steps seconds.
func (c *checker) sequence(steps []*Step, env *expr.Env, visible []string) error {
	vis := visible
	var in *expr.Env // env and the outputs the expressions of declChunk steps address
	defer func() {
		for _, id := range vis[len(visible):] {
			c.address(id, -1)
		}
	}()
	for i, s := range steps {
		c.at = s
		if i%declChunk == 0 {
			var err error
			if in, err = c.declare(env, steps[i:min(i+declChunk, len(steps))], nil); err != nil {
				return err
			}
		}
		switch s.Kind {
		case Call, Run:
			c.args(s, in, vis)
		case Branch:
			if s.Cond != nil {
				if x := c.expr(s.Cond, in, vis); x != nil && !assignable(cel.BoolType, x.Type) {
					c.typeMismatch(s.Cond, "a branch condition must be a bool, this is "+x.Type.String())
				}
			}
			for _, arm := range s.Arms {
				if err := c.sequence(arm, env, vis); err != nil {
					return err
				}
			}
		case Loop:
			elem := cel.DynType
			if s.List != nil {
				if x := c.expr(s.List, in, vis); x != nil {
					switch {
					case x.Type.Kind() == cel.ListKind && len(x.Type.Parameters()) == 1:
						elem = x.Type.Parameters()[0]
					case x.Type.Kind() != cel.DynKind:
						c.typeMismatch(s.List, "a loop iterates a list, this is "+x.Type.String())
					}
				}
			}
			inner := env
			if c.itemOK(s) {
				var err error
				if inner, err = env.Extend(expr.Decl{Name: s.Item, Type: elem}); err != nil {
					return err
				}
			}
			if err := c.sequence(s.Body, inner, vis); err != nil {
				return err
			}
		}
		if s.ID != "" {
			vis = append(vis, s.ID)
			c.address(s.ID, 1)
		}
	}
	return nil
}

// addressed records that an expression of c.at (the program's output
// when nil) addresses the output of s: the step of s's sequence that is
// c.at or encloses it is, so far, the last to need it. Steps are checked
// in the order a Run reaches them, so the last recorded is the last.
func (c *checker) addressed(s *Step) {
	if c.lastUser == nil {
		return
	}
	i, ok := c.find(s.ID)
	if !ok {
		return
	}
	user := c.at
	for user != nil && (user.Enclosing != s.Enclosing || user.Arm != s.Arm) {
		user = user.Enclosing
	}
	if user == nil {
		user = programOutput
	}
	c.lastUser[i] = user
}

// programOutput is the lastUser of a step the program's output
// addresses.
var programOutput = new(Step)

// release sets every step's ReleaseAfter from lastUser: an output is
// let go of once its last user has run, and at once when nothing
// addresses it; one the program's output addresses is held to the end.
func (c *checker) release() {
	if c.lastUser == nil {
		return
	}
	Walk(c.prog.Steps, func(s *Step) {
		var user *Step
		if i, ok := c.find(s.ID); ok && c.known[i] == s {
			user = c.lastUser[i]
		}
		switch user {
		case nil:
			user = s
		case programOutput:
			user = nil
		}
		s.ReleaseAfter = user
	})
}

func (c *checker) itemOK(s *Step) bool {
	ptr := s.Pointer(c.env.Grammar) + "/" + pilotage.EscapePointerToken(c.env.Grammar.Item)
	switch {
	case s.Item == "":
		return false
	case !expr.IsIdentifier(s.Item):
		c.add(pilotage.CodeConstraint, pilotage.SeverityError, ptr,
			fmt.Sprintf("the loop variable %q is not a CEL identifier", report.Clip(s.Item)), "use letters, digits and '_', starting with a letter", nil)
		return false
	}
	for _, r := range reservedRoots {
		if s.Item == r {
			c.add(pilotage.CodeConstraint, pilotage.SeverityError, ptr,
				fmt.Sprintf("the loop variable cannot be named %q: that name is always in scope", s.Item), "pick another name, e.g. \"item\"", nil)
			return false
		}
	}
	for e := s.Enclosing; e != nil; e = e.Enclosing {
		if e.Kind == Loop && e.Item == s.Item {
			c.add(pilotage.CodeConstraint, pilotage.SeverityError, ptr,
				fmt.Sprintf("the loop variable %q is already the variable of the enclosing loop %q", report.Clip(s.Item), report.Clip(e.ID)), "give the inner loop its own name", nil)
			return false
		}
	}
	return true
}

func (c *checker) typeMismatch(e *Expr, msg string) {
	c.add(c.env.Code(CodeType), pilotage.SeverityError, e.Pointer, msg, "", &pilotage.CharRange{Start: 0, End: len([]rune(e.Src))})
}

// assignable reports whether a value of type from may flow where want is
// expected (expr.Assignable: dyn is left to run time, an int fits a
// number).
func assignable(want, from *cel.Type) bool { return expr.Assignable(want, from) }

// args checks a call's or run's arguments against the entry's
// input_schema: every argument expression, required members, unknown
// members of a closed schema and static types.
func (c *checker) args(s *Step, env *expr.Env, vis []string) {
	var in expr.Schema
	if s.Entry != nil {
		in = expr.ParseSchema(s.Entry.InputSchema)
	}
	given := map[string]bool{}
	for _, a := range s.Args {
		given[a.Name] = true
	}
	// A misspelt argument ("rom" for "room") is one mistake, reported
	// once: a closed schema's "takes no argument" carries the did-you-mean
	// and the required member it meant is not reported missing too; an
	// open schema's missing member names the argument that was likely
	// meant, in place of the warning about it (issue 13 item 15).
	meant := map[string]string{} // a required member not given -> the argument that misspells it
	for _, a := range s.Args {
		x := c.expr(a.Expr, env, vis)
		if in == nil {
			continue
		}
		prop, listed, closed := in.Property(a.Name)
		var typo string
		if !listed {
			if best := suggest.Closest(a.Name, in.Properties()); best != "" && !given[best] && slices.Contains(in.Required(), best) {
				typo = best
				meant[best] = a.Name
			}
		}
		switch {
		case !listed && closed:
			c.add(c.env.Code(CodeArguments), pilotage.SeverityError, a.Expr.Pointer,
				fmt.Sprintf("%s takes no argument %s", report.Clip(s.Target), report.QuoteName(a.Name)), suggest.DidYouMean(a.Name, in.Properties()), nil)
		case !listed && typo == "":
			c.add(c.env.Code(CodeArguments), pilotage.SeverityWarning, a.Expr.Pointer,
				fmt.Sprintf("%s's input_schema does not list an argument %s", report.Clip(s.Target), report.QuoteName(a.Name)), suggest.DidYouMean(a.Name, in.Properties()), nil)
		case !listed:
		case x != nil && !assignable(prop.Type(), x.Type):
			c.typeMismatch(a.Expr, fmt.Sprintf("argument %q of %s must be %s, this is %s", report.Clip(a.Name), report.Clip(s.Target), prop.Type(), x.Type))
		}
	}
	for _, r := range in.Required() {
		if given[r] {
			continue
		}
		ptr := s.ArgsPointer(c.env.Grammar)
		if ptr == "" {
			ptr = s.Pointer(c.env.Grammar)
		}
		typo, misspelt := meant[r]
		_, _, closed := in.Property(typo)
		switch {
		case misspelt && closed:
			// Its "takes no argument" says it all.
		case misspelt:
			c.add(c.env.Code(CodeArguments), pilotage.SeverityError, ptr,
				fmt.Sprintf("%s requires the argument %s", report.Clip(s.Target), report.QuoteName(r)), fmt.Sprintf("did you mean %s, not %s?", suggest.OneLine(r), report.QuoteName(typo)), nil)
		default:
			c.add(c.env.Code(CodeArguments), pilotage.SeverityError, ptr,
				fmt.Sprintf("%s requires the argument %q", report.Clip(s.Target), r), fmt.Sprintf("add %q: \"<CEL expression>\"", r), nil)
		}
	}
}

// expr parses and checks one expression in scope; it returns nil when the
// expression has errors (already reported).
func (c *checker) expr(e *Expr, env *expr.Env, visible []string) *expr.Expr {
	parsed, issues := env.Parse(e.Src)
	if len(issues) > 0 {
		c.issues(e, issues, env, visible)
		return nil
	}
	before := len(c.diags)
	for _, r := range parsed.Refs(refRoots...) {
		c.ref(e, r, visible)
	}
	if hasError(c.diags[before:]) {
		return nil
	}
	check := env.Check
	if c.env.TypesOnly {
		check = env.Typed
	}
	x, issues := check(parsed)
	if len(issues) > 0 {
		c.issues(e, issues, env, visible)
		return nil
	}
	if !c.env.TypesOnly {
		e.X = x
	}
	return x
}

func hasError(ds []pilotage.Diagnostic) bool { return !pilotage.Valid(ds) }

func (c *checker) issues(e *Expr, issues []expr.Issue, env *expr.Env, visible []string) {
	// wordEnd is where the last undeclared word as written ends: CEL
	// reads oat-milk as oat - milk, and milk is the same mistake as oat,
	// whose diagnostic names the whole word.
	wordEnd := -1
	for _, is := range issues {
		r := &pilotage.CharRange{Start: is.Start, End: is.End}
		if is.Undeclared && is.Start < wordEnd {
			continue
		}
		switch {
		case is.Limit:
			if c.limit == nil {
				c.limit = &LimitError{Msg: fmt.Sprintf("the expression at %s is too deeply nested or too long for this Language's limits (%s)", c.env.place(e.Pointer), is.Message), Pointer: e.Pointer}
			}
		case is.Syntax:
			c.add(pilotage.CodeSyntax, pilotage.SeverityError, e.Pointer, "CEL: "+is.Message, is.Hint, r)
		case is.Undeclared:
			name := is.UndeclaredName()
			word, start := is.UndeclaredWord(e.Src)
			wordEnd = start + utf8.RuneCountInString(word)
			// The word as written is underlined.
			r.Start, r.End = min(r.Start, start), max(r.End, wordEnd)
			c.add(c.env.Code(CodeScope), pilotage.SeverityError, e.Pointer,
				fmt.Sprintf("%q is not defined here", report.Clip(name)), c.undeclaredHint(name, word, e.Src, is.End, c.rootNames(env), visible), r)
		default:
			c.add(c.env.Code(CodeType), pilotage.SeverityError, e.Pointer, "CEL: "+is.Message, is.Hint, r)
		}
	}
}

// undeclaredHint helps with a bare name CEL does not know. The two
// mistakes of a first program come first: a step's id written for its
// result (steps.<id>.output is the result) and a literal string left
// unquoted (an argument is CEL, so the text milk is 'milk', offered when
// the bare word is the whole expression and no loop names it); then a
// close match among the names in scope. end is the character offset in
// src just after the name: the fields selected from there are kept in
// the suggestion (a.temp is steps.a.output.temp). word is the name as
// written (expr.Issue.UndeclaredWord): CEL reads oat-milk as oat - milk
// and names oat alone.
func (c *checker) undeclaredHint(name, word, src string, end int, roots, visible []string) string {
	rest := src
	for range end {
		_, size := utf8.DecodeRuneInString(rest)
		rest = rest[size:]
	}
	sel := fields(rest)
	if c.addressableSteps(name) > 0 {
		if c.env.Labels {
			return labelHint(name, strings.Split(strings.TrimPrefix(sel, "."), "."))
		}
		return stepHint(name, strings.Split(strings.TrimPrefix(sel, "."), ".")) + " a step's result is addressed as steps.<id>.output"
	}
	if name == "input" && !c.env.HasInput {
		// The name every guide shows, missing only because the grammar
		// leaves it out (docs/pdl.md, "grammar").
		return "this Language's grammar takes no input: a PDL Language declares it with the line input in its grammar block"
	}
	if best := c.near(name, roots); best != "" && best != name {
		return "did you mean " + best + report.Clip(sel) + "?"
	}
	// A step's id misspelt where its result is read (al.output for
	// all's); a bare word alone is more likely text. Only then are the
	// visible ids compared, a pass over them each: a program of many
	// bare words stays linear.
	if sel != "" {
		if near := c.near(name, visible); near != "" {
			if c.env.Labels {
				return labelHint(near, strings.Split(strings.TrimPrefix(sel, "."), "."))
			}
			return stepHint(near, strings.Split(strings.TrimPrefix(sel, "."), "."))
		}
	}
	if c.loopOf == nil {
		c.loopOf = map[string]string{}
		for _, s := range c.known { // in id order: the first id is kept
			if _, ok := c.loopOf[s.Item]; s.Kind == Loop && !ok {
				c.loopOf[s.Item] = s.ID
			}
		}
	}
	if id, ok := c.loopOf[name]; ok {
		return fmt.Sprintf("%s is the variable of loop %s, in scope only in its body", report.Clip(name), report.Clip(id))
	}
	if w := strings.TrimSpace(src); w == name || w == word {
		return expr.TextHint(report.Clip(w))
	}
	return ""
}

// stepHint suggests the reference to step id's result for the fields
// sel written after the id, keeping them: a.temp and a.output.temp are
// both steps.a.output.temp, and steps.a.outptu.temp is too.
func stepHint(id string, sel []string) string {
	return "did you mean " + report.Clip(resultPath("steps."+id, sel)) + "?"
}

// labelHint is stepHint in a text program, whose labels' results are
// read as NAME.output: all.items is all.output.items.
func labelHint(label string, sel []string) string {
	return fmt.Sprintf("did you mean %s? %s is a label; its result is %s.output",
		report.Clip(resultPath(label, sel)), report.Clip(label), report.Clip(label))
}

// resultPath is step's result (step is steps.<id>, or a label) with the
// fields sel, less a first field that is output or close to it.
func resultPath(step string, sel []string) string {
	if len(sel) > 0 && (sel[0] == "" || sel[0] == "output" || suggest.Closest(sel[0], []string{"output"}) != "") {
		sel = sel[1:]
	}
	path := step + ".output"
	for _, f := range sel {
		path += "." + f
	}
	return path
}

// closeStep is the id addressable here, among visible, that id is or is
// close to; "" when none is.
func (c *checker) closeStep(id string, visible []string) string {
	if c.addressableSteps(id) > 0 {
		return id
	}
	return c.near(id, visible)
}

// stepsHere helps with a step id the program does not have, sel the
// fields written after it: the reference to a close one, else the few a
// reference here may name.
func (c *checker) stepsHere(id string, sel, visible []string) string {
	if near := c.closeStep(id, visible); near != "" {
		return stepHint(near, sel)
	}
	if len(visible) == 0 || len(visible) > 8 {
		return ""
	}
	return "the steps addressable here are " + strings.Join(report.Clips(visible), ", ")
}

// fields is the chain of field selections that starts rest (".temp.max"
// of ".temp.max > 3"), without a method's name (".size" of ".size()").
func fields(rest string) string {
	end := 0
	for end < len(rest) && rest[end] == '.' {
		n := end + 1
		for n < len(rest) && (rest[n] == '_' || 'a' <= rest[n] && rest[n] <= 'z' || 'A' <= rest[n] && rest[n] <= 'Z' || n > end+1 && '0' <= rest[n] && rest[n] <= '9') {
			n++
		}
		if n == end+1 || n < len(rest) && rest[n] == '(' {
			break
		}
		end = n
	}
	return rest[:end]
}

// rootNames is env's unqualified variable names, for hints: kept per
// env, which every step of a sequence shares.
func (c *checker) rootNames(env *expr.Env) []string {
	if out, ok := c.roots[env]; ok {
		return out
	}
	var out []string
	for _, n := range env.Names() {
		if !strings.Contains(n, ".") {
			out = append(out, n)
		}
	}
	if c.stepPaths {
		// Step outputs are declared as dotted names; their root is
		// what a misspelt "step.a.output" comes close to.
		out = append(out, "steps")
	}
	if c.roots == nil {
		c.roots = map[*expr.Env][]string{}
	}
	c.roots[env] = out
	return out
}

// ref applies the scope rules to `steps.<id>.output…` and checks fields
// against the schema of input, context and step outputs.
func (c *checker) ref(e *Expr, r expr.Ref, visible []string) {
	rng := &pilotage.CharRange{Start: r.Start, End: r.End}
	code := c.env.Code(CodeScope)
	var schema expr.Schema
	var fields []string
	var what string
	switch r.Root {
	case "steps":
		if len(r.Path) < 2 || r.Path[1] != "output" {
			h := ""
			if len(r.Path) > 0 {
				if id := c.closeStep(r.Path[0], visible); id != "" {
					h = stepHint(id, r.Path[1:])
				}
			}
			c.add(code, pilotage.SeverityError, e.Pointer, "a step's result is addressed as steps.<id>.output", h, rng)
			return
		}
		id := r.Path[0]
		s := c.step(id)
		if s == nil {
			c.add(code, pilotage.SeverityError, e.Pointer, fmt.Sprintf("no step %q in this program", report.Clip(id)), c.stepsHere(id, r.Path[1:], visible), rng)
			return
		}
		if c.addressableSteps(id) == 0 {
			c.add(code, pilotage.SeverityError, e.Pointer, fmt.Sprintf("%s is not addressable here: %s", c.named(report.Clip(id)), c.why(s)), suggest.DidYouMean(id, visible), rng)
			return
		}
		c.addressed(s)
		if (s.Kind == Call || s.Kind == Run) && s.Entry != nil {
			schema = expr.ParseSchema(s.Entry.OutputSchema)
		}
		fields, what = r.Path[2:], c.result(id)
	case "input":
		if !c.env.HasInput {
			return // the checker reports the undeclared name
		}
		schema, fields, what = c.env.Input, r.Path, "input"
	case "context":
		if !c.env.HasContext {
			return
		}
		schema, fields, what = c.env.Context, r.Path, "context"
	}
	for _, f := range fields {
		if schema == nil || schema["type"] != "object" {
			return
		}
		prop, listed, closed := schema.Property(f)
		if !listed {
			sev := pilotage.SeverityWarning
			if closed {
				sev = pilotage.SeverityError
			}
			c.add(c.env.Code(CodeField), sev, e.Pointer, fmt.Sprintf("%s has no field %s in its schema", report.Clip(what), report.QuoteName(f)), suggest.DidYouMean(f, schema.Properties()), rng)
			return
		}
		schema, what = prop, what+"."+f
	}
}

// why explains the scope rule that hides s.
func (c *checker) why(s *Step) string {
	if s.Enclosing != nil {
		kind := "the loop body of " + report.Clip(s.Enclosing.ID)
		if s.Enclosing.Kind == Branch {
			kind = fmt.Sprintf("arm %q of %s", c.env.Grammar.Arms[s.Arm], report.Clip(s.Enclosing.ID))
		}
		if c.env.Labels {
			// The text's blocks, where its statement is: the arms'
			// member names and a generated id are the step model's.
			at := c.env.place(s.Enclosing.Pointer(c.env.Grammar))
			kind = "the body of the loop at " + at
			if s.Enclosing.Kind == Branch {
				kind = [2]string{"the first block", "the else block"}[s.Arm] + " of the branch at " + at
			}
		}
		return "it is inside " + kind + " and is addressable only there, after it ran"
	}
	return "a step can address only the steps before it"
}

// result is how an expression reads the result of step id: its label's
// NAME.output in a text program, steps.ID.output in JSON.
func (c *checker) result(id string) string {
	if c.env.Labels {
		return id + ".output"
	}
	return "steps." + id + ".output"
}

// named is step id as a message about addressing it names it: by its
// result in a text program, which writes no steps.ID.
func (c *checker) named(id string) string {
	if c.env.Labels {
		return c.result(id)
	}
	return "steps." + id
}
