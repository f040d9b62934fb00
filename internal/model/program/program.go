// Package program reads, checks and plans programs of the workbench's fixed
// step model (internal/model/language Grammar, semantics.go): parsing with
// JSON Pointer locations, the structural and step-identifier rules (§3.4),
// name resolution against the caller's visible catalog, the scope rules,
// CEL type-checking against entry schemas (§6.4, §5.5), and plan
// derivation (§5.6). It never evaluates anything; the engine runs the
// checked program it returns.
package program

import (
	"strconv"

	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Kind is a step's construct; a byte, so that it, Step.HasArgs,
// Step.Arm and Step.Index share a word.
type Kind uint8

// The constructs of the step model.
const (
	Call Kind = iota
	Branch
	Loop
	Run
)

// Program is a parsed program: {"steps": [...], "output": EXPR}.
type Program struct {
	Steps []*Step
	// Output is the top-level output expression, nil when absent.
	Output *Expr
}

// Expr is one expression string of the program.
type Expr struct {
	Src string
	// Pointer locates the string in the program.
	Pointer string
	// X is the checked expression; nil until Check succeeds for it.
	X *expr.Expr
}

// Arg is one member of a call's or run's argument object.
type Arg struct {
	Name string
	Expr *Expr
}

// Step is one step of any construct.
type Step struct {
	ID string
	// Target is the catalog entry id a Call names or the program_ref a
	// Run names; TargetPointer locates it.
	Target string
	Args   []Arg
	// Construct is what a branch or a loop holds besides; a call and a
	// run share an empty one, never written (NewStep, SetKind). Held
	// apart, it leaves a call step 96 bytes instead of 192: a program of
	// 20,000 steps holds 1.9 MB less.
	*Construct

	// Enclosing is the innermost construct around the step (nil at top
	// level) and Arm the arm index when that construct is a branch.
	Enclosing *Step

	// Entry is the resolved target after Check.
	Entry *pilotage.CatalogEntry
	// ReleaseAfter, after a Check for a Run (not Env.TypesOnly), is the
	// step of this step's sequence after which no expression addresses
	// this step's output: nothing after it in the sequence, inside it
	// or the program's output. It is the step itself when nothing
	// addresses the output, and nil when the program's output does, or
	// for a program validated, not run. A Run lets go of the output
	// then, instead of holding every output to its end
	// (docs/performance.md, "A large valid program"). The step, not a
	// list at the step after which: the lists took 40 bytes a step.
	ReleaseAfter *Step

	Kind Kind
	// HasArgs is set for a call or a run whose arguments are an object,
	// which ArgsPointer locates.
	HasArgs bool
	Arm     uint8
	// Index is the step's place in the array of steps that holds it in
	// the step model's JSON (Pointer).
	Index int32
}

// Pointer locates the step in the step model of grammar g. It and the
// pointers of the step's members are made when a diagnostic asks, not
// kept: they were three strings a step, 48 bytes of a call step's 144
// (docs/performance.md, "A large valid program").
func (s *Step) Pointer(g *language.Grammar) string {
	return string(s.appendPointer(nil, g))
}

func (s *Step) appendPointer(b []byte, g *language.Grammar) []byte {
	var seq string
	switch e := s.Enclosing; {
	case e == nil:
		b, seq = append(b, "/steps"...), ""
	case e.Kind == Branch && int(s.Arm) < len(g.Arms):
		b, seq = e.appendPointer(b, g), g.Arms[s.Arm]
	case e.Kind == Branch:
		b = e.appendPointer(b, g) // no step is in an arm the grammar lacks
	default:
		b, seq = e.appendPointer(b, g), g.Body
	}
	if s.Enclosing != nil {
		b = append(append(b, '/'), pilotage.EscapePointerToken(seq)...)
	}
	return strconv.AppendInt(append(b, '/'), int64(s.Index), 10)
}

// TargetPointer locates the target of a call or a run in the step model
// of grammar g.
func (s *Step) TargetPointer(g *language.Grammar) string {
	if s.Kind == Run {
		return join(s.Pointer(g), g.Run)
	}
	return join(s.Pointer(g), g.Call)
}

// ArgsPointer locates the argument object of a call or a run in the step
// model of grammar g: "" when it has none (HasArgs).
func (s *Step) ArgsPointer(g *language.Grammar) string {
	switch {
	case !s.HasArgs:
		return ""
	case s.Kind == Run:
		return join(s.Pointer(g), g.RunArgs)
	}
	return join(s.Pointer(g), g.Args)
}

// Construct is what a branch or a loop step holds besides a call's.
type Construct struct {
	// Cond and Arms belong to a Branch: Arms[0] runs when Cond is true.
	Cond *Expr
	Arms [2][]*Step
	// List, Item and Body belong to a Loop.
	List *Expr
	Item string
	Body []*Step
}

// noConstruct is the Construct of every call and run: its fields read
// as none, and nothing writes them (SetKind gives a branch or a loop its
// own).
var noConstruct Construct

// NewStep is a step, element index of its array of steps, inside
// enclosing (nil at top level), in arm arm of it when it is a branch, of
// Kind Call until SetKind says otherwise. Steps are made by NewStep
// alone: a Step's Construct is never nil.
func NewStep(index int, enclosing *Step, arm int) *Step {
	return &Step{Index: int32(index), Enclosing: enclosing, Arm: uint8(arm), Construct: &noConstruct}
}

// SetKind makes s a step of construct k, and gives a branch or a loop a
// Construct of its own to fill in.
func (s *Step) SetKind(k Kind) {
	s.Kind = k
	if k == Branch || k == Loop {
		s.Construct = &Construct{}
	}
}

// Walk calls fn for every step in program order, depth first.
func Walk(steps []*Step, fn func(*Step)) {
	for _, s := range steps {
		fn(s)
		switch s.Kind {
		case Branch:
			Walk(s.Arms[0], fn)
			Walk(s.Arms[1], fn)
		case Loop:
			Walk(s.Body, fn)
		}
	}
}
