package replay

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Plan is a plan (§5.6) prepared for replay: every step with its place in
// the program's construct tree and its position in the plan file. It is
// read whole; plans are small next to the traces checked against them.
type Plan struct {
	File string
	Src  []byte
	// Mode is the plan's mode: "deploy" plans describe the deployed body.
	Mode string
	// CatalogVersion is the snapshot the plan was derived at, "" when the
	// plan does not say (catalog-version).
	CatalogVersion string
	Steps          []*Step
	// Findings are the plan's plan-shape and plan-risk problems, at most
	// LoadPlan's maxPerRule of each rule; the checks work around them.
	Findings []report.Finding
	// left counts the findings Findings does not list.
	left *report.Cap

	byID map[string]*Step
	// root lists the steps outside every branch arm and loop body.
	root []*Step
	// doc and ptr (the plan object's pointer) place findings about the
	// plan that are made after loading (plan-risk against the Language).
	doc *jsonpos.Doc
	ptr string
	// risk is what plan-risk checks against the Language, read once.
	risk planRisk
}

// Step is one plan step and where it sits.
type Step struct {
	ID    string
	Kind  string
	Calls []string
	// Arms are a branch's arm labels (reading 3).
	Arms []string
	// Parent is the innermost enclosing branch or loop, nil at top level;
	// Label is the arm label when Parent is a branch.
	Parent *Step
	Label  string
	// Chain lists the enclosing constructs, outermost first; Loops counts
	// the loops among them, which is the number of #n qualifiers the
	// step's trace ids carry (§5.8.2).
	Chain []*Step
	Loops int
	// Ord is the step's position among its siblings (same parent, same
	// arm), in plan order.
	Ord int

	// Risk and Hints are the step's risk and risk_hints (§5.3); Hints is
	// nil when absent or malformed.
	Risk  string
	Hints *pilotage.RiskHints

	Pointer   string
	Line, Col int
	// children holds a construct's direct steps: per arm label for a
	// branch, under "" for a loop body.
	children map[string][]*Step
}

// Children returns the direct steps of a branch arm (label) or of a loop
// body (label "").
func (s *Step) Children(label string) []*Step { return s.children[label] }

// Step returns the plan step with the given id, or nil.
func (p *Plan) Step(id string) *Step { return p.byID[id] }

// location is the plan step as a related location for findings.
func (p *Plan) location(s *Step, note string) report.Location {
	return report.Location{File: p.File, Line: s.Line, Column: s.Col, Pointer: s.Pointer, Note: note}
}

// InputError is a plan or snapshot that cannot be used at all (not JSON,
// no steps, a member of the wrong type), at the place that shows it.
type InputError struct {
	File      string
	Line, Col int
	Msg, Hint string
}

func (e *InputError) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// LoadPlan reads a plan object or a validate response carrying one (§6.4).
// Structural problems inside the plan are findings (plan-shape), at most
// maxPerRule of a rule listed (0: report.DefaultMaxPerRule) and the rest
// counted, as Run reports them; a file that holds no usable plan is an
// *InputError.
func LoadPlan(file string, src []byte, maxPerRule int) (*Plan, error) {
	doc, err := parseFile(file, src, "plan", "the plan must be a plan object or a validate response")
	if err != nil {
		return nil, err
	}
	root, ptr := doc.Root, ""
	if root.Is(jsonpos.Object) && !root.Has("steps") && root.Has("valid") {
		root, ptr = root.Get("plan"), "/plan"
		if !root.Is(jsonpos.Object) {
			return nil, &InputError{File: file, Line: 1, Col: 1, Msg: "validate response carries no plan",
				Hint: "a validate response has a plan only when valid is true and the Language declares plan (§5.5)"}
		}
	}
	if k := inputs.Recognize(doc.Root); notPlan[k] != "" {
		return nil, &InputError{File: file, Line: 1, Col: 1, Msg: "this looks like " + k.String() + ", not a plan", Hint: notPlan[k]}
	}
	steps := root.Get("steps")
	if !steps.Is(jsonpos.Array) {
		pos := doc.Position(0)
		if root.Exists() {
			pos = doc.Position(root.Start())
		}
		return nil, &InputError{File: file, Line: pos.Line, Col: pos.Column, Msg: "not a plan: no steps array",
			Hint: "give a plan object (§5.6) or a validate response carrying one"}
	}
	p := &Plan{File: file, Src: src, Mode: root.Get("mode").String(), CatalogVersion: root.Get("catalog_version").String(),
		byID: map[string]*Step{}, doc: doc, ptr: ptr, left: report.NewCap(perRule(maxPerRule))}
	b := planBuilder{p: p, doc: doc}
	if m := root.Get("mode"); m.Exists() && (!m.Is(jsonpos.String) || (m.Str() != pilotage.ModeImmediate && m.Str() != pilotage.ModeDeploy)) {
		b.report(ptr+"/mode", fmt.Sprintf("plan mode is %s; a plan describes an immediate program or a deployed body", report.Clip(doc.Raw(m))),
			"mode is immediate or deploy (§5.6); test_run is a trace's mode, never a plan's")
	}
	for i, n := range steps.Elems() {
		b.add(ptr+"/steps/"+strconv.Itoa(i), n)
	}
	if err := b.link(); err != nil {
		return nil, err
	}
	p.checkRisk(root)
	return p, nil
}

// notPlan is the hint of a --plan file that is unmistakably another of
// the files replay reads (inputs.Recognize), saying where it goes.
var notPlan = map[inputs.Kind]string{
	inputs.Trace:    "give the trace (or execute response) as an argument and the plan (or validate response) with --plan",
	inputs.Program:  "give the plan of the program, which pilotage plan --format json writes; the program itself goes with --program, beside --lang",
	inputs.Snapshot: "give the snapshot with --snapshot and the plan (or validate response) with --plan",
	inputs.Manifest: "replay reads the Language from a snapshot (--snapshot) or a PDL file (--lang), and the plan (or validate response) from --plan",
}

// parseFile reads src, a file replay holds whole (a plan, a snapshot),
// into a tree after checking it without one (jsonpos.CheckBudget), so
// that a malformed or too dense file is an *InputError at its place,
// with hint for malformed JSON, before its tree is built; what names the
// file's kind.
func parseFile(file string, src []byte, what, hint string) (*jsonpos.Doc, error) {
	err := jsonpos.CheckBudget(src)
	var be *jsonpos.BudgetError
	if errors.As(err, &be) {
		return nil, &InputError{File: file, Line: 1, Col: 1, Msg: what + " too dense to read: " + be.Error(),
			Hint: "a " + what + " holds far fewer values a byte; look for a large array of numbers or empty values (docs/json.md, \"Dense documents\")"}
	}
	var doc *jsonpos.Doc
	if err == nil {
		doc, err = jsonpos.Parse(src)
	}
	if err != nil {
		se := err.(*jsonpos.SyntaxError)
		return nil, &InputError{File: file, Line: se.Pos.Line, Col: se.Pos.Column, Msg: "malformed JSON: " + se.Msg, Hint: hint}
	}
	return doc, nil
}

// MaxPlanDepth bounds how deeply a plan may nest branches and loops. Every
// step keeps its chain of enclosing constructs, so a hostile plan nested
// thousands deep would cost memory quadratic in its size; real programs
// are bounded far lower (§10.1).
const MaxPlanDepth = 512

// planBuilder turns plan step nodes into Steps and records plan-shape
// findings on the way.
type planBuilder struct {
	p   *Plan
	doc *jsonpos.Doc
	// refs keeps each step's arm/loop reference until every id is known.
	refs map[*Step]planRef
}

type planRef struct {
	branch, label, loop string
	node                jsonpos.Node
}

func (b *planBuilder) report(pointer, msg, hint string) { b.p.add(RulePlanShape, pointer, msg, hint) }

// add lists a finding of rule about the plan, at pointer, in Findings, or
// counts it in left once Findings lists enough of the rule.
func (p *Plan) add(rule, pointer, msg, hint string) {
	if f, ok := p.finding(p.left, rule, pointer, msg, hint); ok {
		p.Findings = append(p.Findings, f)
	}
}

// finding offers a finding of rule about the plan, at pointer, to c and
// returns it when c lists it. Only one c lists is located in the plan: a
// plan wrong in every step costs a count a step.
func (p *Plan) finding(c *report.Cap, rule, pointer, msg, hint string) (report.Finding, bool) {
	r := RuleByID(rule)
	f := report.Finding{Rule: rule, Section: r.Section, Severity: r.Severity, File: p.File}
	if !c.Admit(f) {
		return f, false
	}
	pos, _ := p.doc.Locate(pointer, false)
	f.Message, f.Hint, f.Line, f.Column, f.Pointer = msg, hint, pos.Line, pos.Column, pointer
	return f, true
}

func (b *planBuilder) add(ptr string, n jsonpos.Node) {
	if !n.Is(jsonpos.Object) {
		b.report(ptr, "plan step is not an object", "")
		return
	}
	id := n.Get("id")
	if !id.Is(jsonpos.String) || id.Str() == "" {
		b.report(ptr, "plan step has no id", "every plan step has a program step identifier (§5.6)")
		return
	}
	if !pilotage.ValidStepID(id.Str()) {
		b.report(ptr+"/id", fmt.Sprintf("plan step id %q contains # or /, which trace identity reserves", report.Clip(id.Str())), "§3.4")
	}
	if prev := b.p.byID[id.Str()]; prev != nil {
		b.report(ptr+"/id", fmt.Sprintf("plan step id %q is used twice (first at %s)", report.Clip(id.Str()), prev.Pointer), "plan step ids are unique")
		return
	}
	pos := b.doc.Position(n.Start())
	s := &Step{ID: id.Str(), Kind: n.Get("kind").String(), Pointer: ptr, Line: pos.Line, Col: pos.Column}
	if !slices.Contains(pilotage.StepKinds, s.Kind) {
		b.report(ptr+"/kind", fmt.Sprintf("plan step %q has kind %q; kind is step, branch or loop", report.Clip(s.ID), report.Clip(s.Kind)), "")
		s.Kind = pilotage.KindStep
	}
	s.Calls = b.strings(ptr+"/calls", n.Get("calls"))
	b.p.stepRisk(s, n)
	if len(s.Calls) > 0 && s.Kind != pilotage.KindStep {
		b.report(ptr+"/calls", fmt.Sprintf("%s step %q carries calls; control-flow steps do not", report.Clip(s.Kind), report.Clip(s.ID)), "")
	}
	s.Arms = b.strings(ptr+"/arms", n.Get("arms"))
	if s.Kind == pilotage.KindBranch && !n.Has("arms") {
		b.report(ptr, fmt.Sprintf("branch step %q lists no arms", report.Clip(s.ID)),
			"list every arm label on the branch, so a decision for an empty arm can be checked (reading 3)")
	}
	ref := planRef{node: n}
	if arm := n.Get("arm"); arm.Is(jsonpos.Object) {
		ref.branch, ref.label = arm.Get("branch").String(), arm.Get("label").String()
	}
	ref.loop = n.Get("loop").String()
	if b.refs == nil {
		b.refs = map[*Step]planRef{}
	}
	b.refs[s] = ref
	b.p.byID[s.ID] = s
	b.p.Steps = append(b.p.Steps, s)
}

// strings reads an optional array of strings (calls, arms).
func (b *planBuilder) strings(ptr string, n jsonpos.Node) []string {
	if !n.Exists() {
		return nil
	}
	if !n.Is(jsonpos.Array) {
		b.report(ptr, "not an array of strings", "")
		return nil
	}
	var out []string
	for i, e := range n.Elems() {
		if !e.Is(jsonpos.String) {
			b.report(ptr+"/"+strconv.Itoa(i), "not a string", "")
			continue
		}
		out = append(out, e.Str())
	}
	return out
}

// link resolves arm and loop references into the construct tree.
func (b *planBuilder) link() error {
	for _, s := range b.p.Steps {
		ref := b.refs[s]
		switch {
		case ref.branch != "":
			br := b.p.byID[ref.branch]
			if br == nil || br.Kind != pilotage.KindBranch {
				b.report(s.Pointer+"/arm/branch", fmt.Sprintf("step %q is in an arm of %q, which is not a branch step of the plan", report.Clip(s.ID), report.Clip(ref.branch)), "")
				continue
			}
			if len(br.Arms) > 0 && !slices.Contains(br.Arms, ref.label) {
				b.report(s.Pointer+"/arm/label", fmt.Sprintf("step %q is in arm %q, which branch %q does not list in arms %v", report.Clip(s.ID), report.Clip(ref.label), report.Clip(br.ID), report.Clips(br.Arms)), "")
			}
			s.Parent, s.Label = br, ref.label
		case ref.loop != "":
			lp := b.p.byID[ref.loop]
			if lp == nil || lp.Kind != pilotage.KindLoop {
				b.report(s.Pointer+"/loop", fmt.Sprintf("step %q is in the body of %q, which is not a loop step of the plan", report.Clip(s.ID), report.Clip(ref.loop)), "")
				continue
			}
			s.Parent = lp
		}
	}
	// A reference cycle would make every step in it its own ancestor, and
	// nesting beyond MaxPlanDepth is refused before chains are built.
	for _, s := range b.p.Steps {
		seen := map[*Step]bool{s: true}
		for a := s.Parent; a != nil; a = a.Parent {
			if seen[a] {
				b.report(s.Pointer, fmt.Sprintf("step %q has arm/loop references that lead into a cycle", report.Clip(s.ID)), "")
				s.Parent, s.Label = nil, ""
				break
			}
			if seen[a] = true; len(seen) > MaxPlanDepth+1 {
				pos, _ := b.doc.Locate(s.Pointer, false)
				return &InputError{File: b.p.File, Line: pos.Line, Col: pos.Column,
					Msg:  fmt.Sprintf("step %q is nested more than %d constructs deep, deeper than replay reads", report.Clip(s.ID), MaxPlanDepth),
					Hint: "no engine bounded as §10.1 requires runs programs nested this deep"}
			}
		}
	}
	for _, s := range b.p.Steps {
		for a := s.Parent; a != nil; a = a.Parent {
			s.Chain = append(s.Chain, a)
			if a.Kind == pilotage.KindLoop {
				s.Loops++
			}
		}
		slices.Reverse(s.Chain)
		if s.Parent == nil {
			s.Ord = len(b.p.root)
			b.p.root = append(b.p.root, s)
			continue
		}
		if s.Parent.children == nil {
			s.Parent.children = map[string][]*Step{}
		}
		s.Ord = len(s.Parent.children[s.Label])
		s.Parent.children[s.Label] = append(s.Parent.children[s.Label], s)
	}
	for _, s := range b.p.Steps {
		if s.Kind == pilotage.KindBranch && len(s.Arms) == 0 {
			// Without arms the labels the plan's arm steps use are all
			// that is known (reading 3 asks for arms; plan-shape said so).
			for l := range s.children {
				s.Arms = append(s.Arms, l)
			}
			slices.Sort(s.Arms)
		}
	}
	return nil
}
