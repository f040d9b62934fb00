package jsonpos

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

type parser struct {
	src []byte
	d   *Doc
	i   int
	err error
	// errAt is the offset of err.
	errAt int
	// open holds the children of the containers being parsed, each
	// container's above the ones of its parent, and a container takes its
	// own off when it closes. Building, they are the children's records,
	// which move to d.kids, so that a container's children are one range
	// there. Checking, they are the offsets of the member names of the
	// objects still open, all a name given twice is found by (arrays add
	// nothing), but for the names an object's nameSet holds: a closed
	// object leaves nothing behind.
	open []uint32
	// escaped holds, checking, the text of the names of the objects still
	// open that are written with escapes, in the order read, so by
	// offset; the others are read from src.
	escaped []escapedName
	// n is the index the next record gets: records are reserved one at a
	// time, so each chunk fills up before the next starts and the indices
	// have no gaps.
	n uint32
	// spare stands in for a record that did not fit (reserve's ok false),
	// so that parsing goes on to the error without a special case.
	spare [1]record
	// check is set by Check: nothing is recorded but the member names
	// of the objects still open (open), among which a duplicate is found,
	// and values are read and forgotten.
	check bool
	// scan is set with check by ScanTally: member names are not
	// recorded or compared either, so nothing is held per member.
	scan bool
	// key says the string being read is a member name.
	key bool
	// tally counts what the document holds, for CheckTally.
	tally Tally
	// values is set by Decode: in check mode, each value is also built
	// as a Go value.
	values *builder
	// fold is the depth from which containers are folded
	// (ParseSharedTo), 0 for none.
	fold int
}

// builder makes Go values while the parser checks (Decode). A value
// read goes on vals; a container's values sit above the mark it left on
// marks until it closes, when they move into a slice or map made at
// their exact size, so no container is grown by appending (a slice grown
// so leaves up to half its capacity unused, and every smaller copy of
// it allocated on the way).
type escapedName struct {
	at   uint32
	name string
}

type builder struct {
	number func(text []byte) any
	vals   []any
	marks  []int
}

// push adds a value that was just read.
func (b *builder) push(v any) { b.vals = append(b.vals, v) }

// open marks the start of a container's values.
func (b *builder) open() { b.marks = append(b.marks, len(b.vals)) }

// close replaces the values of the innermost open container with the
// container itself; names are the member names of an object in order,
// nil for an array.
func (b *builder) close(object bool, names []string) {
	mark := b.marks[len(b.marks)-1]
	b.marks = b.marks[:len(b.marks)-1]
	kids := b.vals[mark:]
	if !object && 4*len(kids) >= 3*cap(b.vals) {
		b.handOver(mark)
		return
	}
	var v any
	if object {
		m := make(map[string]any, len(kids))
		for i, name := range names {
			m[name] = kids[i]
		}
		v = m
	} else {
		v = append(make([]any, 0, len(kids)), kids...)
	}
	clear(kids) // the stack's array no longer keeps them alive
	b.vals = append(b.vals[:mark], v)
}

// handOver makes the stack's array the closing array's, instead of a copy
// of its elements, when they fill most of it (a large array of small
// values, whose copy would double what decoding it holds at its peak),
// and goes on in a new stack sized for what may still come: the values
// under mark, the array, and what the stack had room for (the stack is
// sized for every value of the document, each pushed once). The rest of
// the old array stays allocated with the array: under a quarter of it.
func (b *builder) handOver(mark int) {
	kids := b.vals[mark:len(b.vals):len(b.vals)]
	rest := make([]any, mark, mark+1+cap(b.vals)-len(b.vals))
	copy(rest, b.vals[:mark])
	clear(b.vals[:mark]) // the array's memory must not keep them alive
	b.vals = append(rest, kids)
}

// tooMany is the error of a document whose records or children need
// indices past 32 bits.
const tooMany = "the document has more values and members than 32-bit indices reach"

// record appends a record of kind k starting at start and returns its
// index with a pointer to it, valid until the next record.
func (p *parser) record(k Kind, start int) (uint32, *record) {
	p.count(k, start)
	if p.check {
		p.spare[0] = record{kind: k, start: uint32(start)}
		return 0, &p.spare[0]
	}
	i, r, ok := p.d.records.reserve(1, p.firstChunk())
	if !ok {
		p.fail(p.i, tooMany)
		r = p.spare[:]
	}
	r[0].kind, r[0].start = k, uint32(start)
	p.n++
	return i, &r[0]
}

// firstChunk is the capacity the first chunk of records and of children
// starts with; appending grows it, a copy each time, up to chunkLen. It
// is one record per 32 bytes of input (a large snapshot has one per 25,
// prose-heavy documents fewer), but a document read a part at a time
// (ParseSharedTo) is read as many small ones, such as the steps of a
// program, about one record per 6 bytes: one per 4, a step's chunk is
// not grown.
func (p *parser) firstChunk() int {
	if p.fold > 0 {
		return len(p.src)/4 + 8
	}
	return len(p.src)/32 + 8
}

// count tallies the value or member name of kind k starting at start; a
// string's record is made at its closing quote (p.i just past it).
func (p *parser) count(k Kind, start int) {
	t := &p.tally
	switch {
	case p.key:
		t.Members++
		t.NameBytes += int64(p.i - start - 2)
	case k == String:
		t.Strings++
		t.StringBytes += int64(p.i - start - 2)
	case k == Number:
		t.Numbers++
	case k == Object:
		t.Objects++
	case k == Array:
		t.Arrays++
	default:
		t.Literals++
	}
}

// close ends the container whose record is i at p.i and gives it the
// children pushed on p.open since base.
func (p *parser) close(i uint32, base int, closing byte) {
	if b := p.values; b != nil {
		var names []string
		if closing == '}' {
			names = make([]string, len(p.open)-base)
			for j, k := range p.open[base:] {
				// A copy: a name without escapes is a view of src, which
				// the values must not keep alive or depend on.
				names[j] = strings.Clone(p.openName(k))
			}
		}
		b.close(closing == '}', names)
	}
	if p.check {
		p.open = p.open[:base]
		return
	}
	r := (Node{p.d, i}).rec()
	r.end = uint32(p.i)
	children := p.open[base:]
	p.open = p.open[:base]
	aux, run, ok := p.d.kids.reserve(len(children)+1, p.firstChunk())
	if !ok {
		p.fail(p.i, tooMany)
		return
	}
	r.aux, run[0] = aux, uint32(len(children))
	copy(run[1:], children)
}

func (p *parser) fail(at int, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
		p.errAt = at
	}
}

func (p *parser) describe(at int) string {
	if at >= len(p.src) {
		return "end of input"
	}
	r, size := utf8.DecodeRune(p.src[at:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("byte 0x%02x", p.src[at])
	}
	return strconv.QuoteRune(r)
}

func (p *parser) skipWS() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses the value at p.i into a record; depth counts the objects
// and arrays enclosing it. It reports false after a syntax error.
func (p *parser) value(depth int) bool {
	if p.i >= len(p.src) {
		p.fail(p.i, "unexpected end of input; expected a value")
		return false
	}
	c := p.src[p.i]
	if (c == '{' || c == '[') && depth >= MaxDepth {
		p.fail(p.i, "nesting deeper than %d levels of objects and arrays", MaxDepth)
		return false
	}
	if (c == '{' || c == '[') && p.fold > 0 && depth >= p.fold && !p.check {
		return p.folded(depth)
	}
	switch {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		_, ok := p.str()
		return ok
	case c == 't':
		return p.literal("true", Bool, flagTrue)
	case c == 'f':
		return p.literal("false", Bool, 0)
	case c == 'n':
		return p.literal("null", Null, 0)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		p.fail(p.i, "unexpected %s; expected a value (object, array, string, number, true, false or null)", p.describe(p.i))
		return false
	}
}

// folded reads the container at p.i as one record, Folded, checking
// what it holds as Check does.
func (p *parser) folded(depth int) bool {
	k := Object
	if p.src[p.i] == '[' {
		k = Array
	}
	i, _ := p.record(k, p.i)
	p.check = true
	ok := p.value(depth)
	p.check = false
	r := (Node{p.d, i}).rec()
	r.end, r.flags = uint32(p.i), flagFolded
	return ok
}

func (p *parser) literal(word string, k Kind, flags uint8) bool {
	if len(p.src)-p.i < len(word) || string(p.src[p.i:p.i+len(word)]) != word {
		p.fail(p.i, "invalid literal; expected %q", word)
		return false
	}
	_, r := p.record(k, p.i)
	r.flags = flags
	if b := p.values; b != nil {
		if k == Null {
			b.push(nil)
		} else {
			b.push(flags&flagTrue != 0)
		}
	}
	p.i += len(word)
	r.end = uint32(p.i)
	return true
}

func (p *parser) number() bool {
	start := p.i
	if p.src[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		s := p.i
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
		}
		return p.i - s
	}
	intStart := p.i
	n := digits()
	if n == 0 {
		p.fail(p.i, "invalid number: expected a digit after '-'")
		return false
	}
	if n > 1 && p.src[intStart] == '0' {
		p.fail(intStart, "invalid number: leading zeros are not allowed")
		return false
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.fail(p.i, "invalid number: expected a digit after '.'")
			return false
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.fail(p.i, "invalid number: expected a digit in the exponent")
			return false
		}
	}
	_, r := p.record(Number, start)
	r.end = uint32(p.i)
	if b := p.values; b != nil {
		b.push(b.number(p.src[start:p.i]))
	}
	return true
}

// str parses a string starting at the opening quote into a record and
// returns its index. A string without escapes is read from the source;
// the others are unescaped into d.strs.
func (p *parser) str() (uint32, bool) {
	start := p.i
	p.i++ // opening quote
	// Fast path: no escapes, valid UTF-8, no control characters.
	j := p.i
	for j < len(p.src) {
		c := p.src[j]
		if c == '"' {
			if utf8.Valid(p.src[p.i:j]) {
				if b := p.values; b != nil && !p.key {
					b.push(string(p.src[p.i:j]))
				}
				p.i = j + 1
				k, r := p.record(String, start)
				r.end = uint32(p.i)
				return k, true
			}
			break
		}
		if c == '\\' || c < 0x20 {
			break
		}
		j++
	}
	// Unescaping never lengthens a string, so the bytes up to the closing
	// quote bound the result: one allocation, no regrowth (guide bodies
	// are long and full of \n).
	for j < len(p.src) && p.src[j] != '"' {
		if p.src[j] == '\\' {
			j++
		}
		j++
	}
	var b strings.Builder
	b.Grow(min(j, len(p.src)) - p.i)
	for {
		if p.i >= len(p.src) {
			p.fail(start, "unterminated string: no closing '\"' before the end of input")
			return 0, false
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			k, r := p.record(String, start)
			r.end, r.flags, r.aux = uint32(p.i), flagEscaped, uint32(len(p.d.strs))
			switch {
			case !p.check:
				p.d.strs = append(p.d.strs, b.String())
			case p.key && !p.scan:
				p.escaped = append(p.escaped, escapedName{uint32(start), b.String()})
			case !p.key && p.values != nil:
				p.values.push(b.String())
			}
			return k, true
		case c < 0x20:
			p.fail(p.i, "control character 0x%02x in string; escape it (\\n, \\t, \\u00XX)", c)
			return 0, false
		case c == '\\':
			if !p.escape(&b) {
				return 0, false
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.src[p.i:])
			if r == utf8.RuneError && size == 1 {
				p.fail(p.i, "invalid UTF-8 byte 0x%02x in string", c)
				return 0, false
			}
			b.WriteRune(r)
			p.i += size
		}
	}
}

func (p *parser) escape(b *strings.Builder) bool {
	at := p.i
	p.i++
	if p.i >= len(p.src) {
		p.fail(at, "unterminated escape sequence")
		return false
	}
	c := p.src[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := p.hex4(at)
		if !ok {
			return false
		}
		if utf16.IsSurrogate(r) {
			// A high surrogate pairs with a following \uDC00-\uDFFF.
			if p.i+1 < len(p.src) && p.src[p.i] == '\\' && p.src[p.i+1] == 'u' {
				save := p.i
				p.i += 2 // past "\u"
				r2, ok := p.hex4(save)
				if !ok {
					return false
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					b.WriteRune(d)
					return true
				}
				p.i = save
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
	default:
		p.fail(at, "invalid escape '\\%c'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", c)
		return false
	}
	return true
}

// hex4 reads the four hex digits of a \u escape; p.i points just after
// the 'u', at is the escape's backslash (where an error is reported).
func (p *parser) hex4(at int) (rune, bool) {
	if len(p.src)-p.i < 4 {
		p.fail(at, "invalid \\u escape: expected four hex digits")
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.src[p.i:p.i+4]), 16, 32)
	if err != nil {
		p.fail(at, "invalid \\u escape: expected four hex digits")
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// object parses an object: its record, then for each member the key's
// record immediately followed by the value's, so that only the keys are
// listed as its children.
func (p *parser) object(depth int) bool {
	idx, base, empty := p.begin(Object, '}')
	if empty {
		return true
	}
	p.tally.FilledObjects++
	var names nameSet
	escaped := len(p.escaped) // the names with escapes before this object's
	for {
		p.skipWS()
		if p.i >= len(p.src) {
			p.fail(p.i, "unexpected end of input: the object has no closing '}'")
			return false
		}
		if p.src[p.i] != '"' {
			p.fail(p.i, "unexpected %s; expected a member name in double quotes", p.describe(p.i))
			return false
		}
		p.key = true
		keyAt := p.i
		key, ok := p.str()
		p.key = false
		keyEnd := p.i
		if !ok {
			return false
		}
		if !p.scan {
			if p.check {
				key = uint32(keyAt) // no record: the name is read from src
			}
			if !p.unique(base, key, keyAt, &names) {
				return false
			}
			// Checking alone, a name in the set need not be listed too.
			if names.slots == nil || !p.check || p.values != nil {
				p.open = append(p.open, key)
			}
		}
		p.skipWS()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			p.fail(p.i, "unexpected %s; expected ':' after member name %s", p.describe(p.i), report.Quote(p.keyName(key, p.src[keyAt:keyEnd])))
			return false
		}
		p.i++
		p.skipWS()
		if !p.value(depth + 1) {
			return false
		}
		if done, ok := p.separator(idx, base, '}', "object", "an object member"); done || !ok {
			clear(p.escaped[escaped:])
			p.escaped = p.escaped[:escaped]
			return ok
		}
	}
}

// keyName is the member name whose record is key and whose text, with
// its quotes, is text. A check keeps no record of it, so the name is
// read again from its text (only for an error's message).
func (p *parser) keyName(key uint32, text []byte) string {
	if !p.check {
		return (Node{p.d, key}).Str()
	}
	d, _ := ParseShared(text)
	return d.Root.Str()
}

// unique reports whether key, a member name just read at offset at,
// differs from the names of its object read before it (p.open[base:]),
// and fails at it otherwise. RFC 8259 §4 lets a parser keep either of
// two members with one name, and readers differ in which they keep
// (encoding/json the last, others the first), so a document that has two
// could mean two things; every reader of this project refuses it at the
// second name (docs/json.md). Up to 16 names are compared in turn; a
// larger object gets a set of its names, names, made on first need.
func (p *parser) unique(base int, key uint32, at int, names *nameSet) bool {
	if p.err != nil {
		return false // the key's record did not fit (tooMany)
	}
	name := p.openName(key)
	prev := p.open[base:]
	dup := false
	switch {
	case names.slots != nil:
		dup = !names.add(p, key, name)
	case len(prev) < 16:
		for _, k := range prev {
			if p.sameName(k, name) {
				dup = true
				break
			}
		}
	default:
		for _, k := range prev {
			names.add(p, k, p.openName(k))
		}
		dup = !names.add(p, key, name)
	}
	if dup {
		p.fail(at, "%s", DuplicateName(name))
		return false
	}
	return true
}

// nameSet is the set of the member names of one object past 16 members
// (unique): an open-addressing table of the names' references (p.open's
// entries), each plus one so that 0 is a free slot, at most three
// quarters full, hashed with a seed of the process's so that no document
// can be written to make its names collide. A name is read from the
// document to compare it, so the set takes 5.3 to 10.7 bytes a name (16
// while it grows), where a map[string]uint32 of them took 30 to 60: a
// string header and a value a slot, at most 7/8 full. serve checks every
// message for names given twice with it (docs/json.md), and an object of
// short names is 6 to 8 bytes a member: at three quarters the set costs
// serve half the memory it did half full, for a few more probes.
type nameSet struct {
	slots []uint32
	n     int
}

// nameSeed seeds the hash of every nameSet.
var nameSeed = maphash.MakeSeed()

// add adds the name of the entry k, whose text is name, and reports
// false when the set holds that name already.
func (s *nameSet) add(p *parser, k uint32, name string) bool {
	if 4*(s.n+1) > 3*len(s.slots) {
		old := s.slots
		s.slots = make([]uint32, max(64, 2*len(old)))
		for _, e := range old {
			if e != 0 {
				i, _ := s.find(p, p.openName(e-1))
				s.slots[i] = e
			}
		}
	}
	i, found := s.find(p, name)
	if !found {
		s.slots[i] = k + 1
		s.n++
	}
	return !found
}

// find is the slot of name, or the free slot where it goes.
func (s *nameSet) find(p *parser, name string) (i uint64, found bool) {
	mask := uint64(len(s.slots) - 1)
	for i = maphash.String(nameSeed, name) & mask; s.slots[i] != 0; i = (i + 1) & mask {
		if p.sameName(s.slots[i]-1, name) {
			return i, true
		}
	}
	return i, false
}

// DuplicateName is the message of an object's second member named name,
// for readers that find it without this parser (replay's stream). It
// names no place of the first: a reader that parses a part of a document
// again (replay) knows positions only in that part.
func DuplicateName(name string) string {
	return "duplicate member name " + report.Quote(name) + "; a member name appears once in an object"
}

// openName is the text of the member name k on p.open: its record when
// building, its offset when checking.
func (p *parser) openName(k uint32) string {
	if !p.check {
		return p.name(k)
	}
	if len(p.escaped) > 0 {
		if i, ok := slices.BinarySearchFunc(p.escaped, k, func(e escapedName, k uint32) int { return cmp.Compare(e.at, k) }); ok {
			return p.escaped[i].name
		}
	}
	name := p.src[k+1:] // without escapes: the name ends at the first quote
	return view(name[:bytes.IndexByte(name, '"')])
}

// sameName reports whether the member name k on p.open is name, the
// name just read. Checking, while no name of the objects open is written
// with escapes (the one just read among them), each is its text up to
// its closing quote, compared in place: no end to find, no search.
func (p *parser) sameName(k uint32, name string) bool {
	if !p.check || len(p.escaped) > 0 {
		return p.openName(k) == name
	}
	text := p.src[k+1:]
	return len(text) > len(name) && text[len(name)] == '"' && string(text[:len(name)]) == name
}

// name is the text of the member name whose record is k, read from the
// source being parsed (d.Src may not be set yet).
func (p *parser) name(k uint32) string {
	r := (Node{p.d, k}).rec()
	if r.flags&flagEscaped != 0 {
		return p.d.strs[r.aux]
	}
	return view(p.src[r.start+1 : r.end-1])
}

func (p *parser) array(depth int) bool {
	idx, base, empty := p.begin(Array, ']')
	if empty {
		return true
	}
	for {
		p.tally.Elements++
		p.skipWS()
		if !p.check {
			p.open = append(p.open, p.n)
		}
		if !p.value(depth + 1) {
			return false
		}
		if done, ok := p.separator(idx, base, ']', "array", "an array element"); done || !ok {
			return ok
		}
	}
}

// begin records the container of kind k at its opening bracket and
// returns its record and the base of its children on p.open; empty
// reports a closing bracket right after the opening one, the container
// closed already.
func (p *parser) begin(k Kind, closing byte) (idx uint32, base int, empty bool) {
	idx, _ = p.record(k, p.i)
	if b := p.values; b != nil {
		b.open()
	}
	p.i++
	p.skipWS()
	base = len(p.open)
	if p.i < len(p.src) && p.src[p.i] == closing {
		p.i++
		p.close(idx, base, closing)
		return idx, base, true
	}
	return idx, base, false
}

// separator reads what follows a member or an element of the container
// idx: a ',' and then not the closing bracket, or the closing bracket,
// which closes the container and sets done. ok is false after a syntax
// error.
func (p *parser) separator(idx uint32, base int, closing byte, container, item string) (done, ok bool) {
	p.skipWS()
	if p.i >= len(p.src) {
		p.fail(p.i, "unexpected end of input: the %s has no closing '%c'", container, closing)
		return false, false
	}
	switch p.src[p.i] {
	case ',':
		comma := p.i
		p.i++
		p.skipWS()
		if p.i < len(p.src) && p.src[p.i] == closing {
			// The error is the comma, so the caret goes under it, not
			// under the closing bracket, which may be lines later.
			p.fail(comma, "trailing comma before '%c'; remove the last ','", closing)
			return false, false
		}
		return false, true
	case closing:
		p.i++
		p.close(idx, base, closing)
		return true, true
	}
	p.fail(p.i, "unexpected %s; expected ',' or '%c' after %s", p.describe(p.i), closing, item)
	return false, false
}
