package pdl

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// The parser reads the grammar of File a token at a time from the
// scanner, with one token of lookahead, so it holds no token it has
// passed: memory is the tree, whatever the file. The tree is laid out
// lean: nodes come from slabs (one allocation per thousand, no
// allocator rounding per node), and each body's and argument list's
// pointers are one slice of exactly its length, collected on a stack
// shared by the whole parse rather than grown by append per list.

// Tree bounds: reading a file whole (Parse) may take treePerByte bytes a
// byte of it, plus treeSlack, besides its text. Written files take less
// (the Languages of langs/ 3.5 to 5.5 a byte, the 2.5 MiB generated
// Language of docs/performance.md 4); a file of one-byte tokens would
// take 40 to 60: a statement costs 120 bytes (for "a;"), a value 80 (for
// " a"). With the text of the file (one copy) and the caller's bytes, a
// parse stays within 10 times its input, plus treeSlack (docs/pdl.md,
// "How large a file can be").
//
// A streamed reading (Stream, the compiler's) holds one top-level
// statement's tree at a time, so what bounds its memory is what the
// compiler keeps of each. A catalog entry (keptStatements) is charged its
// tree while it is read, then keptCost in place of it. Other statements
// are charged their trees, a Language block its whole tree as its
// statements are compiled into what the compiler keeps, all at
// streamPerByte bytes a byte plus treeSlack. keptCost is not what the
// compiler keeps of an entry (its model, its statement's place and
// index: about 570 bytes) but what an entry costs the verbs at their
// peaks, beside it the snapshot, lint's tree of it and the collector's
// room: about 1,000 to 1,250 bytes of RSS an entry beside 2.5 a byte of
// the file, measured on
// generated catalogs (docs/performance.md, "Generated catalogs within 10
// bytes a byte"). An entry then needs keptCost / streamPerByte (144)
// bytes of the file on average, beyond the 5,000 or so the slack takes,
// for the verbs to hold 10 bytes a byte of it: a generated entry with a
// name, a description, schemas and returns takes 155 (8.5 to 9.9 bytes
// a byte, 7.1 to 7.6 since session 16); one of schemas and returns
// alone, 100, took 12.3, 9.8 to 12.9 since, and goes over past the
// slack's, as one of its kind and risk alone (40).
const (
	treePerByte   = 6
	treeSlack     = 6 << 20
	streamPerByte = 8
	keptCost      = 1152
)

// What the budget charges for each part of the tree: its struct, its
// place in its body (an interface) or argument list (a pointer), and that
// place again on the parser's stack while the list is read.
const (
	ptrSize     = int(unsafe.Sizeof(&Arg{}))
	nodeSize    = int(unsafe.Sizeof(Node(nil)))
	stmtCost    = int(unsafe.Sizeof(Stmt{})) + 2*nodeSize
	commentCost = int(unsafe.Sizeof(Comment{})) + 2*nodeSize
	blankCost   = int(unsafe.Sizeof(Blank{})) + 2*nodeSize
	blockCost   = int(unsafe.Sizeof(Block{}))
	argCost     = int(unsafe.Sizeof(Arg{})) + 2*ptrSize
)

// treeBudget is how many bytes reading a file of n bytes whole may take
// besides its text; streamBudget how many a streamed reading may charge.
func treeBudget(n int) int { return treePerByte*n + treeSlack }

func streamBudget(n int) int { return streamPerByte*n + treeSlack }

// syntaxError is a token the grammar does not allow where it stands.
type syntaxError struct {
	tok    token
	expect string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%d:%d: unexpected %s %q (expected %s)", e.tok.pos.Line, e.tok.pos.Column, e.tok.typ, report.Clip(e.tok.val), e.expect)
}

// overBudget is the token at which the tree went over its budget.
type overBudget struct{ tok token }

func (e *overBudget) Error() string {
	return fmt.Sprintf("%d:%d: syntax tree over budget", e.tok.pos.Line, e.tok.pos.Column)
}

// parser is one parse of one text.
type parser struct {
	sc *scanner
	// tok is the next token, not yet taken.
	tok token
	// budget is how many bytes of tree may still be built.
	budget int

	slabs
	// bodies holds the nodes of the bodies being read, the innermost
	// last; params the arguments of the statement being read.
	bodies stack[Node]
	params stack[*Arg]
	// stopped is set when a streamed reading was ended by its reader.
	stopped bool
	// dry keeps no node (readTree).
	dry bool
	// only, when set, is the keyword of the top-level statements a
	// streamed reading builds; it reads the others dry (stream).
	only string
	// unread, set by a streamed reading of a file, is the keyword of the
	// top-level statements whose blocks it reads dry (Block.Unread);
	// unreadNext is set while such a statement's arguments are read.
	unread     string
	unreadNext bool
	// kept, set in a streamed reading of a file, is what each top-level
	// statement is charged once read, in place of its tree (keptCost).
	kept int
}

// keptStatements is the keyword of the top-level statements a streamed
// reading of a file charges keptCost in place of their trees: a catalog
// entry, of which the compiler keeps its model and places, not its tree
// (workbench/compile, entryState).
const keptStatements = "entry"

// unreadBlocks is the keyword of the top-level statements whose blocks a
// streamed reading leaves unread: a Language block is one statement of
// every guide, setting and closed-set value of the Language, which the
// compiler reads with File.Children a statement at a time.
const unreadBlocks = "language"

// slabs are where the parts of a tree come from.
type slabs struct {
	stmts    slab[Stmt]
	comments slab[Comment]
	blanks   slab[Blank]
	blocks   slab[Block]
	args     slab[Arg]
	nodeRuns slab[Node]
	argRuns  slab[*Arg]
}

// restart restarts every slab (slab.restart).
func (ss *slabs) restart() {
	ss.stmts.restart()
	ss.comments.restart()
	ss.blanks.restart()
	ss.blocks.restart()
	ss.args.restart()
	ss.nodeRuns.restart()
	ss.argRuns.restart()
}

// parseTree parses src, with no recovery: the first error ends it, and
// the tree holds the top-level nodes read before it. With each set the
// tree keeps no top-level node: each statement goes to each as soon as it
// is read, and what each does not keep of it is garbage once the next is
// read (each returning false ends the reading, with no error).
func parseTree(name, src string, budget int, each func(*Stmt) bool) (*File, error) {
	return read(name, src, budget, each, false, "")
}

// readTree is parseTree without each, or, dry, parseTree with an each
// that keeps nothing, and no tree built at all: each kind of node is one
// scratch value written over, so checking a file for Stream allocates
// next to nothing.
func readTree(name, src string, budget int, dry bool) (*File, error) {
	if !dry {
		return parseTree(name, src, budget, nil)
	}
	return read(name, src, budget, func(*Stmt) bool { return true }, true, "")
}

// read parses src as parseTree does, or readTree when dry; with only set
// (and each), each is given the top-level statements of that keyword
// alone, the others read dry (File.StatementsOf).
func read(name, src string, budget int, each func(*Stmt) bool, dry bool, only string) (*File, error) {
	p := &parser{sc: newScanner(src), budget: budget, dry: dry, only: only}
	if each != nil {
		p.unread, p.kept = unreadBlocks, keptCost
	}
	p.tok = p.sc.next()
	f := &File{Name: name, Pos: p.tok.pos, text: src, budget: budget, streamed: each != nil}
	var err error
	if each != nil {
		err = p.stream(each)
	} else {
		f.Body, err = p.body()
	}
	if err != nil || p.stopped {
		return f, err
	}
	if p.tok.typ != tokEOF {
		return f, &syntaxError{tok: p.tok, expect: "a statement"}
	}
	f.EndPos = p.tok.pos
	return f, nil
}

func (p *parser) take() token {
	t := p.tok
	p.tok = p.sc.next()
	return t
}

// accept takes the next token when it has type typ.
func (p *parser) accept(typ tokType) {
	if p.tok.typ == typ {
		p.take()
	}
}

// part takes a new part of the tree from its slab, charging its cost
// to the budget; t is the token the part starts at.
func part[T any](p *parser, s *slab[T], cost int, t token) (*T, error) {
	if p.budget -= cost; p.budget < 0 {
		return nil, &overBudget{tok: t}
	}
	if p.dry {
		return &s.scratch, nil
	}
	return s.one(), nil
}

func (p *parser) isPunct(v string) bool { return p.tok.typ == tokPunct && p.tok.val == v }

// body reads nodes until a token that starts none; on an error it
// returns the nodes read before it.
func (p *parser) body() ([]Node, error) {
	mark := p.bodies.n
	for {
		n, err := p.node()
		if err != nil || n == nil {
			return p.bodies.pop(mark, &p.nodeRuns), err
		}
		if !p.dry {
			p.bodies.push(n)
		}
	}
}

// stream reads the top-level nodes as body does, handing each statement
// to each instead of keeping it. In a streamed reading of a file (kept
// set), a catalog entry is charged its tree while it is read, then kept
// in place of it; any other node is charged as body charges it.
//
// After a statement with a block the slabs start anew. A block of a slab
// holds parts of several statements, whose parts of each kind lie in
// blocks of different bounds, and a statement's body points back into
// the statements' slab: a reader that kept one statement kept, from
// block to block, every statement read after it. Statements without a
// block point into no block that holds a statement, so a run of them
// shares the slabs (a file of 100,000 one-line statements allocates no
// more than its tree).
func (p *parser) stream(each func(*Stmt) bool) error {
	for {
		if p.only != "" {
			p.dry = p.tok.typ != tokIdent || p.tok.val != p.only
		}
		p.unreadNext = p.unread != "" && p.tok.typ == tokIdent && p.tok.val == p.unread
		t, before := p.tok, p.budget
		n, err := p.node()
		if err != nil || n == nil {
			return err
		}
		s, ok := n.(*Stmt)
		if ok && p.kept > 0 && t.val == keptStatements {
			// Its tree is the reader's to let go of (Statements); what
			// the compiler keeps of it is charged instead.
			if p.budget = before - p.kept; p.budget < 0 {
				return &overBudget{tok: t}
			}
		}
		if !ok || p.only != "" && p.dry {
			continue
		}
		switch {
		case p.dry:
			// The scratch statement was written over by those of its
			// block (CountChildren reads the keyword).
			s.Keyword = t.val
		case s.Block != nil:
			p.slabs.restart()
		}
		if !each(s) {
			p.stopped = true
			return nil
		}
	}
}

// node reads one node, or returns nil when none starts here (the end of
// a block or file, or a token no statement starts with).
func (p *parser) node() (Node, error) {
	t := p.tok
	switch t.typ {
	case tokEOL:
		b, err := part(p, &p.blanks, blankCost, t)
		if err != nil {
			return nil, err
		}
		b.Pos = t.pos
		for p.tok.typ == tokEOL {
			p.take()
		}
		return b, nil
	case tokComment:
		c, err := part(p, &p.comments, commentCost, t)
		if err != nil {
			return nil, err
		}
		*c = Comment{Pos: t.pos, Text: p.take().val}
		p.accept(tokEOL)
		return c, nil
	case tokIdent:
		s, err := p.stmt()
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, nil
}

// stmt reads a statement; the next token is its keyword.
func (p *parser) stmt() (*Stmt, error) {
	kw := p.take()
	s, err := part(p, &p.stmts, stmtCost, kw)
	if err != nil {
		return nil, err
	}
	s.Pos, s.Keyword = kw.pos, kw.val
	if s.Args, err = p.arguments(); err != nil {
		return nil, err
	}
	if p.isPunct("{") {
		unread := p.unreadNext && !p.dry
		p.unreadNext = false
		if s.Block, err = p.block(unread); err != nil {
			return nil, err
		}
	}
	if p.tok.typ == tokComment {
		s.Comment = p.take().val
	}
	p.accept(tokSemi)
	p.accept(tokEOL)
	s.EndPos = p.tok.pos
	return s, nil
}

// block reads a block; the next token is its "{". Unread, it reads the
// body dry, charged to the budget as if it were built, and leaves it
// unread (Block.Unread).
func (p *parser) block(unread bool) (*Block, error) {
	open := p.take()
	b, err := part(p, &p.blocks, blockCost, open)
	if err != nil {
		return nil, err
	}
	b.Pos = open.pos
	if p.tok.typ == tokComment {
		b.OpenComment = p.take().val
	}
	p.accept(tokEOL)
	if unread {
		p.dry = true
		_, err = p.body()
		p.dry = false
		b.Unread = true
	} else {
		b.Body, err = p.body()
	}
	if err != nil {
		return nil, err
	}
	if !p.isPunct("}") {
		return nil, &syntaxError{tok: p.tok, expect: `"}"`}
	}
	p.take()
	b.EndPos = p.tok.pos
	return b, nil
}

// readBlock reads the body of the block whose "{" is at pos in src,
// handing each statement to each as stream does the file's (dry, no
// tree: each is handed one scratch statement with its keyword). src
// was read whole before under budget, so it reads without error.
func readBlock(src string, pos Pos, budget int, dry bool, each func(*Stmt) bool) {
	p := &parser{sc: &scanner{src: src, pos: pos}, budget: budget, dry: dry}
	p.tok = p.sc.next()
	p.take() // {
	if p.tok.typ == tokComment {
		p.take()
	}
	p.accept(tokEOL)
	_ = p.stream(each)
}

// StatementAt reads again the statement whose keyword is at pos in src,
// a place a reading of src gave, with its block: what a reader that kept
// less of a statement than it now needs reads it for (a catalog entry's
// members are placed this way, only when a finding is about one). It
// returns nil when no statement starts there.
func StatementAt(src []byte, pos Pos) *Stmt {
	if pos.Offset < 0 || int(pos.Offset) >= len(src) {
		return nil
	}
	// It was read under its budget before, so it is charged nothing.
	p := &parser{sc: &scanner{src: view(src), pos: pos}, budget: math.MaxInt}
	if p.tok = p.sc.next(); p.tok.typ != tokIdent {
		return nil
	}
	s, err := p.stmt()
	if err != nil {
		return nil
	}
	return s
}

// arguments reads `[key=]literal` until a token that starts none; a key
// without a value is an error at the token after it.
func (p *parser) arguments() ([]*Arg, error) {
	mark := p.params.n
	for {
		t := p.tok
		key := ""
		if t.typ == tokKey {
			key = t.val[:len(t.val)-1]
			p.take()
			if !isLiteral(p.tok.typ) {
				p.params.n = mark
				return nil, &syntaxError{tok: p.tok, expect: "a value"}
			}
		} else if !isLiteral(t.typ) {
			return p.params.pop(mark, &p.argRuns), nil
		}
		a, err := part(p, &p.args, argCost, t)
		if err != nil {
			p.params.n = mark
			return nil, err
		}
		v := p.take()
		if v.typ == tokBare && !p.dry {
			// Reported as a value that needs quotes (bareFinding): the
			// tree holds it quoted, so the compiler reads what was meant
			// and reports no error of its own about it.
			v.val = strconv.Quote(v.val)
		}
		*a = Arg{Pos: t.pos, Key: key, Value: Value{Pos: v.pos, Token: v.val}}
		if !p.dry {
			p.params.push(a)
		}
	}
}

func isLiteral(t tokType) bool {
	return t == tokIdent || t == tokBare || t == tokNumber || t == tokString || t == tokRaw || t == tokText
}

// slab hands out values from blocks allocated a thousand at a time,
// so a tree of a million small nodes is a few hundred allocations.
type slab[T any] struct {
	free []T
	size int
	// taken counts the values handed out since the slab (re)started;
	// next, after a restart, is the size of the first block: what the
	// last statement took, when statements are read one at a time.
	taken, next int
	// scratch is the one value a dry reading hands out (readTree).
	scratch T
}

// restart drops the slab's blocks: what it hands out next shares no
// block with what it handed out before. The first new block is as large
// as what was taken since the last restart, a statement read alone
// (stream) being most often like the one before it.
func (s *slab[T]) restart() { *s = slab[T]{next: s.taken} }

// slabMax is the most values a slab allocates at once.
const slabMax = 1024

// one returns a new zero value.
func (s *slab[T]) one() *T {
	if len(s.free) == 0 {
		s.grow(1)
	}
	x := &s.free[0]
	s.free = s.free[1:]
	s.taken++
	return x
}

// run returns n zero values in a slice of exactly that length and
// capacity (nil for none), so appending to it never writes over a
// neighbour.
func (s *slab[T]) run(n int) []T {
	switch {
	case n == 0:
		return nil
	case n > slabMax/4:
		return make([]T, n)
	case n > len(s.free):
		s.grow(n)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	s.taken += n
	return out
}

// grow starts a new block of at least n values: each block doubles the
// last, from 16 (or the size restart chose) to slabMax, so a small file
// allocates little.
func (s *slab[T]) grow(n int) {
	if s.next > 0 {
		s.size, s.next = min(s.next, slabMax), 0
	} else {
		s.size = min(max(2*s.size, 16), slabMax)
	}
	s.free = make([]T, max(s.size, n))
}

// stack is a stack kept in fixed-size chunks, so a list of a million
// items grows without copying itself or leaving garbage, and the chunks
// serve every list of the parse.
type stack[T any] struct {
	chunks [][]T
	n      int
}

const stackChunk = 1024

func (s *stack[T]) push(x T) {
	if s.n == len(s.chunks)*stackChunk {
		s.chunks = append(s.chunks, make([]T, stackChunk))
	}
	s.chunks[s.n/stackChunk][s.n%stackChunk] = x
	s.n++
}

// pop removes the items above mark and returns them as one run of r.
func (s *stack[T]) pop(mark int, r *slab[T]) []T {
	out := r.run(s.n - mark)
	for i := 0; i < len(out); {
		at := mark + i
		i += copy(out[i:], s.chunks[at/stackChunk][at%stackChunk:])
	}
	s.n = mark
	return out
}
