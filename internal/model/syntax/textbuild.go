package syntax

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// span is the bytes [start, end) of the text (a program is at most a
// few megabytes: the Language's program size limit).
type span struct{ start, end int32 }

func between(start, end int) span { return span{int32(start), int32(end)} }

// stepsPrefix is what a label's `LABEL.output` stands for.
const stepsPrefix = "steps."

// builder turns the statements into the step model as the reader hands
// them over, one top-level statement at a time: the steps the JSON form
// of the same program has, with the ids the labels give or the scheme
// generates, and the JSON Pointers that form's values have. What depends
// on every label (generated ids, `LABEL.output` in expressions, a loop
// variable named as a label) waits for the end of the text. Where each
// value is in the text is not kept: a statement's offset is, and a
// diagnostic is placed by reading its statement again (locate).
type builder struct {
	t    *textSyntax
	text string
	doc  *jsonpos.Doc
	prog *program.Program
	// limit is set at the first statement past the Language's steps
	// limit: no more steps are built, and the read stops.
	limit *program.LimitError

	// diags are the diagnostics of the steps as they are built; the
	// labels' come first, then the one on a statement after the output.
	diags, labelDiags []pilotage.Diagnostic
	follows           *pilotage.Diagnostic
	labels            map[string]bool
	counts            map[string]int
	ptrs              program.Pointers
	slab              program.Slab

	output   bool  // the top-level output statement has been read
	outputAt int32 // its offset
	// starts are the steps' statements' offsets, in program order.
	starts []int32

	// Waiting for every label: the unlabeled steps, a bit per step in
	// program order (their ID is the base of the id to generate), the
	// expressions that may read a label, and the loop variables, with
	// where their diagnostic goes in diags.
	unlabeled []uint64
	pending   []pendingExpr
	loopVars  []loopVar

	// index is a step's place in starts, made by the first locate that
	// needs it (Parsed may be used by several goroutines).
	index     map[*program.Step]int
	indexOnce sync.Once
}

type pendingExpr struct {
	e  *program.Expr
	sp span
}

type loopVar struct {
	item *tName
	at   int
}

func newBuilder(t *textSyntax, text string, doc *jsonpos.Doc) *builder {
	return &builder{t: t, text: text, doc: doc, prog: &program.Program{},
		labels: map[string]bool{}, counts: map[string]int{}}
}

func (b *builder) diag(sp span, hint, format string, args ...any) pilotage.Diagnostic {
	return *syntaxAt(b.doc, int(sp.start), int(sp.end), fmt.Sprintf(format, args...), hint)
}

func (b *builder) errorf(sp span, hint, format string, args ...any) {
	b.diags = append(b.diags, b.diag(sp, hint, format, args...))
}

// reserved are the names every expression has, which no label may take.
var reserved = []string{"input", "context", "steps"}

// top builds a top-level statement: a step, or the program's output;
// nothing after the output is built, and the first statement there is
// a diagnostic. It returns the limit error of a statement past the
// steps limit, which ends the read.
func (b *builder) top(it *tItem) *program.LimitError {
	b.add(it)
	return b.limit
}

func (b *builder) add(it *tItem) {
	b.collectLabels(it)
	switch {
	case b.output:
		if b.follows == nil {
			d := b.diag(it.whole, "move the "+b.t.ts.Output+" statement to the end", "nothing may follow the program's %s statement", b.t.ts.Output)
			if it.Output != nil {
				// A second output: one of the two goes, not where.
				at := b.doc.Position(int(b.outputAt))
				d = b.diag(it.whole, fmt.Sprintf("remove one of the two: a program gives its output once, in its last statement (the first is at line %d, column %d)", at.Line, at.Column),
					"the program has a second %s statement", b.t.ts.Output)
			}
			b.follows = &d
		}
		return
	case it.Output != nil:
		b.output, b.outputAt = true, it.whole.start
		b.prog.Output = b.expr(&program.Expr{}, it.Output.sp, "/output")
		return
	case b.limit != nil:
		return
	}
	b.prog.Steps = append(b.prog.Steps, b.step(it, b.ptrs.Join("/steps", strconv.Itoa(len(b.prog.Steps))), len(b.prog.Steps), nil, 0))
}

// finish completes the program once every statement is read.
func (b *builder) finish() {
	for _, p := range b.pending {
		p.e.Src, _ = b.render(p.sp)
	}
	i := 0
	program.Walk(b.prog.Steps, func(s *program.Step) {
		if b.unlabeled[i/64]&(1<<(i%64)) != 0 {
			s.ID = b.generate(s.ID)
		}
		i++
	})
	added := 0
	for _, lv := range b.loopVars {
		if b.labels[lv.item.Name] {
			d := b.diag(lv.item.sp, "give the loop variable a name no statement has as its label", "%q is a label, so it cannot also name the loop variable", report.Clip(lv.item.Name))
			b.diags = slices.Insert(b.diags, lv.at+added, d)
			added++
		}
	}
	all := b.labelDiags
	if b.follows != nil {
		all = append(all, *b.follows)
	}
	b.diags = append(all, b.diags...)
	b.pending, b.loopVars, b.unlabeled = nil, nil, nil
}

// collectLabels records the labels of a statement and those inside it.
func (b *builder) collectLabels(it *tItem) {
	if it.Label != nil {
		name := it.Label.Name
		for _, r := range reserved {
			if name == r {
				b.labelDiags = append(b.labelDiags, b.diag(it.Label.sp, "choose another label", "%q cannot label a statement: it is a name every expression has", report.Clip(name)))
			}
		}
		b.labels[name] = true
	}
	switch {
	case it.If != nil:
		b.collectIf(it.If)
	case it.For != nil:
		b.collectBlock(it.For.Body)
	}
}

func (b *builder) collectIf(n *tIf) {
	b.collectBlock(n.Then)
	if n.ElseIf != nil {
		b.collectIf(n.ElseIf)
	} else if n.Else != nil {
		b.collectBlock(n.Else)
	}
}

func (b *builder) collectBlock(bl *tBlock) {
	for _, it := range bl.Items {
		b.collectLabels(it)
	}
}

// generate is the id of an unlabeled statement: its base (the entry id,
// program reference or keyword, with every character CEL does not allow
// in a name as '_') and its occurrence among the unlabeled statements
// of that base, in program order, skipping numbers a label has taken.
func (b *builder) generate(base string) string {
	base = identifier(base)
	n := b.counts[base]
	for {
		n++
		if id := base + "_" + strconv.Itoa(n); !b.labels[id] {
			b.counts[base] = n
			return b.ptrs.Write(id)
		}
	}
}

// identifier replaces what a CEL name cannot hold, so a generated id is
// addressable and never holds '#' or '/' (§3.4).
func identifier(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !isNameChar(c) {
			out[i] = '_'
		}
	}
	if len(out) == 0 || isDigit(out[0]) {
		out = append([]byte{'_'}, out...)
	}
	return string(out)
}

func (b *builder) sequence(items []*tItem, ptr string, enclosing *program.Step, arm int) []*program.Step {
	if len(items) == 0 {
		return nil
	}
	out := make([]*program.Step, 0, len(items))
	for i, it := range items {
		items[i] = nil // built: a block's statements go as its steps come
		if b.limit != nil {
			return nil
		}
		if it.Output != nil {
			b.errorf(it.whole, "write it once, as the program's last top-level statement", "%s belongs to the whole program, not to a block", b.t.ts.Output)
			continue
		}
		sp := b.ptrs.Join(ptr, strconv.Itoa(len(out)))
		out = append(out, b.step(it, sp, len(out), enclosing, arm))
	}
	return out
}

// tooManySteps is the limit error at the statement at sp, the first
// past the Language's steps limit, that validate and fmt give: a bound
// of §10.1 exceeded during validation, a resource_limit request error,
// as the JSON form's steps past it are (program.TooManySteps).
func (t *textSyntax) tooManySteps(doc *jsonpos.Doc, sp span) *program.LimitError {
	at := doc.Position(int(sp.start))
	return &program.LimitError{Msg: program.TooManySteps(t.steps, "statements", fmt.Sprintf("line %d, column %d", at.Line, at.Column)),
		At: pilotage.LineCol{Line: at.Line, Column: at.Column}}
}

// newStep is a step of the statement at offset start; a step without a
// label waits for its id, base, until every label is known. A statement
// past the Language's steps limit is the limit error, and no more steps
// are built: the step model of each statement, about 300 bytes, is what
// a program of tiny statements (`f()`, 4 bytes) holds.
func (b *builder) newStep(index int, enclosing *program.Step, arm int, whole span, label *tName, base string) *program.Step {
	if len(b.starts) == b.t.steps && b.limit == nil {
		b.limit = b.t.tooManySteps(b.doc, whole)
	}
	start := whole.start
	s := program.NewStep(index, enclosing, arm)
	i := len(b.starts)
	b.starts = append(b.starts, start)
	if i%64 == 0 {
		b.unlabeled = append(b.unlabeled, 0)
	}
	if label != nil {
		s.ID = label.Name
	} else {
		s.ID = base
		b.unlabeled[i/64] |= 1 << (i % 64)
	}
	return s
}

// step is the step of statement it, element index of the sequence at
// ptr.
func (b *builder) step(it *tItem, ptr string, index int, enclosing *program.Step, arm int) *program.Step {
	g, ts := b.t.g, b.t.ts
	s := b.newStep(index, enclosing, arm, it.whole, it.Label, base(it, ts))
	var missing string
	switch {
	case it.Call != nil:
		s.Kind = program.Call
		if g.Call == "" {
			missing = "calls"
		}
		b.call(s, ptr, it.Call, g.Args)
	case it.Run != nil:
		s.Kind = program.Run
		if g.Run == "" {
			missing = "promoted-program runs (" + ts.Run + ")"
		}
		b.call(s, ptr, it.Run, g.RunArgs)
	case it.If != nil:
		if g.Branch == "" {
			missing = "branches (" + ts.If + ")"
		}
		b.branch(s, ptr, it.If)
	case it.For != nil:
		if g.Loop == "" {
			missing = "loops (" + ts.For + ")"
		}
		b.loop(s, ptr, it.For)
	}
	if missing != "" {
		b.errorf(it.whole, "", "this Language has no %s", missing)
	}
	return s
}

// base is what an unlabeled statement's generated id is made from.
func base(it *tItem, ts *language.TextSyntax) string {
	switch {
	case it.Call != nil:
		return it.Call.Target.Name
	case it.Run != nil:
		ref, _, _ := strings.Cut(it.Run.Target.Name, "@")
		return ref
	case it.If != nil:
		return ts.If
	}
	return ts.For
}

func (b *builder) call(s *program.Step, ptr string, c *tCall, args string) {
	s.Target = c.Target.Name
	s.HasArgs = true
	list := c.Args.List
	count := b.repeated(list)
	out, exprs := b.slab.Args(len(list)-count.repeats), b.slab.Exprs(len(list)-count.repeats)
	var seen map[string]int
	for _, a := range list {
		name := b.str(a.Name)
		if count.of != nil && count.of[name] > 1 {
			if seen == nil {
				seen = map[string]int{}
			}
			seen[name]++
			switch n := count.of[name]; {
			case seen[name] == 2 && n == 2:
				b.errorf(a.Name, "remove one of the two", "argument %q appears twice", report.Clip(name))
			case seen[name] == 2:
				b.errorf(a.Name, "keep one of them", "argument %q appears %d times", report.Clip(name), n)
			}
			if seen[name] > 1 {
				continue
			}
		}
		e := &exprs[len(out)]
		b.expr(e, a.Value, b.ptrs.Join(ptr, args, name))
		out = append(out, program.Arg{Name: name, Expr: e})
	}
	s.Args = out
}

// str is the text at sp.
func (b *builder) str(sp span) string { return b.text[sp.start:sp.end] }

// argCount is how often each name is given as an argument of one call
// (of is nil when no name is given twice), and how many arguments
// repeat a name given before them.
type argCount struct {
	of      map[string]int
	repeats int
}

// repeated counts the arguments' names: a name given many times is one
// diagnostic, at its second occurrence, not one per repetition. The
// names are sorted (4 bytes an argument) rather than counted in a map of
// every name, which a call of thousands of arguments would make larger
// than its text.
func (b *builder) repeated(list []tArg) argCount {
	if len(list) <= 16 && !b.repeats(list) {
		return argCount{} // nothing to allocate for a call of a few arguments
	}
	order := make([]int32, len(list))
	for i := range order {
		order[i] = int32(i)
	}
	name := func(i int32) string { return b.str(list[i].Name) }
	slices.SortFunc(order, func(i, j int32) int { return strings.Compare(name(i), name(j)) })
	var c argCount
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && name(order[j]) == name(order[i]) {
			j++
		}
		if j-i > 1 {
			if c.of == nil {
				c.of = map[string]int{}
			}
			c.of[name(order[i])] = j - i
			c.repeats += j - i - 1
		}
		i = j
	}
	return c
}

func (b *builder) repeats(list []tArg) bool {
	for i := range list {
		for j := range i {
			if b.str(list[i].Name) == b.str(list[j].Name) {
				return true
			}
		}
	}
	return false
}

func (b *builder) branch(s *program.Step, ptr string, n *tIf) {
	g := b.t.g
	s.SetKind(program.Branch)
	s.Cond = b.expr(&program.Expr{}, n.Cond.sp, b.ptrs.Join(ptr, g.Branch))
	if len(g.Arms) != 2 {
		return
	}
	s.Arms[0] = b.sequence(n.Then.Items, b.ptrs.Join(ptr, g.Arms[0]), s, 0)
	els := b.ptrs.Join(ptr, g.Arms[1])
	switch {
	case n.ElseIf != nil:
		// else IF … is an else arm holding one unlabeled branch.
		if b.limit != nil {
			return
		}
		inner := b.newStep(0, s, 1, n.ElseIf.whole, nil, b.t.ts.If)
		b.branch(inner, b.ptrs.Join(els, "0"), n.ElseIf)
		s.Arms[1] = []*program.Step{inner}
	case n.Else != nil:
		s.Arms[1] = b.sequence(n.Else.Items, els, s, 1)
	}
}

func (b *builder) loop(s *program.Step, ptr string, n *tFor) {
	g := b.t.g
	s.SetKind(program.Loop)
	s.List = b.expr(&program.Expr{}, n.List.sp, b.ptrs.Join(ptr, g.Loop))
	s.Item = n.Item.Name
	b.loopVars = append(b.loopVars, loopVar{item: n.Item, at: len(b.diags)})
	s.Body = b.sequence(n.Body.Items, b.ptrs.Join(ptr, g.Body), s, 0)
}

// expr makes e the expression at sp; its text as CEL reads it waits for
// every label when it may read one.
func (b *builder) expr(e *program.Expr, sp span, ptr string) *program.Expr {
	e.Pointer = ptr
	if strings.Contains(b.text[sp.start:sp.end], ".output") {
		b.pending = append(b.pending, pendingExpr{e, sp})
	} else {
		e.Src, _ = b.render(sp)
	}
	return e
}

// render is the expression at sp as CEL reads it: comments inside it
// blanked (one space per character, so offsets hold) and each label's
// `LABEL.output` read as `steps.LABEL.output`; ins are where "steps."
// went, code-point offsets into the text as written. An expression
// without either is its text.
func (b *builder) render(sp span) (src string, ins []int) {
	start, end := int(sp.start), int(sp.end)
	text := b.text[start:end]
	if !strings.Contains(text, ".output") && strings.IndexByte(text, '#') < 0 {
		return text, nil
	}
	var out strings.Builder
	at := start // bytes of the text copied so far
	runes := 0  // code points of the text before at
	copyTo := func(off int) {
		out.WriteString(b.text[at:off])
		runes += utf8.RuneCountInString(b.text[at:off])
		at = off
	}
	sc := rescan(b.text, b.t.ts, start)
	for {
		t, err := sc.Next()
		if err != nil || t.EOF() || t.Pos.Offset >= end {
			break
		}
		switch {
		case t.Type == kComment:
			copyTo(t.Pos.Offset)
			n := utf8.RuneCountInString(t.Value)
			out.WriteString(strings.Repeat(" ", n))
			runes += n
			at += len(t.Value)
		case t.Type == kName && b.labelRef(t.Value):
			copyTo(t.Pos.Offset)
			ins = append(ins, runes)
			out.WriteString(stepsPrefix)
		}
	}
	copyTo(end)
	return out.String(), ins
}

// labelRef reports whether a name token reads a labelled step's result:
// LABEL.output, alone or followed by a field.
func (b *builder) labelRef(name string) bool {
	label, rest, ok := strings.Cut(name, ".output")
	return ok && b.labels[label] && (rest == "" || rest[0] == '.')
}
