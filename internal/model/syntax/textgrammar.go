package syntax

import (
	"fmt"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// The text surface. Statements are free-form: separators (line ends and
// ';') may come anywhere between them, and a statement ends where its
// last token does (a call at its ')', a branch or loop at its '}', the
// output at the end of its line). Expressions are kept as the text they
// span, and are CEL's to read: the grammar only finds where each one
// ends.
//
// The grammar is participle's (the struct tags of reader_test.go, which
// its grammar interpreter reads there as the oracle), read here in one
// pass over a stream of tokens with a token of lookahead: the
// interpreter, a branch and a deferred field set per alternative tried,
// cost the text form twice the JSON form's whole validate, and
// participle's PeekingLexer holds every token (docs/performance.md).
// Argument lists and expressions are participle.Parseable nodes, read by
// the same code here and under the oracle. A failure is participle's
// UnexpectedTokenError at the failing token, expecting what the grammar
// of docs/pdl.md expects there, in the names textSyntax.words turns into
// the author's words.

// A program is read statement by statement: each top-level statement
// is handed on (to the builder, which turns it into steps, or to the
// formatter) as soon as it is read, so no more than one top-level
// statement's nodes exist at once. Nodes keep where they are in the
// text, not their tokens.

// tItem is one statement with its optional label: whole is its extent,
// first its first token (the keyword of a branch or loop, which places
// an unlabeled statement's generated id).
type tItem struct {
	whole, first span
	Label        *tName
	Call         *tCall
	Run          *tCall
	If           *tIf
	For          *tFor
	Output       *tExprArg
}

type tName struct {
	sp   span
	Name string
}

type tIf struct {
	whole, first span
	Cond         *tExprOpen
	Then         *tBlock
	ElseIf       *tIf
	Else         *tBlock
}

type tFor struct {
	Item *tName
	List *tExprOpen
	Body *tBlock
}

type tBlock struct {
	whole span
	Items []*tItem
}

// tCall is a call or a run: the target and its arguments.
type tCall struct {
	Target *tName
	Args   *tArgs
}

// reader reads the grammar of docs/pdl.md the way participle's grammar
// interpreter reads it from struct tags (the items `( @@ | Sep )*`, an
// item `( @@ Assign )? ( @@ | Run @@ | @@ | @@ | Output @@ )`, a branch
// `If @@ @@ ( Else ( @@ | @@ ) )?`, a loop `For @@ In @@ @@`, a block
// `"{" ( @@ | Sep )* "}"`, a call `@@ @@`), with its rules for which
// failure is reported: an alternative that fails within lookahead tokens
// of where it started is given up and the next one tried, the error that
// got furthest is kept, and one that goes further is the statement's.
// So a program reads, and fails, at the same token with the same
// expectation as under the interpreter (the syntax goldens), without
// its reflection, branches and deferred field sets.
type reader struct {
	lex   *stream
	err   error // the deepest error seen, at token depth
	depth int
	// nest is how deep the statement being read nests, as the step
	// model counts it (docs/pdl.md): 1 at the top level, one more in
	// a block, and one more for each `else if` of a chain, which is an
	// else arm holding the next branch though no brace nests it. A
	// statement past maxDepth stops the read at its first token with
	// limit, the *program.LimitError the JSON form gives: checked here,
	// as the text is read, an `else if` chain of 10^5 links is refused
	// at the link past the limit, not read (a recursion of a dozen
	// frames a link) and built first.
	nest, maxDepth int
	limit          *program.LimitError
}

// newReader reads lex, refusing statements nested deeper than maxDepth.
func newReader(lex *stream, maxDepth int) *reader {
	return &reader{lex: lex, nest: 1, maxDepth: maxDepth}
}

// tooDeep stops the read at tok, the first token of a statement (or of
// an `else if`'s branch) at r.nest, when that is past the limit.
func (r *reader) tooDeep(tok *lexer.Token) bool {
	if r.nest <= r.maxDepth {
		return false
	}
	r.limit = &program.LimitError{Msg: fmt.Sprintf("the program nests constructs deeper than this Language's limit of %d (at line %d, column %d)", r.maxDepth, tok.Pos.Line, tok.Pos.Column),
		At: pilotage.LineCol{Line: tok.Pos.Line, Column: tok.Pos.Column}}
	return true
}

// lookahead is how many tokens an alternative may read and still be
// given up for the next one.
const lookahead = 3

// What each point of the grammar expects, as participle named the rest
// of the sequence there (textSyntax.words words them).
const (
	wantLabel     = "<assign>"
	wantStatement = "(TCall | (<run> TCall) | TIf | TFor | (<output> tExprArg))"
	wantElse      = "(TIf | TBlock)"
	wantThen      = "TBlock (<else> " + wantElse + ")?"
	wantList      = "tExprOpen TBlock"
)

// expect is the failure at the next token, expecting want.
func (r *reader) expect(want string) error {
	r.lex.Peek()
	return &failure{tok: *r.lex.Peek(), want: want}
}

// failure is participle's UnexpectedTokenError before it is reported:
// most are given up, and their message is never made.
type failure struct {
	tok  lexer.Token
	want string
}

func (f *failure) Error() string { return f.unexpected().Error() }

func (f *failure) unexpected() *participle.UnexpectedTokenError {
	return &participle.UnexpectedTokenError{Unexpected: f.tok, Expect: f.want}
}

// reported is err as participle reports it.
func reported(err error) error {
	if f, ok := err.(*failure); ok {
		return f.unexpected()
	}
	return err
}

// from is where a node starts: the next token.
func (r *reader) from() int { return r.lex.Peek().Pos.Offset }

// to is the span from start to the end of the last token read.
func (r *reader) to(start int) span { return between(start, max(start, r.lex.at.end)) }

// note keeps err as the deepest error when at is at least as deep.
func (r *reader) note(err error, at int) {
	if at >= r.depth {
		r.err, r.depth = err, at
	}
}

// try runs an alternative that may be given up: ok and err are its
// outcome; given is true when it failed within lookahead tokens of
// where it started, and the tokens it read are unread again; at is
// where it stopped. The alternative notes its errors in r, as a branch
// of participle's would in its own context; what r knew before is
// merged back as participle merges a branch.
func (r *reader) try(alt func(*reader) (bool, error)) (ok bool, err error, given bool, at int) {
	start := r.lex.MakeCheckpoint()
	pErr, pDepth := r.err, r.depth
	ok, err = alt(r)
	at = r.lex.Cursor()
	if r.limit != nil {
		return ok, r.limit, false, at // never given up: the read ends
	}
	bErr, bDepth := r.err, r.depth
	r.err, r.depth = pErr, pDepth
	if err != nil {
		if bDepth > r.depth {
			r.err, r.depth = bErr, bDepth
		} else if at >= r.depth {
			r.err, r.depth = err, max(at, bDepth)
		}
		if at <= start.cursor+lookahead {
			r.lex.LoadCheckpoint(start)
			return false, err, true, at
		}
	}
	if bDepth >= r.depth {
		r.err, r.depth = bErr, bDepth
	}
	return ok, err, false, at
}

// repeat is `( alt )*` (many) or `( alt )?`: it always matches.
func (r *reader) repeat(many bool, alt func(*reader) (bool, error)) error {
	for {
		from := r.lex.Cursor()
		ok, err, given, _ := r.try(alt)
		if err != nil {
			r.note(err, from)
		}
		switch {
		case given:
			return nil
		case err != nil:
			return err
		case !ok || !many:
			return nil
		}
	}
}

// oneOf is `( alt | alt … )`: the first that matches; failing that, the
// error of the one that got furthest.
func (r *reader) oneOf(alts ...func(*reader) (bool, error)) (bool, error) {
	var first error
	deepest := 0
	for _, alt := range alts {
		ok, err, given, at := r.try(alt)
		switch {
		case given:
			if at >= deepest {
				first, deepest = err, at
			}
		case err != nil:
			return true, err
		case ok:
			return true, nil
		}
	}
	if first != nil {
		r.note(first, r.lex.Cursor())
		return true, first
	}
	return false, nil
}

// node is a struct of the grammar: its error is noted where it stopped.
func (r *reader) node(read func() (bool, error)) (bool, error) {
	ok, err := read()
	if err != nil {
		r.note(err, r.lex.Cursor())
	}
	return ok, err
}

// token reads the next token when it has type typ (and value v, if any).
func (r *reader) token(typ lexer.TokenType, v string) bool {
	if t := r.lex.Peek(); t.Type != typ || v != "" && t.Value != v {
		return false
	}
	r.lex.Next()
	return true
}

// set gives field the node an alternative read when it matched: an
// alternative given up leaves nothing behind.
func set[T any](field **T, n *T, ok bool, err error) (bool, error) {
	if ok && err == nil {
		*field = n
	}
	return ok, err
}

// part reads a node that reads itself, or fails expecting want.
func (r *reader) part(read func(tokens) error, want string) error {
	switch err := read(r.lex); err {
	case nil:
		return nil
	case participle.NextMatch:
		return r.expect(want)
	default:
		return err
	}
}

// program reads the whole text, handing each top-level statement to top
// as soon as it is read; a limit error top returns ends the read. The
// error is participle's.
func (r *reader) program(top func(*tItem) *program.LimitError) error {
	if err := r.items(top); err != nil {
		return reported(err)
	}
	if !r.lex.Peek().EOF() {
		if r.lex.Cursor() >= r.depth || r.err == nil {
			return reported(r.expect(""))
		}
		return reported(r.err)
	}
	return nil
}

// items is `( @@ | Sep )*`, each statement handed to add; a limit error
// add returns ends the read.
func (r *reader) items(add func(*tItem) *program.LimitError) error {
	return r.repeat(true, func(b *reader) (bool, error) {
		if b.lex.Peek().Type == kSep {
			b.seps()
			return true, nil
		}
		return b.oneOf(func(b *reader) (bool, error) {
			it, err := b.item()
			if err == nil {
				if le := add(it); le != nil {
					b.limit = le
					return true, le
				}
			}
			return true, err
		}, func(b *reader) (bool, error) { return b.token(kSep, ""), nil })
	})
}

// seps reads a run of separators as `( @@ | Sep )*` reads each: the
// statement tried first fails at it, and is given up for the separator.
// What that leaves is the failure at the last one, the deepest error
// unless a deeper one is known; it is made once for the run, not once a
// separator (a program of 10^5 ';' made 10^5 of them).
func (r *reader) seps() {
	last := r.lex.Cursor()
	var tok *lexer.Token
	for r.lex.Peek().Type == kSep {
		last = r.lex.Cursor()
		tok = r.lex.Next()
	}
	if last >= r.depth {
		r.err, r.depth = &failure{tok: *tok, want: wantStatement}, last
	}
}

func (r *reader) name() *tName {
	t := r.lex.Peek()
	if t.Type != kName {
		return nil
	}
	n := &tName{Name: t.Value, sp: between(t.Pos.Offset, t.Pos.Offset+len(t.Value))}
	r.lex.Next()
	return n
}

// item always matches or fails: its label is optional, so a token that
// starts no statement is a failure expecting one.
func (r *reader) item() (*tItem, error) {
	t := r.lex.Peek()
	switch t.Type {
	case kName, kRun, kIf, kFor, kOutput:
	default:
		// What the alternatives below come to for a token none of them
		// starts with (every separator is tried as a statement first),
		// without making their nodes.
		err := r.expect(wantStatement)
		r.note(err, r.lex.Cursor())
		return nil, err
	}
	if r.tooDeep(t) {
		return nil, r.limit
	}
	it := &tItem{first: between(t.Pos.Offset, t.Pos.Offset+len(t.Value))}
	_, err := r.node(func() (bool, error) {
		err := r.repeat(false, func(b *reader) (bool, error) {
			n := b.name()
			if n == nil {
				return false, nil
			}
			if !b.token(kAssign, "") {
				return true, b.expect(wantLabel)
			}
			it.Label = n
			return true, nil
		})
		if err != nil {
			return true, err
		}
		ok, err := r.oneOf(func(b *reader) (bool, error) {
			c, ok, err := b.call()
			return set(&it.Call, c, ok, err)
		}, func(b *reader) (bool, error) {
			if !b.token(kRun, "") {
				return false, nil
			}
			c, ok, err := b.call()
			if !ok {
				err = b.expect("TCall")
			}
			return set(&it.Run, c, true, err)
		}, func(b *reader) (bool, error) {
			n, ok, err := b.ifStmt()
			return set(&it.If, n, ok, err)
		}, func(b *reader) (bool, error) {
			n, ok, err := b.forStmt()
			return set(&it.For, n, ok, err)
		}, func(b *reader) (bool, error) {
			if !b.token(kOutput, "") {
				return false, nil
			}
			e := &tExprArg{}
			return set(&it.Output, e, true, b.part(e.read, "tExprArg"))
		})
		if !ok {
			return true, r.expect(wantStatement)
		}
		return true, err
	})
	it.whole = r.to(int(it.first.start))
	return it, err
}

func (r *reader) call() (c *tCall, ok bool, err error) {
	if r.lex.Peek().Type != kName {
		return nil, false, nil
	}
	c = &tCall{Args: &tArgs{}}
	ok, err = r.node(func() (bool, error) {
		if c.Target = r.name(); c.Target == nil {
			return false, nil
		}
		return true, r.part(c.Args.read, "tArgs")
	})
	return c, ok, err
}

func (r *reader) ifStmt() (n *tIf, ok bool, err error) {
	if r.lex.Peek().Type != kIf {
		return nil, false, nil
	}
	start := r.from()
	n = &tIf{Cond: &tExprOpen{}, first: between(start, start+len(r.lex.Peek().Value))}
	ok, err = r.node(func() (bool, error) {
		if !r.token(kIf, "") {
			return false, nil
		}
		if err := r.part(n.Cond.read, "tExprOpen "+wantThen); err != nil {
			return true, err
		}
		var ok bool
		var err error
		if n.Then, ok, err = r.block(); !ok {
			return true, r.expect(wantThen)
		} else if err != nil {
			return true, err
		}
		return true, r.repeat(false, func(b *reader) (bool, error) {
			if !b.token(kElse, "") {
				return false, nil
			}
			ok, err := b.oneOf(func(b *reader) (bool, error) {
				b.nest++
				defer func() { b.nest-- }()
				if t := b.lex.Peek(); t.Type == kIf && b.tooDeep(t) {
					return true, b.limit
				}
				e, ok, err := b.ifStmt()
				return set(&n.ElseIf, e, ok, err)
			}, func(b *reader) (bool, error) {
				e, ok, err := b.block()
				return set(&n.Else, e, ok, err)
			})
			if !ok {
				return true, b.expect(wantElse)
			}
			return true, err
		})
	})
	n.whole = r.to(start)
	return n, ok, err
}

func (r *reader) forStmt() (n *tFor, ok bool, err error) {
	if r.lex.Peek().Type != kFor {
		return nil, false, nil
	}
	n = &tFor{List: &tExprOpen{}}
	ok, err = r.node(func() (bool, error) {
		if !r.token(kFor, "") {
			return false, nil
		}
		if n.Item = r.name(); n.Item == nil {
			return true, r.expect("TName <in> " + wantList)
		}
		if !r.token(kIn, "") {
			return true, r.expect("<in> " + wantList)
		}
		if err := r.part(n.List.read, wantList); err != nil {
			return true, err
		}
		var ok bool
		var err error
		if n.Body, ok, err = r.block(); !ok {
			return true, r.expect("TBlock")
		}
		return true, err
	})
	return n, ok, err
}

// block is `"{" ( @@ | Sep )* "}"`.
func (r *reader) block() (bl *tBlock, ok bool, err error) {
	if t := r.lex.Peek(); t.Type != kOp || t.Value != "{" {
		return nil, false, nil
	}
	start := r.from()
	bl = &tBlock{}
	ok, err = r.node(func() (bool, error) {
		if !r.token(kOp, "{") {
			return false, nil
		}
		r.nest++
		defer func() { r.nest-- }()
		if err := r.items(func(it *tItem) *program.LimitError {
			bl.Items = append(bl.Items, it)
			return nil
		}); err != nil {
			return true, err
		}
		if !r.token(kOp, "}") {
			return true, r.expect(`"}"`)
		}
		return true, nil
	})
	bl.whole = r.to(start)
	return bl, ok, err
}

// tokens is what the nodes that read themselves read: the reader's
// stream, or participle's PeekingLexer under the oracle.
type tokens interface {
	Peek() *lexer.Token
	Next() *lexer.Token
}

// tArgs is "(" then NAME BIND EXPR items separated by ",", a trailing
// "," allowed, line ends anywhere between them, then ")". It reads
// itself (participle.Parseable): arguments are most of a program's
// statements' tokens, and a grammar node per token cost three times the
// JSON form's whole validate (docs/performance.md).
type tArgs struct {
	sp   span
	List []tArg
}

// tArg is an argument's name and expression, where they are in the
// text: the arguments are a hostile program's one-character tokens, so
// each is two spans.
type tArg struct{ Name, Value span }

// bindWanted is what an argument's name wants after it: its bind, then
// the expression (parseError's hint writes both).
const bindWanted = "<bind> after the argument's name"

// argsError is what the arguments expected where they stopped.
func argsError(t *lexer.Token, want string) error {
	return &participle.UnexpectedTokenError{Unexpected: *t, Expect: want}
}

func (a *tArgs) Parse(lex *lexer.PeekingLexer) error { return a.read(lex) }

func (a *tArgs) read(lex tokens) error {
	t := lex.Peek()
	if t.Type != kOp || t.Value != "(" {
		return participle.NextMatch
	}
	start := t.Pos.Offset
	lex.Next()
	skipSeps := func() {
		for lex.Peek().Type == kSep {
			lex.Next()
		}
	}
	for {
		skipSeps()
		t := lex.Peek()
		if t.Type == kOp && t.Value == ")" {
			break
		}
		if t.Type != kName {
			return argsError(t, `")"`)
		}
		arg := tArg{Name: between(t.Pos.Offset, t.Pos.Offset+len(t.Value))}
		lex.Next()
		if b := lex.Peek(); b.Type != kBind {
			return argsError(b, bindWanted)
		}
		lex.Next()
		if err := scanExpr(lex, &arg.Value, stopArg); err != nil {
			return argsError(lex.Peek(), "tExprArg")
		}
		a.List = append(a.List, arg)
		skipSeps()
		switch t := lex.Peek(); {
		case t.Type == kOp && t.Value == ",":
			lex.Next()
		case t.Type == kOp && t.Value == ")":
		default:
			return argsError(t, `"," or ")"`)
		}
	}
	t = lex.Next()
	a.sp = between(start, t.Pos.Offset+1)
	return nil
}

// An expression is the tokens up to where it ends, with brackets
// balanced (line ends allowed inside them): tExprOpen ends before a '{'
// at depth 0 (the block of a branch or loop); tExprArg, an argument's or
// the output's, at a ',', a line end or a closing bracket at depth 0.
// They read themselves (participle.Parseable): CEL, not this grammar,
// gives the tokens their meaning, and one pass with a depth counter is
// what finding the end takes. sp is the text from the first token to
// the end of the last that is not a line end.
type tExprOpen struct{ sp span }

type tExprArg struct{ sp span }

func (e *tExprOpen) Parse(lex *lexer.PeekingLexer) error { return e.read(lex) }

func (e *tExprArg) Parse(lex *lexer.PeekingLexer) error { return e.read(lex) }

func (e *tExprOpen) read(lex tokens) error {
	return scanExpr(lex, &e.sp, func(t *lexer.Token) bool { return t.Value == "{" })
}

func (e *tExprArg) read(lex tokens) error { return scanExpr(lex, &e.sp, stopArg) }

func stopArg(t *lexer.Token) bool { return t.Value == "," }

// scanExpr consumes an expression's tokens: up to, at depth 0, a token
// stop accepts, a line end or a closing bracket, or the end of the text.
// Nothing consumed is no match.
func scanExpr(lex tokens, sp *span, stop func(*lexer.Token) bool) error {
	depth, n := 0, 0
scan:
	for t := lex.Peek(); !t.EOF() && !(depth == 0 && (t.Type == kSep || stop(t))); t = lex.Peek() {
		if t.Type == kOp {
			switch t.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					break scan
				}
				depth--
			}
		}
		if n == 0 {
			sp.start = int32(t.Pos.Offset)
		}
		if t.Type != kSep {
			sp.end = int32(t.Pos.Offset + len(t.Value))
		}
		lex.Next()
		n++
	}
	if n == 0 {
		return participle.NextMatch
	}
	return nil
}
