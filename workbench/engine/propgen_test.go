package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	pilotage "github.com/pilotage-dev/pilotage"
)

// The generator of the property test (property_test.go): random programs
// of the homeServer catalog, built so that validate should accept them
// (every name resolves, every expression type-checks, every reference is
// in scope by the step model's scope rules), then, for a share of them,
// broken in one known way or nested past the depth bound. The generator
// never runs anything; what a program does at run time (which arm, how
// many iterations, whether lights.set meets the cellar) depends on the
// random input it is paired with.

// expectation is what validate must say about a generated program.
type expectation int

const (
	expectValid   expectation = iota
	expectInvalid             // diagnostics, one of them with wantCode
	expectTooDeep             // a resource_limit request error (§10.1)
	expectTooMany             // more steps than limits steps: resource_limit too
)

// genCase is one generated program with its input.
type genCase struct {
	seed     uint64
	lang     string
	program  json.RawMessage
	input    json.RawMessage
	expect   expectation
	wantCode string // for expectInvalid: a code the diagnostics must hold
	mistake  string // for expectInvalid: what the mutation broke
	// hints are the risk hints of every call step, anywhere in the
	// program, for max_risk_hints (§5.3).
	hints []pilotage.RiskHints
	// deploy: the program is also installed and run by its program_ref;
	// store: its full Run is kept (retention P7D) and fetched back.
	deploy, store bool
}

// itemKind is the type of a loop variable: what its list holds.
type itemKind int

const (
	itemRoom itemKind = iota // a string naming a room
	itemFlag                 // a bool
	itemNum                  // an int
	itemRow                  // a list of rooms
	itemAny                  // an element of a loop's output: untyped, left unused
)

// outKind is what a step's output is, for the expressions that read it.
type outKind int

const (
	outReading outKind = iota // sensors.read: {temp: int, humidity: number}
	outOK                     // fan.set, lights.set: {"ok": true}
	outCount                  // prog.nightly@1: an int
	outSky                    // weather.fetch: {"sky": "clear"}
	outOpened                 // lock.open: "opened"
	outList                   // a loop: one element per iteration
	outArm                    // a branch: the last output of the arm taken
)

// frame is one step sequence being generated: what it can address.
type frame struct {
	parent   *frame
	item     string // the loop variable of a loop body, else ""
	itemKind itemKind
	outputs  []output // steps of this sequence generated so far
}

type output struct {
	id   string
	kind outKind
}

// gstep is a generated step; MarshalJSON writes it in home/v1's grammar.
type gstep struct {
	id      string
	call    string
	with    map[string]string // nil: no "with" member
	cond    string
	arms    [2]*[]*gstep // then, else; nil: the member is left out
	list    string
	item    string
	body    *[]*gstep // nil: no "do" member
	kind    string    // pilotage.KindStep, KindBranch, KindLoop
	replace map[string]any
}

func (s *gstep) MarshalJSON() ([]byte, error) {
	m := map[string]any{"id": s.id}
	switch s.kind {
	case pilotage.KindStep:
		m["call"] = s.call
		if s.with != nil {
			m["with"] = s.with
		}
	case pilotage.KindBranch:
		m["if"] = s.cond
		for i, label := range []string{"then", "else"} {
			if s.arms[i] != nil {
				m[label] = *s.arms[i]
			}
		}
	case pilotage.KindLoop:
		m["for_each"], m["as"] = s.list, s.item
		if s.body != nil {
			m["do"] = *s.body
		}
	}
	// A mutation replaces members with what the grammar does not allow.
	for k, v := range s.replace {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// genLimits is what the generator must know of a Language's bounds.
type genLimits struct {
	depth      int // constructs nested deeper than this are refused
	iterations int // longer lists make a loop hit its bound
}

type gen struct {
	r     *rand.Rand
	lim   genLimits
	n     int // steps so far, for fresh ids
	vars  int // loop variables so far
	steps []*gstep
	seqs  []*[]*gstep // every sequence, for mutations that insert a step
	hints []pilotage.RiskHints
	// budget bounds the program's size, so a Run stays fast.
	budget int
}

var roomNames = []string{"attic", "cellar", "hall", "kitchen"}

// generate builds the case of seed: the Language is home/v1 or, for a
// third of the seeds, tight/v1, whose small bounds small inputs reach.
func generate(seed uint64) *genCase {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &genCase{seed: seed, lang: "home/v1"}
	g := &gen{r: r, lim: genLimits{depth: homeLimits.Depth, iterations: homeLimits.Iterations}, budget: 8 + r.IntN(30)}
	if r.IntN(3) == 0 {
		c.lang = "tight/v1"
		g.lim = genLimits{depth: tightLimits.Depth, iterations: tightLimits.Iterations}
	}
	prog := struct {
		Steps  []*gstep `json:"steps"`
		Output string   `json:"output,omitempty"`
	}{}
	root := &frame{}
	prog.Steps = g.seq(root, 1, 1+r.IntN(5))
	g.seqs = append(g.seqs, &prog.Steps)
	if r.IntN(2) == 0 {
		prog.Output = g.anyExpr(root)
	}
	switch k := r.IntN(10); {
	case k < 2:
		c.expect = expectInvalid
		c.mistake, c.wantCode = g.mutate()
	case k < 3:
		c.expect = expectTooDeep
		prog.Steps = g.nest(prog.Steps, g.lim.depth)
	}
	c.hints = g.hints
	c.input = g.input()
	// Drawn last, so the draws above, and the corpus seeds' cases, stay.
	// Both write to the run store's file, whose fsync costs more than
	// the rest of a case, hence one case in eight.
	c.deploy = c.expect == expectValid && r.IntN(8) == 0
	c.store = r.IntN(8) == 0
	if c.lang == "home/v1" && c.expect == expectValid {
		g.rebound(c, &prog.Steps)
	}
	// Decided after every draw, so the draws, and the corpus seeds'
	// cases, stay: a program of more steps than tight/v1 runs is refused
	// by validate (§10.1), whatever else it holds.
	if c.lang == "tight/v1" && c.expect != expectTooDeep && countSteps(prog.Steps) > tightLimits.Steps {
		c.expect, c.deploy = expectTooMany, false
	}
	c.program = mustJSON(prog)
	return c
}

// rebound moves some of home/v1's valid programs, unchanged, to mem/v1,
// where holding their outputs reaches the memory bound (§10.1); and a
// very few to timed/v1, behind a first call of slow.op that outlasts its
// time bound. A timed case costs its time bound at each of its five
// Runs, so there are two or three of them in the default seeds, and
// none is deployed, which would add a sixth. slow.op comes first so
// that the bound always stops the Run in that call, whatever the load
// on the machine: the determinism the test asserts holds.
func (g *gen) rebound(c *genCase, steps *[]*gstep) {
	switch k := g.r.IntN(400); {
	case k < 5:
		c.lang, c.deploy = "timed/v1", false
		*steps = append([]*gstep{{id: "slow", kind: pilotage.KindStep, call: "slow.op"}}, *steps...)
		c.hints = append(c.hints, hintsOf("safe"))
	case k < 100:
		c.lang = "mem/v1"
	}
}

func (g *gen) fresh() string {
	g.n++
	// Most ids can be read in CEL (steps.<id>.output); a few use
	// characters §3.4 allows but CEL cannot address, for the trace ids.
	if g.r.IntN(12) == 0 {
		return fmt.Sprintf("ö-%d", g.n)
	}
	return fmt.Sprintf("s%d", g.n)
}

func addressable(id string) bool { return id[0] == 's' }

// seq generates a sequence of up to n steps at nesting depth (the
// top-level sequence is depth 1).
func (g *gen) seq(f *frame, depth, n int) []*gstep {
	out := []*gstep{} // an empty sequence is [], never null
	for range n {
		s := g.step(f, depth)
		out = append(out, s)
		g.steps = append(g.steps, s)
	}
	return out
}

func (g *gen) step(f *frame, depth int) *gstep {
	s := &gstep{id: g.fresh(), kind: pilotage.KindStep}
	k := g.r.IntN(20)
	if g.n > g.budget || depth >= g.lim.depth || depth > 3 {
		k = 0 // only calls
	}
	switch {
	case k >= 16:
		s.kind = pilotage.KindBranch
		s.cond = g.boolExpr(f, 0)
		for i := range s.arms {
			if i == 1 && g.r.IntN(5) == 0 {
				continue // no else member
			}
			arm := g.seq(&frame{parent: f}, depth+1, g.r.IntN(4))
			s.arms[i] = &arm
			g.seqs = append(g.seqs, s.arms[i])
		}
		g.addOutput(f, s.id, outArm)
	case k >= 11:
		s.kind = pilotage.KindLoop
		var kind itemKind
		s.list, kind = g.listExpr(f)
		g.vars++
		s.item = fmt.Sprintf("v%d", g.vars)
		if g.r.IntN(10) > 0 {
			body := g.seq(&frame{parent: f, item: s.item, itemKind: kind}, depth+1, g.r.IntN(4))
			s.body = &body
			g.seqs = append(g.seqs, s.body)
		}
		g.addOutput(f, s.id, outList)
	default:
		g.call(f, s)
	}
	return s
}

func (g *gen) addOutput(f *frame, id string, k outKind) {
	if addressable(id) {
		f.outputs = append(f.outputs, output{id, k})
	}
}

// call makes s a call of one of the catalog's callable entries, with
// arguments its input_schema accepts.
func (g *gen) call(f *frame, s *gstep) {
	type target struct {
		id   string
		risk string
		out  outKind
		args func() map[string]string
	}
	targets := []target{
		{"sensors.read", "safe", outReading, func() map[string]string { return map[string]string{"room": g.roomExpr(f)} }},
		{"fan.set", "write", outOK, func() map[string]string { return map[string]string{"on": g.boolExpr(f, 0)} }},
		{"lights.set", "write", outOK, func() map[string]string {
			return map[string]string{"room": g.roomExpr(f), "on": g.boolExpr(f, 0)}
		}},
		{"lock.open", "dangerous", outOpened, func() map[string]string { return map[string]string{} }},
		{"weather.fetch", "external", outSky, func() map[string]string { return nil }},
		{"prog.nightly@1", "write", outCount, func() map[string]string { return map[string]string{"rooms": g.roomListExpr(f)} }},
	}
	t := targets[g.r.IntN(len(targets))]
	s.call, s.with = t.id, t.args()
	g.hints = append(g.hints, hintsOf(t.risk))
	g.addOutput(f, s.id, t.out)
}

// visible walks the frames from f outwards: what an expression in f can
// address (§ scope rules in semantics.go).
func visible(f *frame, fn func(*frame)) {
	for ; f != nil; f = f.parent {
		fn(f)
	}
}

// pick returns one of the candidates at random.
func (g *gen) pick(cands []string) string { return cands[g.r.IntN(len(cands))] }

func (g *gen) roomExpr(f *frame) string {
	cands := []string{`"hall"`, `"cellar"`, `"attic"`, "input.room"}
	visible(f, func(f *frame) {
		if f.item != "" && f.itemKind == itemRoom {
			cands = append(cands, f.item, f.item)
		}
		for _, o := range f.outputs {
			if o.kind == outSky {
				cands = append(cands, "steps."+o.id+".output.sky")
			}
		}
	})
	if g.r.IntN(25) == 0 {
		// Fails at run time when input.rooms is empty.
		return "input.rooms[0]"
	}
	return g.pick(cands)
}

func (g *gen) roomListExpr(f *frame) string {
	cands := []string{"input.rooms", `["hall", "cellar"]`, "[]"}
	visible(f, func(f *frame) {
		if f.item != "" && f.itemKind == itemRow {
			cands = append(cands, f.item, f.item)
		}
	})
	return g.pick(cands)
}

func (g *gen) boolExpr(f *frame, depth int) string {
	k := g.r.IntN(4)
	cands := []string{"true", "false",
		fmt.Sprintf("input.n > %d", k), fmt.Sprintf("size(input.rooms) > %d", k),
		fmt.Sprintf(`%s == "attic"`, g.roomExpr(f))}
	visible(f, func(f *frame) {
		switch {
		case f.item == "":
		case f.itemKind == itemFlag:
			cands = append(cands, f.item, f.item)
		case f.itemKind == itemNum:
			cands = append(cands, fmt.Sprintf("%s > %d", f.item, k))
		case f.itemKind == itemRow:
			cands = append(cands, fmt.Sprintf("size(%s) > %d", f.item, k))
		}
		for _, o := range f.outputs {
			ref := "steps." + o.id + ".output"
			switch o.kind {
			case outReading:
				cands = append(cands, ref+".temp > 25", ref+".humidity > 0.4")
			case outOK:
				cands = append(cands, ref+".ok")
			case outCount:
				cands = append(cands, fmt.Sprintf("%s > %d", ref, k))
			case outSky:
				cands = append(cands, ref+`.sky == "clear"`)
			case outOpened:
				cands = append(cands, ref+` == "opened"`)
			case outList:
				cands = append(cands, fmt.Sprintf("size(%s) > %d", ref, k))
			case outArm:
				cands = append(cands, ref+" == null")
			}
		}
	})
	switch n := g.r.IntN(30); {
	case n == 0:
		// Fails at run time when input.xs has fewer than k+1 elements.
		return fmt.Sprintf("input.xs[%d] > 1", k)
	case n < 4 && depth < 2:
		return fmt.Sprintf("!(%s)", g.boolExpr(f, depth+1))
	case n < 7 && depth < 2:
		return fmt.Sprintf("(%s) && (%s)", g.boolExpr(f, depth+1), g.boolExpr(f, depth+1))
	}
	return g.pick(cands)
}

// listExpr returns a list to loop over and what its elements are.
func (g *gen) listExpr(f *frame) (string, itemKind) {
	type cand struct {
		expr string
		kind itemKind
	}
	cands := []cand{{"input.rooms", itemRoom}, {"input.flags", itemFlag}, {"input.xs", itemNum},
		{"input.grid", itemRow}, {"input.big", itemNum}, {"input.big", itemNum}, {`["hall", "cellar"]`, itemRoom}, {"[]", itemRoom}}
	visible(f, func(f *frame) {
		if f.item != "" && f.itemKind == itemRow {
			cands = append(cands, cand{f.item, itemRoom}, cand{f.item, itemRoom})
		}
		for _, o := range f.outputs {
			if o.kind == outList {
				cands = append(cands, cand{"steps." + o.id + ".output", itemAny})
			}
		}
	})
	c := cands[g.r.IntN(len(cands))]
	return c.expr, c.kind
}

// anyExpr is a program output expression.
func (g *gen) anyExpr(f *frame) string {
	var cands []string
	for _, o := range f.outputs {
		cands = append(cands, "steps."+o.id+".output")
	}
	if len(cands) == 0 || g.r.IntN(3) == 0 {
		return g.boolExpr(f, 0)
	}
	return g.pick(cands)
}

// input is a random input: lists of every length from 0, rooms that
// include the cellar lights.set fails on, and a list long enough to pass
// the Language's iteration bound now and then.
func (g *gen) input() json.RawMessage {
	rooms := func() []string {
		out := []string{}
		for range g.r.IntN(5) {
			out = append(out, g.pick(roomNames))
		}
		return out
	}
	in := map[string]any{"room": g.pick(roomNames), "n": g.r.IntN(6), "rooms": rooms()}
	grid := [][]string{}
	for range g.r.IntN(4) {
		grid = append(grid, rooms())
	}
	flags, xs := []bool{}, []int{}
	for range g.r.IntN(4) {
		flags = append(flags, g.r.IntN(2) == 0)
	}
	for range g.r.IntN(5) {
		xs = append(xs, g.r.IntN(5))
	}
	big := []int{}
	var n int
	switch g.r.IntN(4) {
	case 0:
		n = g.lim.iterations - 1 + g.r.IntN(3) // just below, at, just above the bound
	case 1:
		n = 40 + g.r.IntN(40) // long loop outputs, which summary truncates
	default:
		n = g.r.IntN(4)
	}
	for i := range n {
		big = append(big, i)
	}
	in["grid"], in["flags"], in["xs"], in["big"] = grid, flags, xs, big
	return mustJSON(in)
}

// mutate breaks the program in one way and returns what it broke and
// the diagnostic code validate must report for it (home/v1's closed set
// lists scope, type and arguments, which these mistakes need; other engine codes fall back
// to constraint, §5.5).
func (g *gen) mutate() (string, string) {
	seq := g.seqs[g.r.IntN(len(g.seqs))]
	at := g.r.IntN(len(*seq) + 1)
	insert := func(steps ...*gstep) {
		rest := append(steps, (*seq)[at:]...)
		*seq = append((*seq)[:at:at], rest...)
	}
	call := func(target string, with map[string]string) *gstep {
		return &gstep{id: fmt.Sprintf("bad%d", g.n), kind: pilotage.KindStep, call: target, with: with}
	}
	switch g.r.IntN(10) {
	case 0:
		insert(call("sensors.raed", map[string]string{"room": `"hall"`}))
		return "a call of an unknown name", pilotage.CodeUnknownName
	case 1:
		insert(call("rooms", nil))
		return "a call of a non-callable kind", pilotage.CodeConstraint
	case 2:
		insert(call("fan.set", map[string]string{"on": `"yes"`}))
		return "a string argument where the schema says boolean", "type"
	case 3:
		insert(call("lights.set", map[string]string{"on": "true"}))
		return "a missing required argument", "arguments"
	case 4:
		insert(call("fan.set", map[string]string{"on": "steps.ghost.output.ok"}))
		return "a reference to a step that does not exist", "scope"
	case 5:
		read := call("sensors.read", map[string]string{"room": `"hall"`})
		read.id = "badread"
		insert(read, call("fan.set", map[string]string{"on": `steps.badread.output.temp == "hot"`}))
		return "an int output field compared with a string", "type"
	case 6:
		dup := call("weather.fetch", nil)
		dup.id = g.steps[g.r.IntN(len(g.steps))].id
		insert(dup)
		return "a duplicate step id", pilotage.CodeConstraint
	case 7:
		insert(&gstep{id: "a#1", kind: pilotage.KindStep, call: "weather.fetch"})
		return "a step id with a reserved character (§3.4)", pilotage.CodeConstraint
	case 8:
		insert(&gstep{id: "badwith", kind: pilotage.KindStep, call: "fan.set", replace: map[string]any{"with": 3}})
		return "arguments that are not an object", pilotage.CodeSyntax
	default:
		insert(&gstep{id: "badif", kind: pilotage.KindBranch, cond: "input.n >"})
		return "an expression CEL cannot parse", pilotage.CodeSyntax
	}
}

// countSteps is how many steps steps holds, nested ones counted.
func countSteps(steps []*gstep) int {
	n := len(steps)
	for _, s := range steps {
		for _, arm := range s.arms {
			if arm != nil {
				n += countSteps(*arm)
			}
		}
		if s.body != nil {
			n += countSteps(*s.body)
		}
	}
	return n
}

// nest wraps steps in branches until the program is deeper than depth.
func (g *gen) nest(steps []*gstep, depth int) []*gstep {
	for i := range depth {
		arm := steps
		steps = []*gstep{{id: fmt.Sprintf("deep%d", i), kind: pilotage.KindBranch, cond: "true", arms: [2]*[]*gstep{&arm, nil}}}
	}
	return steps
}
