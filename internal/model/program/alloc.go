package program

import (
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Pointers writes the JSON Pointers of the steps and their values into
// a few large strings, for the readers of a program in JSON (Parse) and
// in text (package syntax), each pointer a part of one: a string apiece,
// rounded up to the allocator's size class, was a fifth of the step
// model. A pointer that extends the last one written extends it in
// place ("/steps/3" then "/steps/3/call"), so the two share their bytes.
type Pointers struct {
	b    strings.Builder
	last int // where the last pointer written starts
}

// Slab hands out the calls' argument lists and expressions from large
// arrays: an allocation apiece, rounded up to the allocator's size
// class, was a sixth of the step model.
type Slab struct {
	a []Arg
	e []Expr
}

// slabSize is how many arguments or expressions each array holds.
const slabSize = 256

// Args is room for n arguments (nil for none, as a call without
// arguments has).
func (s *Slab) Args(n int) []Arg {
	if n == 0 {
		return nil
	}
	if len(s.a)+n > cap(s.a) {
		s.a = make([]Arg, 0, max(n, slabSize))
	}
	at := len(s.a)
	s.a = s.a[:at+n]
	return s.a[at : at : at+n]
}

// Exprs is n expressions.
func (s *Slab) Exprs(n int) []Expr {
	if len(s.e)+n > cap(s.e) {
		s.e = make([]Expr, 0, max(n, slabSize))
	}
	at := len(s.e)
	s.e = s.e[:at+n]
	return s.e[at : at+n : at+n]
}

// pointerChunk is the size of each string Pointers writes into.
const pointerChunk = 4096

// Write is s in the shared strings.
func (p *Pointers) Write(s string) string {
	if p.b.Cap()-p.b.Len() < len(s) {
		p.b = strings.Builder{}
		p.b.Grow(max(len(s), pointerChunk))
	}
	p.last = p.b.Len()
	p.b.WriteString(s)
	return p.b.String()[p.last:]
}

// Join is the pointer ptr/tok/…, each token escaped (RFC 6901), in the
// shared strings: in place after ptr when ptr is the last pointer
// written.
func (p *Pointers) Join(ptr string, toks ...string) string {
	n := 0
	for i, tok := range toks {
		toks[i] = pilotage.EscapePointerToken(tok)
		n += 1 + len(toks[i])
	}
	if written := p.b.String(); len(ptr) == 0 || written[p.last:] != ptr || p.b.Cap()-p.b.Len() < n {
		if p.b.Cap()-p.b.Len() < len(ptr)+n {
			p.b = strings.Builder{}
			p.b.Grow(max(len(ptr)+n, pointerChunk))
		}
		p.last = p.b.Len()
		p.b.WriteString(ptr)
	}
	for _, tok := range toks {
		p.b.WriteByte('/')
		p.b.WriteString(tok)
	}
	return p.b.String()[p.last:]
}
