package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// span is the bytes [start, end) of the text.
type span struct{ start, end int }

// exprSpan is where an expression's text is, and how the text CEL reads
// differs from it: "steps." inserted before each label's ".output"
// (ins, code-point offsets into the text as written).
type exprSpan struct {
	start int
	text  []byte
	ins   []int
}

// stepsPrefix is what a label's `LABEL.output` stands for.
const stepsPrefix = "steps."

// builder turns the parse into the step model: the steps the JSON form
// of the same program has, with the ids the labels give or the scheme
// generates, the JSON Pointers that form's values have, and where each
// of those is in the text.
type builder struct {
	t        *textSyntax
	src      []byte
	doc      *jsonpos.Doc
	spans    map[string]span
	exprs    map[string]*exprSpan
	diags    []pilotage.Diagnostic
	labels   map[string]bool
	counts   map[string]int
	maxDepth int
	limit    *program.LimitError
}

func (b *builder) errorf(sp span, hint, format string, args ...any) {
	b.diags = append(b.diags, *syntaxAt(b.doc, sp.start, sp.end, fmt.Sprintf(format, args...), hint))
}

// extent is the text the tokens cover, without the separators, spaces and
// comments participle includes at their edges.
func extent(toks []lexer.Token) span {
	i, j := 0, len(toks)-1
	for i <= j && elided(toks[i]) {
		i++
	}
	for j >= i && elided(toks[j]) {
		j--
	}
	if i > j {
		if len(toks) == 0 {
			return span{}
		}
		return span{toks[0].Pos.Offset, toks[0].Pos.Offset}
	}
	return span{toks[i].Pos.Offset, toks[j].Pos.Offset + len(toks[j].Value)}
}

func elided(t lexer.Token) bool {
	return t.Type == kSpace || t.Type == kComment || t.Type == kSep || t.EOF()
}

// first is the first token that is not elided, the keyword of a branch
// or loop.
func first(toks []lexer.Token) span {
	for _, t := range toks {
		if !elided(t) {
			return span{t.Pos.Offset, t.Pos.Offset + len(t.Value)}
		}
	}
	return extent(toks)
}

func join(ptr, tok string) string { return ptr + "/" + pilotage.EscapePointerToken(tok) }

// reserved are the names every expression has, which no label may take.
var reserved = []string{"input", "context", "steps"}

func (b *builder) program(ast *tProgram) *program.Program {
	b.labels, b.counts = map[string]bool{}, map[string]int{}
	b.collectLabels(ast.Items)
	prog := &program.Program{}
	items := ast.Items
	for i, it := range items {
		if it.Output == nil {
			continue
		}
		if i != len(items)-1 {
			b.errorf(extent(items[i+1].Tokens), "move the "+b.t.ts.Output+" statement to the end", "nothing may follow the program's %s statement", b.t.ts.Output)
		}
		prog.Output = b.expr(it.Output.Tokens, "/output")
		b.spans["/output"] = extent(it.Tokens)
		items = items[:i]
		break
	}
	prog.Steps = b.sequence(items, "/steps", nil, 0, 1)
	return prog
}

// collectLabels records every label first, so generated ids skip them
// and expressions may name a later step's label (the checker then says
// it is not addressable yet).
func (b *builder) collectLabels(items []*tItem) {
	for _, it := range items {
		if it.Label != nil {
			name := it.Label.Name
			for _, r := range reserved {
				if name == r {
					b.errorf(extent(it.Label.Tokens), "choose another label", "%q cannot label a statement: it is a name every expression has", name)
				}
			}
			b.labels[name] = true
		}
		switch {
		case it.If != nil:
			b.collectIf(it.If)
		case it.For != nil:
			b.collectLabels(it.For.Body.Items)
		}
	}
}

func (b *builder) collectIf(n *tIf) {
	b.collectLabels(n.Then.Items)
	if n.ElseIf != nil {
		b.collectIf(n.ElseIf)
	} else if n.Else != nil {
		b.collectLabels(n.Else.Items)
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
			return id
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

func (b *builder) sequence(items []*tItem, ptr string, enclosing *program.Step, arm, depth int) []*program.Step {
	if len(items) == 0 {
		return nil
	}
	if b.tooDeep(depth, extent(items[0].Tokens)) {
		return nil
	}
	var out []*program.Step
	for _, it := range items {
		if it.Output != nil {
			b.errorf(extent(it.Tokens), "write it once, as the program's last top-level statement", "%s belongs to the whole program, not to a block", b.t.ts.Output)
			continue
		}
		sp := join(ptr, strconv.Itoa(len(out)))
		if s := b.step(it, sp, enclosing, arm, depth); s != nil {
			out = append(out, s)
		}
		if b.limit != nil {
			return nil
		}
	}
	return out
}

// tooDeep reports a sequence at depth past the Language's limit, whose
// first statement is at sp, as the *program.LimitError the JSON form
// gives.
func (b *builder) tooDeep(depth int, sp span) bool {
	if depth <= b.maxDepth {
		return false
	}
	if b.limit == nil {
		at := b.doc.Position(sp.start)
		b.limit = &program.LimitError{Msg: fmt.Sprintf("the program nests constructs deeper than this Language's limit of %d (at line %d, column %d)", b.maxDepth, at.Line, at.Column)}
	}
	return true
}

func (b *builder) step(it *tItem, ptr string, enclosing *program.Step, arm, depth int) *program.Step {
	g, ts := b.t.g, b.t.ts
	s := &program.Step{Pointer: ptr, Enclosing: enclosing, Arm: arm}
	whole := extent(it.Tokens)
	b.spans[ptr] = whole
	// The id first: a statement's id is generated before those of the
	// statements inside it.
	if it.Label != nil {
		s.ID = it.Label.Name
		b.spans[ptr+"/id"] = extent(it.Label.Tokens)
	} else {
		s.ID = b.generate(base(it, ts))
		b.spans[ptr+"/id"] = first(it.Tokens)
	}
	var missing string
	switch {
	case it.Call != nil:
		s.Kind = program.Call
		if g.Call == "" {
			missing = "calls"
		}
		b.call(s, it.Call, g.Call, g.Args)
	case it.Run != nil:
		s.Kind = program.Run
		if g.Run == "" {
			missing = "promoted-program runs (" + ts.Run + ")"
		}
		b.call(s, it.Run, g.Run, g.RunArgs)
	case it.If != nil:
		if g.Branch == "" {
			missing = "branches (" + ts.If + ")"
		}
		b.branch(s, it.If, depth)
	case it.For != nil:
		if g.Loop == "" {
			missing = "loops (" + ts.For + ")"
		}
		b.loop(s, it.For, depth)
	}
	if missing != "" {
		b.errorf(whole, "", "this Language has no %s", missing)
	}
	return s
}

// base is what an unlabeled statement's generated id is made from.
func base(it *tItem, ts *language.TextSyntax) string {
	switch {
	case it.Call != nil:
		return it.Call.Target.Name
	case it.Run != nil:
		return strings.SplitN(it.Run.Target.Name, "@", 2)[0]
	case it.If != nil:
		return ts.If
	}
	return ts.For
}

func (b *builder) call(s *program.Step, c *tCall, member, args string) {
	s.Target = c.Target.Name
	s.TargetPointer = join(s.Pointer, member)
	b.spans[s.TargetPointer] = extent(c.Target.Tokens)
	s.ArgsPointer = join(s.Pointer, args)
	b.spans[s.ArgsPointer] = extent(c.Args.Tokens)
	seen := map[string]bool{}
	for _, a := range c.Args.List {
		ap := join(s.ArgsPointer, a.Name.Name)
		if seen[a.Name.Name] {
			b.errorf(extent(a.Name.Tokens), "remove one of the two", "argument %q appears twice", a.Name.Name)
			continue
		}
		seen[a.Name.Name] = true
		s.Args = append(s.Args, program.Arg{Name: a.Name.Name, Expr: b.expr(a.Value.Tokens, ap)})
	}
}

func (b *builder) branch(s *program.Step, n *tIf, depth int) {
	g := b.t.g
	s.Kind = program.Branch
	s.Cond = b.expr(n.Cond.Tokens, join(s.Pointer, g.Branch))
	if len(g.Arms) != 2 {
		return
	}
	then := join(s.Pointer, g.Arms[0])
	b.spans[then] = extent(n.Then.Tokens)
	s.Arms[0] = b.sequence(n.Then.Items, then, s, 0, depth+1)
	els := join(s.Pointer, g.Arms[1])
	switch {
	case n.ElseIf != nil:
		// else IF … is an else arm holding one unlabeled branch.
		b.spans[els] = extent(n.ElseIf.Tokens)
		if b.tooDeep(depth+1, extent(n.ElseIf.Tokens)) {
			return
		}
		inner := &program.Step{Pointer: join(els, "0"), Enclosing: s, Arm: 1, ID: b.generate(b.t.ts.If)}
		b.spans[inner.Pointer] = extent(n.ElseIf.Tokens)
		b.spans[inner.Pointer+"/id"] = first(n.ElseIf.Tokens)
		b.branch(inner, n.ElseIf, depth+1)
		s.Arms[1] = []*program.Step{inner}
	case n.Else != nil:
		b.spans[els] = extent(n.Else.Tokens)
		s.Arms[1] = b.sequence(n.Else.Items, els, s, 1, depth+1)
	}
}

func (b *builder) loop(s *program.Step, n *tFor, depth int) {
	g := b.t.g
	s.Kind = program.Loop
	s.List = b.expr(n.List.Tokens, join(s.Pointer, g.Loop))
	s.Item = n.Item.Name
	b.spans[join(s.Pointer, g.Item)] = extent(n.Item.Tokens)
	if b.labels[s.Item] {
		b.errorf(extent(n.Item.Tokens), "give the loop variable a name no statement has as its label", "%q is a label, so it cannot also name the loop variable", s.Item)
	}
	body := join(s.Pointer, g.Body)
	b.spans[body] = extent(n.Body.Tokens)
	s.Body = b.sequence(n.Body.Items, body, s, 0, depth+1)
}

// expr is the expression the tokens span, as CEL reads it: comments
// inside it blanked (one space per character, so offsets hold) and each
// label's `LABEL.output` read as `steps.LABEL.output`.
func (b *builder) expr(toks []lexer.Token, ptr string) *program.Expr {
	sp := extent(toks)
	b.spans[ptr] = sp
	es := &exprSpan{start: sp.start, text: b.src[sp.start:sp.end]}
	b.exprs[ptr] = es
	var out strings.Builder
	at := sp.start // bytes of the text copied so far
	runes := 0     // code points of the text before at
	copyTo := func(off int) {
		out.Write(b.src[at:off])
		runes += utf8.RuneCount(b.src[at:off])
		at = off
	}
	for _, t := range toks {
		off := t.Pos.Offset
		if off < sp.start || off >= sp.end {
			continue
		}
		switch {
		case t.Type == kComment:
			copyTo(off)
			n := utf8.RuneCountInString(t.Value)
			out.WriteString(strings.Repeat(" ", n))
			runes += n
			at += len(t.Value)
		case t.Type == kName && b.labelRef(t.Value):
			copyTo(off)
			es.ins = append(es.ins, runes)
			out.WriteString(stepsPrefix)
		}
	}
	copyTo(sp.end)
	return &program.Expr{Src: out.String(), Pointer: ptr}
}

// labelRef reports whether a name token reads a labelled step's result:
// LABEL.output, alone or followed by a field.
func (b *builder) labelRef(name string) bool {
	label, rest, ok := strings.Cut(name, ".output")
	return ok && b.labels[label] && (rest == "" || rest[0] == '.')
}

// original maps a code-point offset into an expression as CEL read it to
// a byte offset of the text: past each inserted "steps." the offsets
// shift back, and inside one they are the label's start.
func (e *exprSpan) original(r int) int {
	n := utf8.RuneCountInString(stepsPrefix)
	shift := 0
	for k, o := range e.ins {
		at := o + n*k // where insertion k starts in the text CEL read
		if r < at {
			break
		}
		if r < at+n {
			return e.start + runeOffset(e.text, o)
		}
		shift = n * (k + 1)
	}
	return e.start + runeOffset(e.text, r-shift)
}

// locate gives each diagnostic its text range (§5.5): the token, value or
// statement its JSON Pointer names (or the nearest enclosing one that
// exists in the text; "" is the whole program), narrowed to its range
// inside an expression. A diagnostic that already has a range keeps it.
func (b *builder) locate(diags []pilotage.Diagnostic) []pilotage.Diagnostic {
	out := make([]pilotage.Diagnostic, len(diags))
	for i, d := range diags {
		if d.Path.Text == nil {
			sp := b.find(d)
			d.Path = textPath(b.doc, sp.start, sp.end)
		}
		d.Range = nil
		out[i] = d
	}
	return out
}

// spanOf is locate's range as lines and columns, the end left out when
// it is on another line.
func (b *builder) spanOf(d pilotage.Diagnostic) (start, end pilotage.LineCol) {
	r := b.locate([]pilotage.Diagnostic{d})[0].Path.Text
	start = r.Start
	if r.End.Line == r.Start.Line {
		end = r.End
	}
	return start, end
}

func (b *builder) find(d pilotage.Diagnostic) span {
	ptr := d.Path.Pointer
	if es := b.exprs[ptr]; es != nil && d.Range != nil {
		return span{es.original(d.Range.Start), es.original(d.Range.End)}
	}
	for ptr != "" {
		if sp, ok := b.spans[ptr]; ok {
			return sp
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
	return span{0, len(b.src)}
}
