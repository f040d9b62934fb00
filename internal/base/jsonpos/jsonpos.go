// Package jsonpos parses JSON into a compact tree that remembers where every
// value and every object key starts and ends in the source, so that a
// finding about any value can point at file:line:col and at its JSON Pointer.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// MaxDepth bounds nesting so hostile input cannot exhaust the stack: at
// most MaxDepth objects and arrays may enclose one another, the same limit
// encoding/json applies.
const MaxDepth = 10000

// MaxSize is the largest input the parser accepts: offsets are 32-bit.
// Offsets and indices are 32-bit, so the parser refuses an input larger
// than MaxSize, and one near that size with more children than the
// indices reach, with a SyntaxError instead of wrapping around.
const MaxSize = uint64(math.MaxUint32)

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

// record is one value or object key of the tree.
type record struct {
	// start and end are the byte offsets of the value in the source, end
	// exclusive.
	start, end uint32
	// aux depends on the kind: an Object or an Array has as many
	// children as the kid at aux says, its key records or its elements,
	// in the kids that follow; a String with escapes is strs[aux].
	aux   uint32
	kind  Kind
	flags uint8
}

const (
	// flagTrue is the value of a Bool.
	flagTrue = 1 << iota
	// flagEscaped marks a String whose value is in strs, not in the source.
	flagEscaped
	// flagFolded marks an Object or an Array read without its children
	// (ParseSharedTo).
	flagFolded
)

// chunkShift sets the items per chunk (4096; 64 KB of records, 16 KB
// of kids): large enough that the chunk list stays short, small enough
// that the unused tail of the last chunk costs little next to a document
// that needs several.
const (
	chunkShift = 12
	chunkLen   = 1 << chunkShift
)

// slab holds items in chunks, addressed by one uint32: chunk i>>chunkShift,
// item i&(chunkLen-1). One append-grown slice would copy itself again and
// again on a large document (by a quarter at a time once it is large) and
// keep up to a quarter unused; chunks are never copied but the first,
// which starts small so that a small document costs little and grows to
// chunkLen.
type slab[T any] struct {
	// chunks hold up to chunkLen items, but a run longer than that has a
	// chunk of its own: its items are reached from its start only.
	chunks [][]T
}

// maxChunks is the number of chunks a uint32 index reaches. Records fill
// their chunks and are never more than the input's bytes, so they fit
// below MaxSize; children leave the tails of chunks unused and, near
// MaxSize, could need more.
const maxChunks = 1 << (32 - chunkShift)

// reserve appends a run of n zero items, contiguous in one chunk, and
// returns the index of the first and the run; ok is false when the run
// needs a chunk past maxChunks. first is the capacity the first chunk
// starts with.
func (s *slab[T]) reserve(n, first int) (i uint32, run []T, ok bool) {
	last := len(s.chunks) - 1
	if last < 0 || len(s.chunks[last])+n > chunkLen {
		if len(s.chunks) == maxChunks {
			return 0, nil, false
		}
		size := chunkLen
		if last < 0 {
			size = min(chunkLen, first)
		}
		s.chunks = append(s.chunks, make([]T, 0, max(size, n)))
		last++
	}
	c := &s.chunks[last]
	off := len(*c)
	*c = append(*c, make([]T, n)...)
	return uint32(last<<chunkShift + off), (*c)[off : off+n], true
}

// reset empties s, keeping its first chunk's memory.
func (s *slab[T]) reset() {
	if len(s.chunks) > 0 {
		clear(s.chunks[1:])
		s.chunks = s.chunks[:1]
		s.chunks[0] = s.chunks[0][:0]
	}
}

// run returns the n items from index i, a run that reserve returned.
func (s *slab[T]) run(i uint32, n uint32) []T {
	off := i & (chunkLen - 1)
	return s.chunks[i>>chunkShift][off : off+n]
}

// Doc is a parsed JSON document with its source.
//
// The tree is compact because lint holds the whole tree of a large snapshot
// while its rules run: every value and every object key is one 16-byte
// record with 32-bit offsets; a container's children are a count and the
// children's record indices in one shared slab of indices; records and
// indices are kept in fixed-size chunks (no regrowth copies, no spare
// capacity beyond the last chunk). A string or a number is read from the
// source between its offsets, and only a string with escapes keeps an
// unescaped copy. A value's key is the record just before the value's, so
// an object lists its key records only. That is under one byte of tree per
// byte of input (TestTreeSize), where a tree of pointers and string
// headers took 2.7.
type Doc struct {
	Src []byte
	// Root is the top-level value; the zero Node after a syntax error.
	Root Node

	records slab[record]
	// kids hold each container's children as a run: the count, then the
	// indices of the children's records.
	kids slab[uint32]
	strs []string
	// marks are positions every markEvery bytes, built on the first
	// Position call, so that a position costs a binary search and a short
	// scan even on a megabyte-long minified line.
	marks []Pos
	// keys maps the keys of each object of at least indexFrom members
	// that a lookup has named, built on the first such lookup.
	keys *keyIndex
}

// indexFrom is how many members an object has before a lookup in it
// goes through a map of its keys: below, a scan is as fast; above, a
// finding on every member of a large object (a snapshot's guides of 3000
// Languages) would scan the object once per finding.
const indexFrom = 64

// keyIndex is a Doc's maps of large objects' keys. A lock guards it, since
// a Doc is otherwise read-only and may be read from several goroutines.
type keyIndex struct {
	mu   sync.Mutex
	maps map[uint32]map[string]uint32
}

// Node is one JSON value of a Doc, or the zero Node for none.
//
// A Node is a small value, the document and an index, rather than a
// pointer to a record: a record cannot reach the shared children and
// strings without a pointer to its document in each record, which would
// make it half as large again. The zero Node stands for a value that is
// not there (a missing member, an element out of range) and every accessor
// but Kind, Bool, Start and End accepts it.
type Node struct {
	d *Doc
	i uint32
}

// Member is one object member.
type Member struct {
	Key   string
	Value Node
}

func (n Node) rec() *record { return &n.d.records.run(n.i, 1)[0] }

// Exists reports whether n is a value, not the zero Node.
func (n Node) Exists() bool { return n.d != nil }

// Is reports whether n exists and is of kind k.
func (n Node) Is(k Kind) bool { return n.d != nil && n.rec().kind == k }

// Kind is the JSON type of n, which must exist.
func (n Node) Kind() Kind { return n.rec().kind }

// Bool is the value of a Bool node, which must exist.
func (n Node) Bool() bool { return n.rec().flags&flagTrue != 0 }

// Start is the byte offset of the value in the source.
func (n Node) Start() int { return int(n.rec().start) }

// End is the byte offset just after the value.
func (n Node) End() int { return int(n.rec().end) }

// Str returns the unescaped value of a String node or the literal text of
// a Number node, and "" for other nodes and the zero Node. It copies
// nothing: the text is a view of the source or of the unescaped copy.
func (n Node) Str() string {
	if n.d == nil {
		return ""
	}
	return n.d.str(n.rec())
}

// String returns the value of a String node, and "" otherwise.
func (n Node) String() string {
	if !n.Is(String) {
		return ""
	}
	return n.Str()
}

func (d *Doc) str(r *record) string {
	switch {
	case r.kind == String && r.flags&flagEscaped != 0:
		return d.strs[r.aux]
	case r.kind == String:
		return view(d.Src[r.start+1 : r.end-1])
	case r.kind == Number:
		return view(d.Src[r.start:r.end])
	}
	return ""
}

// view returns b as a string without copying; b must not change while
// the string is in use.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// children returns the key records of an Object or the elements of an
// Array, and nil for other nodes and the zero Node.
func (n Node) children() []uint32 {
	if n.d == nil {
		return nil
	}
	r := n.rec()
	if r.kind != Object && r.kind != Array || r.flags&flagFolded != 0 {
		return nil
	}
	return n.d.kids.run(r.aux, n.d.kids.run(r.aux, 1)[0]+1)[1:]
}

// Folded reports whether n is an Object or an Array that ParseSharedTo
// read without its children: it has none until UnfoldIn.
func (n Node) Folded() bool { return n.d != nil && n.rec().flags&flagFolded != 0 }

// UnfoldIn is the tree of a folded container, built in d as
// ParseSharedTo builds it to fold levels, its root the container; any
// other node is itself. Its strings view the same source. d's tree
// before, and every Node of it, is gone: a reader that unfolds one part
// after another (program.Parse, a step at a time) reuses one Doc's
// memory, where a Doc apiece was 7 allocations a step. d is a new(Doc)
// the first time.
func (n Node) UnfoldIn(d *Doc, fold int) (Node, error) {
	if !n.Folded() {
		return n, nil
	}
	src := n.d.Raw(n)
	d.reset(src)
	if err := parse(d, src, modeBuild, nil, nil, fold); err != nil {
		return Node{}, err
	}
	d.Root = Node{d, 0}
	return d.Root, nil
}

// reset empties d for a tree of src, keeping the first chunk of its
// records and of its children.
func (d *Doc) reset(src []byte) {
	d.Src, d.Root, d.marks = src, Node{}, nil
	d.records.reset()
	d.kids.reset()
	clear(d.strs)
	d.strs = d.strs[:0]
	if d.keys == nil {
		d.keys = &keyIndex{maps: map[uint32]map[string]uint32{}}
	}
	clear(d.keys.maps)
}

// Len is the number of members of an Object or elements of an Array, and
// 0 for other nodes.
func (n Node) Len() int { return len(n.children()) }

// member returns the member whose key record is k.
func (n Node) member(k uint32) Member {
	key := Node{n.d, k}
	return Member{Key: key.Str(), Value: Node{n.d, k + 1}}
}

// Members yields the members of an Object in source order with their
// index; nothing for other nodes.
func (n Node) Members() iter.Seq2[int, Member] {
	return func(yield func(int, Member) bool) {
		if !n.Is(Object) {
			return
		}
		for i, k := range n.children() {
			if !yield(i, n.member(k)) {
				return
			}
		}
	}
}

// Elems yields the elements of an Array with their index; nothing for
// other nodes.
func (n Node) Elems() iter.Seq2[int, Node] {
	return func(yield func(int, Node) bool) {
		if !n.Is(Array) {
			return
		}
		for i, k := range n.children() {
			if !yield(i, Node{n.d, k}) {
				return
			}
		}
	}
}

// lookup returns the key record of the member named key.
func (n Node) lookup(key string) (uint32, bool) {
	if !n.Is(Object) {
		return 0, false
	}
	kids := n.children()
	if len(kids) >= indexFrom {
		k, ok := n.d.keyMap(n.i, kids)[key]
		return k, ok
	}
	for i := len(kids) - 1; i >= 0; i-- {
		if (Node{n.d, kids[i]}).Str() == key {
			return kids[i], true
		}
	}
	return 0, false
}

// keyMap returns the map from key to key record of the object obj, whose
// key records are kids, building it on first use.
func (d *Doc) keyMap(obj uint32, kids []uint32) map[string]uint32 {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	m, ok := d.keys.maps[obj]
	if !ok {
		m = make(map[string]uint32, len(kids))
		for _, k := range kids {
			m[(Node{d, k}).Str()] = k
		}
		d.keys.maps[obj] = m
	}
	return m
}

// Get returns the value of the member named key, or the zero Node when n
// is not an object or has none.
func (n Node) Get(key string) Node {
	if k, ok := n.lookup(key); ok {
		return Node{n.d, k + 1}
	}
	return Node{}
}

// Has reports whether object n has a member named key.
func (n Node) Has(key string) bool {
	_, ok := n.lookup(key)
	return ok
}

// Index returns element i of an array, or the zero Node.
func (n Node) Index(i int) Node {
	if !n.Is(Array) {
		return Node{}
	}
	if kids := n.children(); i >= 0 && i < len(kids) {
		return Node{n.d, kids[i]}
	}
	return Node{}
}

// At resolves an RFC 6901 JSON Pointer below n; the zero Node when it does
// not resolve.
func (n Node) At(pointer string) Node {
	if pointer == "" {
		return n
	}
	if pointer[0] != '/' {
		return Node{}
	}
	cur := n
	for _, tok := range strings.Split(pointer[1:], "/") {
		if cur, _ = cur.child(tok); !cur.Exists() {
			return Node{}
		}
	}
	return cur
}

// child resolves one escaped reference token below n: an object member
// with its key offset, or an array element
// by a decimal index without leading zeros (RFC 6901). keyStart is -1 for
// array elements; the node is the zero Node when the token does not
// resolve.
func (n Node) child(tok string) (c Node, keyStart int) {
	switch {
	case n.Is(Object):
		key, ok := unescapeToken(tok)
		if !ok {
			return Node{}, -1
		}
		if k, ok := n.lookup(key); ok {
			return Node{n.d, k + 1}, (Node{n.d, k}).Start()
		}
	case n.Is(Array):
		if tok == "" || (len(tok) > 1 && tok[0] == '0') {
			return Node{}, -1
		}
		for _, c := range tok {
			if c < '0' || c > '9' {
				return Node{}, -1
			}
		}
		if i, err := strconv.Atoi(tok); err == nil {
			return n.Index(i), -1
		}
	}
	return Node{}, -1
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
func (n Node) Value() any { return n.ValueWith(nil) }

// ValueWith is Value, except that a node for which replace (when non-nil)
// returns ok stands for the value it returns, and its subtree is not
// converted: a caller that checks a large subtree separately leaves it out.
func (n Node) ValueWith(replace func(Node) (any, bool)) any {
	if !n.Exists() {
		return nil
	}
	if replace != nil {
		if v, ok := replace(n); ok {
			return v
		}
	}
	switch n.Kind() {
	case Bool:
		return n.Bool()
	case Number:
		return json.Number(n.Str())
	case String:
		return n.Str()
	case Object:
		m := make(map[string]any, n.Len())
		for _, mem := range n.Members() {
			m[mem.Key] = mem.Value.ValueWith(replace)
		}
		return m
	case Array:
		a := make([]any, n.Len())
		for i, e := range n.Elems() {
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

// Parse parses src. On a syntax error it returns a Doc whose Root is the
// zero Node (the Doc still answers Position) and a *SyntaxError. The Doc
// of a document that parses holds a copy of src, so the tree and its
// strings stay valid whatever becomes of src.
//
// The parser is strict RFC 8259 (no comments, no trailing commas), keeps
// object members in source order, bounds nesting depth, and reports the
// first syntax error at its exact position. It never panics on any input.
// It accepts exactly what encoding/json accepts, except that invalid UTF-8
// is an error at its position (RFC 8259 §8.1) where encoding/json would
// silently replace it with U+FFFD, and so is an object's second member of
// one name, which encoding/json would silently let win (RFC 8259 §4 leaves
// which one counts to the reader, so such a document means different
// things to different readers; docs/json.md). A document that
// starts with a byte order mark or is plainly UTF-16 or UTF-32 (both of
// which encoding/json refuses too) is one error at 1:1 that names the
// encoding and how to fix it (CheckEncoding).
func Parse(src []byte) (*Doc, error) {
	d, err := ParseShared(src)
	if err == nil {
		d.Src = bytes.Clone(src)
	}
	return d, err
}

// ParseShared is Parse for a caller that keeps src unchanged for as long as
// it uses the tree or any string taken from it: the Doc reads src itself
// instead of a copy, and every string without escapes (nearly every key,
// id and number) is a view of it. Changing src afterwards changes those
// strings.
func ParseShared(src []byte) (*Doc, error) { return ParseSharedTo(src, 0) }

// ParseSharedTo is ParseShared building the tree fold levels deep (all
// of it for 0): an object or an array inside fold others is one record,
// Folded, checked as Check checks it, which UnfoldIn builds the tree of
// when it is wanted. A reader that takes a large document a part at a
// time (program.Parse, a step at a time) holds the tree of one part, not
// of the whole: the tree of a program of 20,000 steps is 3.5 MB, three
// bytes a byte. The errors are ParseShared's.
func ParseSharedTo(src []byte, fold int) (*Doc, error) {
	d := &Doc{Src: src, keys: &keyIndex{maps: map[uint32]map[string]uint32{}}}
	if err := parse(d, src, modeBuild, nil, nil, fold); err != nil {
		return d, err
	}
	d.Root = Node{d, 0}
	return d, nil
}

// How parse reads a document.
type mode uint8

const (
	modeBuild mode = iota // the tree (Parse)
	modeCheck             // no tree, names of open objects compared (Check)
	modeScan              // no tree, member names not compared (ScanTally)
)

// parse reads src into d, or with check or scan only checks it (Check,
// ScanTally), and with tally non-nil sets it to the document's Tally,
// with values non-nil builds its values there (Decode); on an error it
// leaves d holding src alone.
func parse(d *Doc, src []byte, m mode, tally *Tally, values *builder, fold int) *SyntaxError {
	if uint64(len(src)) > MaxSize {
		// Position would scan the whole input to say 1:1.
		return &SyntaxError{Pos: Pos{Offset: 0, Line: 1, Column: 1},
			Msg: fmt.Sprintf("the input is %d bytes; at most %d bytes can be parsed, since positions are 32-bit", len(src), MaxSize)}
	}
	if se := CheckEncoding(src); se != nil {
		return se
	}
	p := parser{src: src, d: d, check: m != modeBuild, scan: m == modeScan, values: values, fold: fold}
	p.skipWS()
	p.value(0)
	if p.err == nil {
		p.skipWS()
		if p.i < len(p.src) {
			p.fail(p.i, "unexpected %s after the top-level value; a JSON document holds exactly one value", p.describe(p.i))
		}
	}
	if p.err != nil {
		*d = Doc{Src: src}
		return &SyntaxError{Pos: d.Position(p.errAt), Msg: p.err.Error()}
	}
	if tally != nil {
		*tally = p.tally
	}
	return nil
}

// Check reports what ParseShared would of src, an error at the same
// place or nil, without building the tree: it holds only the offsets of
// the member names of the objects still open (to find a name given
// twice), and a set of them for one past 16 members (5.3 to 10.7 bytes
// a name), so checking a document costs a small part of its size where
// the tree of one made of one-character values is ten bytes a byte.
func Check(src []byte) error {
	_, err := CheckTally(src)
	return err
}

// Tally is what a document holds, counted while checking it: a reader
// that decodes the document into values of its own estimates from it
// what the values will take before it makes them (internal/model/expr).
type Tally struct {
	// Values by kind; Literals are true, false and null.
	Objects, Arrays, Strings, Numbers, Literals int64
	// FilledObjects are the objects with at least one member.
	FilledObjects int64
	// Members are the members of all objects, Elements the elements of
	// all arrays.
	Members, Elements int64
	// StringBytes and NameBytes are the bytes of the strings and of the
	// member names as written between their quotes: escapes are counted
	// as written, so at least the bytes they decode to.
	StringBytes, NameBytes int64
}

// TreeBytes is about what Parse allocates for the tree of a document of
// this tally (TestTreeBytesBoundsParse): a 16-byte record for
// every value and member name; a 4-byte count for every container; for
// every child its 4-byte index in the tree and 20 bytes for the parser's
// stack of open children, which append grows by a quarter at a time once
// large, so that a wide array allocates five times its final size; and
// the unescaped copy of a string with escapes, charged at every string's
// bytes. A reader that holds a tree asks this before it builds one.
func (t Tally) TreeBytes() int64 {
	values := t.Objects + t.Arrays + t.Strings + t.Numbers + t.Literals
	return 16*(values+t.Members) + 4*(t.Objects+t.Arrays) + 24*(t.Elements+t.Members) + t.StringBytes
}

// What a reader may allocate for the tree of a document of n bytes
// before it refuses to build it: 4 bytes a byte and 6 MiB. A tree of
// one-character values takes 20 bytes a byte; real manifests and
// snapshots take 1.3 to 2.2 (TestRealTreesInBudget, and the generated
// Language's snapshot in workbench/emit), and the values lint decodes
// from a tree for JSON Schema take about as much again, so a reader
// within the budget stays under 10 bytes a byte of peak memory over its
// baseline (docs/json.md, "Dense documents").
const (
	TreePerByte = 4
	TreeSlack   = 6 << 20
)

// TreeBudget is what a reader may allocate for the tree of a document of
// n bytes.
func TreeBudget(n int) int64 { return TreePerByte*int64(n) + TreeSlack }

// BudgetError is a document whose tree would take more than TreeBudget.
type BudgetError struct {
	// Values counts the values and member names, Tree and Budget are
	// TreeBytes and TreeBudget, all of the document.
	Values, Tree, Budget int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the document's %d values and member names would take about %d bytes as a tree, over the budget of %d bytes a byte plus %d MiB (%d bytes)",
		e.Values, e.Tree, TreePerByte, TreeSlack>>20, e.Budget)
}

// CheckBudget checks src without building its tree: a *SyntaxError as
// Parse would give it, a *BudgetError when its tree would take more than
// TreeBudget, or nil for a document Parse may read. A reader that holds
// a tree asks this first, so that neither a malformed document nor a
// dense one is built before it is refused.
func CheckBudget(src []byte) error { return CheckBudgetOf(src, len(src)) }

// CheckBudgetOf is CheckBudget for a document charged as size bytes:
// one written compactly in place of the indented file a reader would
// otherwise hold it as (lint of a PDL build's snapshot).
func CheckBudgetOf(src []byte, size int) error {
	t, err := CheckTally(src)
	if err != nil {
		return err
	}
	return t.OverBudget(size)
}

// ScanTally is CheckTally for a part of a document already checked
// whole (serve's guard tallies the arguments and _meta of a message it
// checked, workbench/mcpserver): the same syntax errors and tally, except
// that member names are neither held nor compared, so that nothing is
// allocated per value or member; only a string with escapes is
// unescaped, into a buffer dropped at once. A name given twice is not
// found.
func ScanTally(src []byte) (Tally, error) {
	var t Tally
	if err := parse(&Doc{Src: src}, src, modeScan, &t, nil, 0); err != nil {
		return Tally{}, err
	}
	return t, nil
}

// OverBudget is a *BudgetError when a document of size bytes that tallied
// t would take more than TreeBudget(size) as a tree, nil otherwise.
func (t Tally) OverBudget(size int) error {
	tree, budget := t.TreeBytes(), TreeBudget(size)
	if tree <= budget {
		return nil
	}
	return &BudgetError{Values: t.Objects + t.Arrays + t.Strings + t.Numbers + t.Literals + t.Members, Tree: tree, Budget: budget}
}

// CheckTally is Check that also tallies the document; the tally of a
// document with an error is the zero Tally.
func CheckTally(src []byte) (Tally, error) {
	d := &Doc{Src: src}
	var t Tally
	if err := parse(d, src, modeCheck, &t, nil, 0); err != nil {
		return Tally{}, err
	}
	return t, nil
}

// Decode checks src as Check does and makes the Go values encoding/json's
// Unmarshal into an any would (map[string]any, []any, string, bool, nil),
// but for numbers, which are what number makes of their text. Nothing in
// them refers to src. Each slice and map is made once at its final size,
// where Unmarshal grows a slice by appending: a quarter at a time once
// large, so that a wide array allocates five times its final size and may
// keep a fifth of it unused. The values of the containers still open wait
// on a stack sized from the document's tally, taken by a first pass, so
// the stack is never grown either (TestDecodeAllocates).
func Decode(src []byte, number func(text []byte) any) (any, error) {
	t, err := CheckTally(src)
	if err != nil {
		return nil, err
	}
	// Every value but the root waits as an element or a member's value.
	b := &builder{number: number, vals: make([]any, 0, t.Elements+t.Members+1)}
	if err := parse(&Doc{Src: src}, src, modeCheck, nil, b, 0); err != nil {
		return nil, err
	}
	return b.vals[0], nil
}

// CheckEncoding returns the error of a document whose first bytes (four
// are enough) show it is not plain UTF-8, or nil. JSON exchanged between
// systems must be UTF-8 without a byte order mark (RFC 8259 §8.1). A
// parser may ignore a UTF-8 mark, but encoding/json refuses it, so a
// manifest or snapshot served with one breaks Go clients: lint reports it
// rather than accept what a client would not. Parsed byte by byte, such a
// document would get "unexpected '\ufeff'" or "unexpected byte 0xff",
// which do not say what is wrong; the encoding is named as PDL names it
// (internal/base/textenc). Replay asks this of a trace's first bytes before its
// decoder reads them, so the two commands say the same of the same file.
func CheckEncoding(head []byte) *SyntaxError {
	enc := textenc.Sniff(head)
	var msg string
	switch {
	case enc.UTF8WithBOM():
		msg = "the file " + enc.Shows + ", which JSON exchanged between systems must not carry (RFC 8259 §8.1) and Go's encoding/json refuses: save it as UTF-8 without BOM"
	case enc.Foreign():
		msg = "the file " + enc.Shows + "; JSON exchanged between systems must be UTF-8 (RFC 8259 §8.1): " + enc.Convert()
	default:
		return nil
	}
	return &SyntaxError{Pos: Pos{Offset: 0, Line: 1, Column: 1}, Msg: msg}
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
		case (c == '\n' || c == '\r') && textpos.LineEnd(src, p.Offset) == 1:
			// LF, the LF of CR LF (the CR is the line's last
			// character) or a lone CR.
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
func (d *Doc) Raw(n Node) []byte { return d.Src[n.Start():n.End()] }

// Text returns the source text of n as a string, a view of Src: a map
// keyed by the text of large values then costs no copy of them.
func (d *Doc) Text(n Node) string { return view(d.Raw(n)) }

// Locate returns the position of the value at pointer, falling back to the
// deepest existing ancestor when the pointer does not resolve (a missing
// member is reported where its parent object starts). With key true and a
// pointer naming an object member, it returns the member's key position.
// The string is the part of pointer that resolved.
func (d *Doc) Locate(pointer string, key bool) (Pos, string) {
	if !d.Root.Exists() {
		return d.Position(0), ""
	}
	return d.Root.Locate(pointer, key)
}

// Locate is Doc.Locate for a pointer below n.
func (n Node) Locate(pointer string, key bool) (Pos, string) {
	var tokens []string
	if pointer != "" && pointer[0] == '/' {
		tokens = strings.Split(pointer[1:], "/")
	}
	cur := n
	// The resolved part is a prefix of pointer, sliced rather than built:
	// a token may be a megabyte long.
	resolved := 0
	for i, tok := range tokens {
		next, keyAt := cur.child(tok)
		if !next.Exists() {
			return n.d.Position(cur.Start()), pointer[:resolved]
		}
		resolved += 1 + len(tok)
		if key && keyAt >= 0 && i == len(tokens)-1 {
			return n.d.Position(keyAt), pointer[:resolved]
		}
		cur = next
	}
	return n.d.Position(cur.Start()), pointer[:resolved]
}
