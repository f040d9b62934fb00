// Package jsonpos parses JSON into a tree that remembers where every value
// and every object key starts and ends in the source, so that a finding
// about any value can point at file:line:col and at its JSON Pointer.
//
// The parser is strict RFC 8259 (no comments, no trailing commas), keeps
// object members in source order including duplicates, bounds nesting depth,
// and reports the first syntax error at its exact position. It never panics
// on any input. It accepts exactly what encoding/json accepts, except that
// invalid UTF-8 is an error at its position (RFC 8259 §8.1) where
// encoding/json would silently replace it with U+FFFD.
package jsonpos

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth bounds nesting so hostile input cannot exhaust the stack: at
// most MaxDepth objects and arrays may enclose one another, the same limit
// encoding/json applies.
const MaxDepth = 10000

// Kind is the JSON type of a node.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{"null", "boolean", "number", "string", "object", "array"}

func (k Kind) String() string { return kindNames[k] }

// Node is one JSON value with its source extent. A large document is
// mostly nodes, so the two one-byte fields come last, where they share one
// word (88 bytes a node instead of 96).
type Node struct {
	// Start and End are the byte offsets of the value in the source,
	// End exclusive.
	Start, End int
	// Str is the unescaped string of a String node, or the literal text of
	// a Number node.
	Str string
	// Members are an Object's members in source order, duplicates kept.
	Members []Member
	// Elems are an Array's elements.
	Elems []*Node
	Kind  Kind
	// Bool is the value of a Bool node.
	Bool bool
}

// Member is one object member.
type Member struct {
	Key string
	// KeyStart is the byte offset of the key's opening quote.
	KeyStart int
	Value    *Node
}

// Get returns the value of the last member named key (the member
// encoding/json would keep), or nil when n is not an object or has none.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// Has reports whether object n has a member named key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// Index returns element i of an array, or nil.
func (n *Node) Index(i int) *Node {
	if n == nil || n.Kind != Array || i < 0 || i >= len(n.Elems) {
		return nil
	}
	return n.Elems[i]
}

// Is reports whether n is non-nil and of kind k.
func (n *Node) Is(k Kind) bool { return n != nil && n.Kind == k }

// String returns the string value of a String node, and "" otherwise.
func (n *Node) String() string {
	if n == nil || n.Kind != String {
		return ""
	}
	return n.Str
}

// At resolves an RFC 6901 JSON Pointer below n; nil when it does not
// resolve.
func (n *Node) At(pointer string) *Node {
	if pointer == "" {
		return n
	}
	if pointer[0] != '/' {
		return nil
	}
	cur := n
	for _, tok := range strings.Split(pointer[1:], "/") {
		if cur, _ = cur.child(tok); cur == nil {
			return nil
		}
	}
	return cur
}

// child resolves one escaped reference token below n: an object member
// (the last of duplicates, as Get) with its key offset, or an array element
// by a decimal index without leading zeros (RFC 6901). keyStart is -1 for
// array elements; the node is nil when the token does not resolve.
func (n *Node) child(tok string) (c *Node, keyStart int) {
	if n == nil {
		return nil, -1
	}
	switch n.Kind {
	case Object:
		key, ok := unescapeToken(tok)
		if !ok {
			return nil, -1
		}
		for i := len(n.Members) - 1; i >= 0; i-- {
			if n.Members[i].Key == key {
				return n.Members[i].Value, n.Members[i].KeyStart
			}
		}
	case Array:
		if tok == "" || (len(tok) > 1 && tok[0] == '0') {
			return nil, -1
		}
		for _, c := range tok {
			if c < '0' || c > '9' {
				return nil, -1
			}
		}
		if i, err := strconv.Atoi(tok); err == nil {
			return n.Index(i), -1
		}
	}
	return nil, -1
}

var tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// unescapeToken undoes RFC 6901 escaping; ok is false for a '~' not
// followed by '0' or '1', which makes the pointer malformed.
func unescapeToken(t string) (string, bool) {
	i := strings.IndexByte(t, '~')
	if i < 0 {
		return t, true
	}
	for ; i < len(t); i++ {
		if t[i] == '~' && (i+1 == len(t) || (t[i+1] != '0' && t[i+1] != '1')) {
			return "", false
		}
	}
	return tokenUnescaper.Replace(t), true
}

// Value converts the tree to the plain Go values encoding/json would give
// with UseNumber: map[string]any, []any, json.Number, string, bool, nil.
// This is the form JSON Schema validation takes.
func (n *Node) Value() any { return n.ValueWith(nil) }

// ValueWith is Value, except that a node for which replace (when non-nil)
// returns ok stands for the value it returns, and its subtree is not
// converted: a caller that checks a large subtree separately leaves it out.
func (n *Node) ValueWith(replace func(*Node) (any, bool)) any {
	if n == nil {
		return nil
	}
	if replace != nil {
		if v, ok := replace(n); ok {
			return v
		}
	}
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Str)
	case String:
		return n.Str
	case Object:
		m := make(map[string]any, len(n.Members))
		for _, mem := range n.Members {
			m[mem.Key] = mem.Value.ValueWith(replace)
		}
		return m
	case Array:
		a := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			a[i] = e.ValueWith(replace)
		}
		return a
	}
	return nil
}

// Pos is a source position: byte offset and 1-based line and column.
// Columns count Unicode characters, as editors do.
type Pos struct {
	Offset int
	Line   int
	Column int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// Doc is a parsed JSON document with its source.
type Doc struct {
	Src  []byte
	Root *Node
	// shared is set by ParseShared: strings may be views of Src.
	shared bool
	// marks are positions every markEvery bytes, built on the first
	// Position call, so that a position costs a binary search and a short
	// scan even on a megabyte-long minified line.
	marks []Pos
}

// markEvery is the distance between two marks: small enough that the scan
// from a mark is cheap, large enough that marks cost little memory.
const markEvery = 512

// SyntaxError is a JSON syntax error at a position.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

// Parse parses src. On a syntax error it returns a Doc whose Root is nil
// (the Doc still answers Position) and a *SyntaxError. The tree's strings
// are copies, so they stay valid whatever becomes of src.
func Parse(src []byte) (*Doc, error) { return parse(src, false) }

// ParseShared is Parse for a caller that keeps src unchanged for as long as
// it uses the tree or any string taken from it: every string without
// escapes (nearly every key, id and number) shares src's memory instead of
// being copied, which saves most of the tree's string bytes on a large
// document. Changing src afterwards changes those strings.
func ParseShared(src []byte) (*Doc, error) { return parse(src, true) }

func parse(src []byte, shared bool) (*Doc, error) {
	d := &Doc{Src: src, shared: shared}
	p := parser{src: src, shared: shared}
	p.skipWS()
	root := p.value(0)
	if p.err == nil {
		p.skipWS()
		if p.i < len(p.src) {
			p.fail(p.i, "unexpected %s after the top-level value; a JSON document holds exactly one value", p.describe(p.i))
		}
	}
	if p.err != nil {
		return d, &SyntaxError{Pos: d.Position(p.errAt), Msg: p.err.Error()}
	}
	d.Root = root
	return d, nil
}

// Position converts a byte offset into a line and column. The column
// counts characters (utf8.RuneCount of the line up to the offset; an
// invalid byte counts as one).
func (d *Doc) Position(offset int) Pos {
	if d.marks == nil {
		d.marks = []Pos{{Offset: 0, Line: 1, Column: 1}}
		scan(d.Src, d.marks[0], len(d.Src), &d.marks)
	}
	offset = min(max(offset, 0), len(d.Src))
	// The last mark at or before offset, then scan to it.
	i := sort.Search(len(d.marks), func(i int) bool { return d.marks[i].Offset > offset }) - 1
	return scan(d.Src, d.marks[i], offset, nil)
}

// scan walks src from p, a character boundary, to offset, counting lines
// and characters; with marks non-nil it appends a mark at the first
// character start markEvery bytes after the previous mark. Decoding is
// limited to src[:offset], so a character cut by offset counts byte by
// byte, exactly as utf8.RuneCount of the line prefix would.
func scan(src []byte, p Pos, offset int, marks *[]Pos) Pos {
	next := p.Offset + markEvery
	for p.Offset < offset {
		if marks != nil && p.Offset >= next {
			*marks = append(*marks, p)
			next = p.Offset + markEvery
		}
		c := src[p.Offset]
		switch {
		case c == '\n':
			p.Line++
			p.Column = 1
			p.Offset++
			continue
		case c < utf8.RuneSelf:
			p.Offset++
		default:
			_, size := utf8.DecodeRune(src[p.Offset:offset])
			p.Offset += size
		}
		p.Column++
	}
	return p
}

// Raw returns the source bytes of n.
func (d *Doc) Raw(n *Node) []byte { return d.Src[n.Start:n.End] }

// Text returns the source text of n as a string, a view of Src for a
// document from ParseShared and a copy otherwise: a map keyed by the text
// of large values then costs no copy of them.
func (d *Doc) Text(n *Node) string {
	p := parser{shared: d.shared}
	return p.text(d.Raw(n))
}

// Locate returns the position of the value at pointer, falling back to the
// deepest existing ancestor when the pointer does not resolve (a missing
// member is reported where its parent object starts). With key true and a
// pointer naming an object member, it returns the member's key position.
func (d *Doc) Locate(pointer string, key bool) (Pos, string) {
	if d.Root == nil {
		return d.Position(0), ""
	}
	var tokens []string
	if pointer != "" && pointer[0] == '/' {
		tokens = strings.Split(pointer[1:], "/")
	}
	cur := d.Root
	resolved := ""
	for i, tok := range tokens {
		next, keyAt := cur.child(tok)
		if next == nil {
			return d.Position(cur.Start), resolved
		}
		resolved += "/" + tok
		if key && keyAt >= 0 && i == len(tokens)-1 {
			return d.Position(keyAt), resolved
		}
		cur = next
	}
	return d.Position(cur.Start), resolved
}

type parser struct {
	src []byte
	// shared makes strings views of src (ParseShared).
	shared bool
	i      int
	err    error
	errAt  int
	// slab hands out nodes from blocks, one allocation per nodeBlock nodes
	// instead of one per value: parsing a large catalog is mostly nodes.
	slab []Node
	// members and elems are stacks where containers collect their
	// children before copying them out at their exact length, into
	// memberSlab and elemSlab: blocks again, so that a document's many
	// small objects cost neither one allocation each nor the rounding up
	// to a size class.
	members    []Member
	elems      []*Node
	memberSlab []Member
	elemSlab   []*Node
}

const (
	nodeBlock   = 256
	memberBlock = 1024
	elemBlock   = 1024
)

// carve copies stack[base:] into the front of *slab, taking a new block
// of at least block items when the slab is short, and returns the copy
// with its capacity cut to its length, so that an append by a caller
// reallocates instead of overwriting the next container's items.
func carve[T any](slab *[]T, stack []T, base, block int) []T {
	n := len(stack) - base
	if len(*slab) < n {
		*slab = make([]T, max(n, block))
	}
	out := (*slab)[:n:n]
	copy(out, stack[base:])
	*slab = (*slab)[n:]
	return out
}

// text returns b as a string: a copy, or with p.shared a view of src.
func (p *parser) text(b []byte) string {
	if p.shared && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// node returns a fresh node of kind k starting at start.
func (p *parser) node(k Kind, start int) *Node {
	if len(p.slab) == 0 {
		p.slab = make([]Node, nodeBlock)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.Kind, n.Start = k, start
	return n
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

// value parses the value at p.i; depth counts the objects and arrays
// enclosing it.
func (p *parser) value(depth int) *Node {
	if p.i >= len(p.src) {
		p.fail(p.i, "unexpected end of input; expected a value")
		return nil
	}
	start := p.i
	c := p.src[p.i]
	if (c == '{' || c == '[') && depth >= MaxDepth {
		p.fail(p.i, "nesting deeper than %d levels of objects and arrays", MaxDepth)
		return nil
	}
	switch {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil
		}
		n := p.node(String, start)
		n.End, n.Str = p.i, s
		return n
	case c == 't':
		return p.literal("true", Bool, true)
	case c == 'f':
		return p.literal("false", Bool, false)
	case c == 'n':
		return p.literal("null", Null, false)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		p.fail(p.i, "unexpected %s; expected a value (object, array, string, number, true, false or null)", p.describe(p.i))
		return nil
	}
}

func (p *parser) literal(word string, k Kind, b bool) *Node {
	if len(p.src)-p.i < len(word) || string(p.src[p.i:p.i+len(word)]) != word {
		p.fail(p.i, "invalid literal; expected %q", word)
		return nil
	}
	n := p.node(k, p.i)
	n.Bool = b
	p.i += len(word)
	n.End = p.i
	return n
}

func (p *parser) number() *Node {
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
		return nil
	}
	if n > 1 && p.src[intStart] == '0' {
		p.fail(intStart, "invalid number: leading zeros are not allowed")
		return nil
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.fail(p.i, "invalid number: expected a digit after '.'")
			return nil
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.fail(p.i, "invalid number: expected a digit in the exponent")
			return nil
		}
	}
	num := p.node(Number, start)
	num.End, num.Str = p.i, p.text(p.src[start:p.i])
	return num
}

// str parses a string starting at the opening quote and returns its
// unescaped value.
func (p *parser) str() (string, bool) {
	start := p.i
	p.i++ // opening quote
	// Fast path: no escapes, valid UTF-8, no control characters.
	j := p.i
	for j < len(p.src) {
		c := p.src[j]
		if c == '"' {
			s := p.src[p.i:j]
			if utf8.Valid(s) {
				p.i = j + 1
				return p.text(s), true
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
			return "", false
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c < 0x20:
			p.fail(p.i, "control character 0x%02x in string; escape it (\\n, \\t, \\u00XX)", c)
			return "", false
		case c == '\\':
			if !p.escape(&b) {
				return "", false
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.src[p.i:])
			if r == utf8.RuneError && size == 1 {
				p.fail(p.i, "invalid UTF-8 byte 0x%02x in string", c)
				return "", false
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

func (p *parser) object(depth int) *Node {
	n := p.node(Object, p.i)
	p.i++ // {
	p.skipWS()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		n.End = p.i
		return n
	}
	base := len(p.members)
	for {
		p.skipWS()
		if p.i >= len(p.src) {
			p.fail(p.i, "unexpected end of input: the object has no closing '}'")
			return nil
		}
		if p.src[p.i] != '"' {
			p.fail(p.i, "unexpected %s; expected a member name in double quotes", p.describe(p.i))
			return nil
		}
		keyStart := p.i
		key, ok := p.str()
		if !ok {
			return nil
		}
		p.skipWS()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			p.fail(p.i, "unexpected %s; expected ':' after member name %q", p.describe(p.i), key)
			return nil
		}
		p.i++
		p.skipWS()
		v := p.value(depth + 1)
		if v == nil {
			return nil
		}
		p.members = append(p.members, Member{Key: key, KeyStart: keyStart, Value: v})
		p.skipWS()
		if p.i >= len(p.src) {
			p.fail(p.i, "unexpected end of input: the object has no closing '}'")
			return nil
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			p.skipWS()
			if p.i < len(p.src) && p.src[p.i] == '}' {
				p.fail(p.i, "trailing comma before '}'; remove the last ','")
				return nil
			}
		case '}':
			p.i++
			n.End = p.i
			n.Members = carve(&p.memberSlab, p.members, base, memberBlock)
			p.members = p.members[:base]
			return n
		default:
			p.fail(p.i, "unexpected %s; expected ',' or '}' after an object member", p.describe(p.i))
			return nil
		}
	}
}

func (p *parser) array(depth int) *Node {
	n := p.node(Array, p.i)
	p.i++ // [
	p.skipWS()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		n.End = p.i
		return n
	}
	base := len(p.elems)
	for {
		p.skipWS()
		v := p.value(depth + 1)
		if v == nil {
			return nil
		}
		p.elems = append(p.elems, v)
		p.skipWS()
		if p.i >= len(p.src) {
			p.fail(p.i, "unexpected end of input: the array has no closing ']'")
			return nil
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			p.skipWS()
			if p.i < len(p.src) && p.src[p.i] == ']' {
				p.fail(p.i, "trailing comma before ']'; remove the last ','")
				return nil
			}
		case ']':
			p.i++
			n.End = p.i
			n.Elems = carve(&p.elemSlab, p.elems, base, elemBlock)
			p.elems = p.elems[:base]
			return n
		default:
			p.fail(p.i, "unexpected %s; expected ',' or ']' after an array element", p.describe(p.i))
			return nil
		}
	}
}
