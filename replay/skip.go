package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// The decoder reads a token in about 0.4 µs, so a value the walk does not
// need, or an array of values that cannot be steps, took seconds for a
// few megabytes when read token by token: 16 MiB of one-character
// values, 2.5 to 12 s of CPU. Such values are found by their brackets and
// quotes at byte level instead, checked whole by jsonpos, which every
// reader of the project checks JSON with (syntax, UTF-8, member names
// given twice, nesting), and a new decoder takes over after them
// (resumeAt).

// Byte-level paths of the walk, variables so that the tests can put back
// the decoder's token-at-a-time reading they replaced and hold the two
// to the same findings (TestByteLevelLikeTokens).
var (
	skipRest  = (*walker).skipBytes
	others    = (*walker).otherElements
	readSmall = (*walker).smallBytes
)

// skipBytes skips the rest of a value whose first token t was read after
// offset prev: an object or array is found at byte level and checked by
// jsonpos, and a new decoder reads on after it; any other value is whole
// in its token. A value that is not JSON is the file's syntax error,
// placed and worded by failAt from prev, as when it was read token by
// token.
func (w *walker) skipBytes(t json.Token, prev int64) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	end, err := w.checkValue(w.pr.valueStart(prev, true), prev)
	if err != nil {
		return err
	}
	w.resumeAt(end)
	return nil
}

// checkValue finds the end of the value whose first byte is at start,
// read after offset prev, at byte level, and checks it (checkSpan); a
// value that is not JSON is the file's syntax error, placed and worded
// by failAt from prev as when the decoder read it.
func (w *walker) checkValue(start, prev int64) (end int64, err error) {
	end, whole := w.pr.valueEnd(start)
	if !whole {
		return 0, w.failAt(io.ErrUnexpectedEOF, prev)
	}
	if err := w.checkSpan(start, end, true); err != nil {
		return 0, w.failAt(err, prev)
	}
	return end, nil
}

// errNoValue stands for a member name not followed by ':' and a value;
// failAt gives jsonpos's message.
var errNoValue = errors.New("no value after the member name")

// quoteBytes is how much of a member's JSON text smallBytes keeps when
// it does not keep it whole: a finding quotes at most its first 120
// bytes (clip), and a 121st tells clip that more followed.
const quoteBytes = 121

// wholeKind is, for each member smallBytes reads, the first byte of the
// values it keeps whole however long: those that replay reads and whose
// every byte counts. A run_id or catalog_version has no bound in the
// specification, and replay compares every byte of a string one (the
// trace's run_id with the response's, a catalog_version with the
// plan's), so such a string is kept, decoded once (located.str);
// findings carry it clipped. An outcome is decoded
// (outcomeOf), its error handed on in TraceSeen. Any other value, a
// level or a mode (closed sets of words of at most 9 letters, 56 bytes
// written with \u escapes) or a value of the wrong type, is read by
// replay only to be quoted when it is not what it should be, so past
// quoteBytes it is checked and not kept.
var wholeKind = map[string]byte{"run_id": '"', "catalog_version": '"', "outcome": '{'}

// smallBytes reads the value of a member whose name was read after
// offset prev, and which the checks read (run_id, level, outcome, mode,
// catalog_version). The decoder read it whole into a json.RawMessage
// (small), decoded it again for the checks, and grew its buffer to hold
// it: 16 MiB of a level took 9 bytes a byte (docs/performance.md,
// "Hostile inputs"). A value longer than quoteBytes is now read at byte
// level: checked as jsonpos checks it in the document (checkValue), and
// kept whole when it starts with keep, else only its first quoteBytes
// (located.cut). A shorter one, every value of a trace replay accepts
// but a long run_id, catalog_version or outcome, is still the decoder's,
// which reads on where it is at no cost, where a new decoder after it
// (resumeAt) cost a trace of 780 bytes 5 – 14% of its replay
// (BenchmarkMembers).
func (w *walker) smallBytes(ptr string, keep byte) (*located, error) {
	prev := w.offset()
	// The decoder stops after the member name; the ':' is the walk's
	// to pass. Anything else there is the syntax error failAt finds.
	at, c, ok := w.pr.next(prev)
	if ok && c == ':' {
		at, _, ok = w.pr.next(at + 1)
	}
	if !ok || c != ':' {
		return nil, w.failAt(errNoValue, prev)
	}
	if w.pr.endsWithin(at, quoteBytes) {
		return w.small(ptr)
	}
	end, err := w.checkValue(at, prev)
	if err != nil {
		return nil, err
	}
	raw := w.pr.bytes(at, end)
	l := &located{}
	if keep == '"' && raw[0] == '"' {
		// The findings read a long string kept whole as its value,
		// never as JSON text: decoded now, once, it is held once.
		var s string
		_ = json.Unmarshal(raw, &s) // a string: checkValue checked it
		l.str = &s
	}
	if l.cut = raw[0] != keep || l.str != nil; l.cut {
		raw = raw[:quoteBytes]
	}
	l.raw = bytes.Clone(raw)
	pos := w.pr.position(at)
	l.site = site{ptr, pos.Line, pos.Column}
	w.resumeAt(end)
	return l, nil
}

// endsWithin reports whether the value whose first byte is at off ends,
// by its brackets and quotes, within n bytes, reading on as needed.
func (p *posReader) endsWithin(off int64, n int) bool {
	p.readTo(off + int64(n))
	var s scan
	return s.step(p.bytes(off, off+int64(n))) >= 0
}

// checkSpan checks the held bytes from start to end, one value or (one
// false) elements of an array with their commas, as jsonpos would in the
// document: their syntax and member names (jsonpos.Check, of the value
// or of the elements in brackets), UTF-8 and their nesting inside
// w.open.
func (w *walker) checkSpan(start, end int64, one bool) error {
	raw := w.pr.bytes(start, end)
	switch {
	case w.tooDeep(raw):
		return errTooDeep
	case w.pr.badBefore(end):
		return errNotUTF8
	case one:
		return jsonpos.Check(raw)
	}
	w.scratch = append(append(append(w.scratch[:0], '['), raw...), ']')
	return jsonpos.Check(w.scratch)
}

// resumeAt hands the file from off on, just past a value inside the
// objects and arrays of w.open, to a new decoder. A json.Decoder cannot
// be moved on, and keeps its place in the nesting to itself, so the new
// one first reads a prefix that opens w.open and ends a value in the
// innermost, "[" or `{"":` for each enclosing one and `[[]` or `{"":[]`
// for the innermost; none of its tokens needs a byte after it to end,
// so none is read from the file. w.shift then maps the new decoder's
// offsets to the file's.
func (w *walker) resumeAt(off int64) {
	var b strings.Builder
	tokens := opening(&b, w.open[:len(w.open)-1])
	if w.open[len(w.open)-1] == '{' {
		b.WriteString(`{"":[]`)
		tokens += 4
	} else {
		b.WriteString(`[[]`)
		tokens += 3
	}
	prefix := b.String()
	w.pr.given = off
	dec := json.NewDecoder(io.MultiReader(strings.NewReader(prefix), w.pr))
	dec.UseNumber()
	for range tokens {
		_, _ = dec.Token() // JSON, and whole in the prefix
	}
	w.dec, w.shift = dec, off-int64(len(prefix))
}

// elements is an array being walked (walker.array): its pointer, what
// each element decodes into and what it is handed to.
type elements struct {
	ptr    string
	target func(i int) any
	done   func(raw []byte, at site, bad error)
	// count, when set, takes n elements in a row that do not decode
	// into a target, the first at at, in place of done, when all done
	// would do is count them, and reports whether it did.
	count func(n int, at site) bool
	// objects makes an object without a string id one of the others
	// (steps): it decodes into an entry without id or with an error,
	// which the checker counts as it counts a value that is not a step
	// (noID).
	objects bool
	// bad holds the errors decoding a number, a string, a boolean, an
	// array and null into a target give, each found when first needed
	// (decode, found).
	bad   [5]error
	found [5]bool
}

// span is a value's bytes in the file, from its first byte to just past
// its last.
type span struct{ from, end int64 }

// chunk is about how many bytes of elements otherElements checks at once:
// what it holds beyond the element being handed on.
const chunk = 64 << 10

// otherElements hands on the elements of a's array from the i-th on,
// the one after prev, while they are numbers, strings, booleans, arrays,
// null or {}: none decodes into a step or a diagnostic with anything in
// it, so each is handed to a.done with the error decoding it would give,
// if any, without the decoder, or counted in a row by a.count. They are
// found by brackets and quotes and checked a chunk at a time (checkSpan)
// before any of the chunk is handed on. It returns how many it handed on
// and where the last ends (prev when none), from where a new decoder
// reads on. A chunk that is not JSON is left to the decoder, which finds
// the error where it always did, and fast is then false: the rest of the
// array is read by the decoder.
func (w *walker) otherElements(a *elements, i int, prev int64) (n int, end int64, fast bool) {
	end, fast = prev, true
	for more := true; more; {
		w.spans, more = w.pr.otherSpans(w.spans[:0], end, i+n > 0, a.objects)
		if len(w.spans) == 0 {
			break
		}
		last := w.spans[len(w.spans)-1].end
		if w.checkSpan(w.spans[0].from, last, len(w.spans) == 1) != nil {
			fast = false
			break
		}
		if a.count != nil && a.count(len(w.spans), w.site(a.ptr, i+n, w.spans[0].from)) {
			n += len(w.spans)
			w.pr.advance(last)
		} else {
			for _, s := range w.spans {
				bad := a.decode(w.pr.bytes(s.from, s.end), i+n)
				a.done(w.pr.bytes(s.from, s.end), w.site(a.ptr, i+n, s.from), bad)
				n++
			}
		}
		end = last
	}
	if n > 0 {
		w.resumeAt(end)
	}
	return n, end, fast
}

// site is the place of element i of the array at ptr, which starts at
// offset from.
func (w *walker) site(ptr string, i int, from int64) site {
	p := w.pr.position(from)
	return site{ptr + "/" + strconv.Itoa(i), p.Line, p.Column}
}

// decode decodes raw, element i, into a.target(i) as the decoder would
// and returns the error it gives, if any: a number, string, boolean,
// array or null gives the same of every value of its kind (cannot
// unmarshal number into Go value of type …, nothing for null), found
// once; an object is decoded.
func (a *elements) decode(raw []byte, i int) error {
	if raw[0] == '{' {
		return json.Unmarshal(raw, a.target(i))
	}
	kind := strings.IndexByte(`"t[n`, raw[0]) + 1 // 0 for a number
	if raw[0] == 'f' {
		kind = 2
	}
	if !a.found[kind] {
		// A value of another kind leaves the target as it was.
		a.bad[kind] = json.Unmarshal([]byte([]string{"0", `""`, "true", "[]", "null"}[kind]), a.target(i))
		a.found[kind] = true
	}
	a.target(i)
	return a.bad[kind]
}

// otherSpans appends to spans the elements of an array from offset off
// on, after a ',' when comma is set, while each starts like a number,
// string, boolean, array or null, or is {} (with objects, any object
// without a string id: noID), and ends (by brackets and quotes) before
// the file does, up to about chunk bytes; more says it stopped at that
// size, not at an element of another kind, the array's end or anything
// else, which the decoder reads. An element larger than chunk comes
// alone.
func (p *posReader) otherSpans(spans []span, off int64, comma, objects bool) (_ []span, more bool) {
	for {
		at, c, ok := p.next(off)
		if ok && comma {
			if c != ',' {
				return spans, false
			}
			at, c, ok = p.next(at + 1)
		}
		if !ok || !strings.ContainsRune(`-0123456789"tfn[{`, rune(c)) {
			return spans, false
		}
		end, whole := p.valueEnd(at)
		if !whole {
			return spans, false
		}
		if c == '{' {
			if inner := p.bytes(at+1, end-1); len(bytes.Trim(inner, " \t\r\n")) > 0 && (!objects || !noID(inner)) {
				return spans, false // a step, maybe: the decoder's
			}
		}
		if len(spans) > 0 && end-spans[0].from > chunk {
			return spans, true
		}
		spans = append(spans, span{at, end})
		if end-spans[0].from >= chunk {
			return spans, true
		}
		off, comma = end, true
	}
}

// noID reports whether an object, inner its bytes between the braces,
// surely decodes into a step without an id, or with an error, either of
// which the checker counts as it counts a value that is not a step: no
// member whose name encoding/json may decode into the id has a string
// for value. Such a name is "id" in any case, or maybe one with an
// escape ("\u0069d") or a byte past ASCII, whose case encoding/json
// folds too. Bytes that are not JSON may mislead it; checkSpan refuses
// them.
func noID(inner []byte) bool {
	depth := 0
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; {
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == '"':
			start := i + 1
			for i++; i < len(inner) && inner[i] != '"'; i++ {
				if inner[i] == '\\' {
					i++
				}
			}
			if depth > 0 || i >= len(inner) {
				continue
			}
			rest := bytes.TrimLeft(inner[i+1:], " \t\r\n")
			if len(rest) == 0 || rest[0] != ':' {
				continue // a value
			}
			name := inner[start:i]
			if !bytes.EqualFold(name, []byte("id")) && !bytes.ContainsFunc(name, func(r rune) bool { return r == '\\' || r >= utf8.RuneSelf }) {
				continue
			}
			if value := bytes.TrimLeft(rest[1:], " \t\r\n"); len(value) == 0 || value[0] == '"' {
				return false
			}
		}
	}
	return true
}

// next returns the offset and the byte of the first byte at or after off
// that is not white space, reading on as needed; ok is false when the
// file ends first.
func (p *posReader) next(off int64) (at int64, c byte, ok bool) {
	for {
		for i := off; i < p.total; i++ {
			if c := p.buf[i-p.base]; !isSpace(c) {
				return i, c, true
			}
		}
		off = max(off, p.total)
		if !p.fill() {
			return off, 0, false
		}
	}
}

// valueEnd returns the offset just past the value whose first byte is
// at off, found by its brackets and quotes alone, reading on as needed;
// whole is false when the file ends first. It does not check the value
// (checkSpan does): bytes that are not JSON only move the end to where
// the check refuses them.
func (p *posReader) valueEnd(off int64) (end int64, whole bool) {
	s := scan{}
	for {
		if k := s.step(p.buf[off-p.base:]); k >= 0 {
			return off + int64(k), true
		}
		off = p.total
		if !p.fill() {
			return off, false
		}
	}
}

// scan finds the end of one JSON value by its brackets and quotes, over
// bytes given in pieces.
type scan struct {
	depth            int
	scalar           bool
	inString, escape bool
}

// step scans b, the bytes after those scanned before, and returns the
// length of b up to the end of the value, or -1 when it goes on.
func (s *scan) step(b []byte) int {
	for k, c := range b {
		switch {
		case s.inString:
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inString = false
				if s.depth == 0 {
					return k + 1
				}
			}
		case s.scalar:
			// A number or literal ends at the first byte that cannot
			// continue one.
			if isSpace(c) || strings.IndexByte(`,:]}[{"`, c) >= 0 {
				return k
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			if s.depth--; s.depth <= 0 {
				return k + 1
			}
		case s.depth == 0 && !isSpace(c):
			s.scalar = true
		}
	}
	return -1
}
