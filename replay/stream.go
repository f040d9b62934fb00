package replay

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// site is a place in a trace file: a JSON Pointer and its line:column.
type site struct {
	ptr       string
	line, col int
}

// located is one JSON value of the trace with its place: enough to point a
// finding at the value or at any member inside it. The value is parsed
// for positions only when a finding needs one.
type located struct {
	site
	raw []byte
	doc *jsonpos.Doc
	// cut is set when raw holds only the first quoteBytes of the value
	// (smallBytes): enough to quote it (clip), not to read it.
	cut bool
	// str is the value of a long string kept whole (a run_id or a
	// catalog_version longer than quoteBytes), decoded once when read,
	// nil for any other: raw then holds its start (cut).
	str *string
}

// at locates the member sub (a JSON Pointer relative to the value). A
// member that does not exist is reported where the value starts.
func (l *located) at(sub string) site {
	s := site{ptr: l.ptr + sub, line: l.line, col: l.col}
	if sub == "" || l.raw == nil {
		return s
	}
	if l.doc == nil {
		d, err := jsonpos.Parse(l.raw)
		if err != nil {
			return s
		}
		l.doc = d
	}
	rel, _ := l.doc.Locate(sub, false)
	if rel.Line == 1 {
		s.col = l.col + rel.Column - 1
	} else {
		s.line, s.col = l.line+rel.Line-1, rel.Column
	}
	return s
}

// keep copies the raw bytes so the value outlives the decoder's buffer
// (open loop entries are reported on when their activation closes).
func (l *located) keep() {
	l.raw = append([]byte(nil), l.raw...)
	l.doc = nil
}

// wireOutcome is an Outcome with presence kept: ok and status are required.
type wireOutcome struct {
	OK     *bool   `json:"ok"`
	Status *string `json:"status"`
	Error  string  `json:"error"`
}

// wireEntry is one trace step as it is on the wire; raw members keep
// presence (input: null is present).
type wireEntry struct {
	ID        *string             `json:"id"`
	Kind      kindMember          `json:"kind"`
	Calls     []string            `json:"calls"`
	Input     json.RawMessage     `json:"input"`
	Output    json.RawMessage     `json:"output"`
	Outcome   *wireOutcome        `json:"outcome"`
	TMs       millis              `json:"t_ms"`
	Decisions []pilotage.Decision `json:"decisions"`
	// Call, If, ForEach and Run are members a program's step has and a
	// trace's has not (§5.5): only whether they are there is kept, to
	// tell a program given as the trace without holding it (misfiled).
	Call    present `json:"call"`
	If      present `json:"if"`
	ForEach present `json:"for_each"`
	Run     present `json:"run"`
}

// present records that a member is there, whatever its value, which is
// not decoded.
type present bool

func (p *present) UnmarshalJSON([]byte) error {
	*p = true
	return nil
}

// kindMember is an entry's kind, v, and whether the member is there at
// all (set), "kind": "" and "kind": null included.
type kindMember struct {
	v   string
	set bool
}

func (k *kindMember) UnmarshalJSON(b []byte) error {
	k.set = true
	return json.Unmarshal(b, &k.v)
}

// programStep reports whether the entry reads as a program's step, as
// inputs.Recognize tells one: a call, if, for_each or run member, and no
// kind member, whatever its value, which every trace step has.
func (w *wireEntry) programStep() bool {
	return !w.Kind.set && bool(w.Call || w.If || w.ForEach || w.Run)
}

// millis is a step's t_ms as decoded: bad holds the value when it is not
// a number ≥ 0 (data-model.md §5.8), v the value when it is (set).
type millis struct {
	bad []byte
	v   float64
	set bool
}

func (m *millis) UnmarshalJSON(b []byte) error {
	switch {
	case b[0] == 'n': // null: absent
	case b[0] == '-' && !negativeZero(b), b[0] != '-' && (b[0] < '0' || b[0] > '9'):
		m.bad = append([]byte(nil), b...)
	default:
		// A number too large for a float64 is still a duration ≥ 0.
		m.v, _ = strconv.ParseFloat(string(b), 64)
		m.set = true
	}
	return nil
}

// negativeZero reports whether a JSON number starting with - is zero: no
// digit but 0 in its significand ("-0", "-0.000", "-0e5").
func negativeZero(b []byte) bool {
	if i := bytes.IndexAny(b, "eE"); i >= 0 {
		b = b[:i]
	}
	return !bytes.ContainsAny(b, "123456789")
}

// entry is one decoded trace step and where it is.
type entry struct {
	located
	index int
	w     wireEntry
	// bad is the decode error when the entry is not a well-typed step.
	bad error
}

// traceMembers are the members of a trace (or of the response around it)
// that the checks need, wherever they appear in the object.
type traceMembers struct {
	runID, level, outcome, mode, catalogVersion *located
	steps                                       *site // nil when there is no steps array
	// output and narration are where non-null members of those names
	// are; only their presence matters (§6.5, §6.6), so their values are
	// skipped, never held.
	output, narration *site
	// outputRaw is a response's output value, kept only for deep replay
	// (walker.keepOutput), which compares it with the program's.
	outputRaw json.RawMessage
}

// wireDiagnostic is one diagnostic of an execute response (§5.5), with
// presence kept for the required members.
type wireDiagnostic struct {
	Code     *string         `json:"code"`
	Severity *string         `json:"severity"`
	Message  *string         `json:"message"`
	Path     json.RawMessage `json:"path"`
}

// diagnostic is one decoded diagnostic and where it is.
type diagnostic struct {
	located
	w   wireDiagnostic
	bad error
}

// stream is what walking one file found besides the entries.
type stream struct {
	// top holds the members of the top-level object, inner those of its
	// trace member when the file is an execute or trace-fetch response.
	top, inner traceMembers
	response   bool
	// object is true when the file is a JSON object at all.
	object bool
	// traceAt is where the trace object starts.
	traceAt site
	entries int
	// syntax is the first JSON syntax error, which ends the walk.
	syntax *site
	// syntaxMsg describes it.
	syntaxMsg string
	// shape lists structural problems met while walking.
	shape []shapeProblem
	// other names the artifact a top-level member says the file is when
	// it is no trace ("a manifest"), for the hint of a file that is not.
	other string
	// programSteps counts the elements of the top-level steps that read
	// as a program's (wireEntry.programStep), and notProgram says one did
	// not: what tells a program too large to keep (misfiled).
	programSteps int
	notProgram   bool
}

// otherArtifacts are the top-level members that say which other
// artifact of a project a file is.
var otherArtifacts = map[string]string{
	"pilotage":  "a manifest: lint it with pilotage lint FILE",
	"languages": "a manifest: lint it with pilotage lint FILE",
	"snapshot":  "a snapshot: lint it with pilotage lint FILE, or give it to replay as --snapshot",
	"max_risk":  "a plan: give it to replay as --plan, with a trace",
	"valid":     "a plan (a validate response): give it to replay as --plan, with a trace",
}

type shapeProblem struct {
	site
	msg string
}

// trace returns the members of the trace object itself.
func (s *stream) trace() *traceMembers {
	if s.response {
		return &s.inner
	}
	return &s.top
}

// walker streams one trace file: it walks the top-level object with
// Decoder.Token and decodes each element of steps on its own, handing it
// to onEntry before reading the next, so memory does not grow with the
// number of steps.
type walker struct {
	dec *json.Decoder
	// shift is what turns the decoder's offsets into the file's (offset):
	// a decoder that takes over after a value skipped at byte level starts
	// with a prefix of its own (resumeAt).
	shift int64
	pr    *posReader
	s     *stream
	// open holds the opening '{' or '[' of every object and array the
	// walk is inside, outermost first: what a syntax error needs to be
	// worded and placed as in the whole document (syntaxAt).
	open []byte
	// onSteps is called when a steps array starts, with the members seen
	// so far; onEntry with each entry.
	onSteps func(*traceMembers)
	onEntry func(*entry)
	// onDiagnostic is called with each element of the top-level
	// diagnostics array, one at a time like the steps.
	onDiagnostic func(*diagnostic)
	// countBad counts n elements in a row of the steps array (rule
	// RuleTraceShape) or the diagnostics array (RuleResponseDiagnostics)
	// that are not what the array holds, in place of handing each to
	// onEntry or onDiagnostic, when that would only count them, and
	// reports whether it did (checker.countBad).
	countBad func(rule string, n int, at site) bool
	// keepOutput keeps a response's output value (deep replay).
	keepOutput bool
	// spans and scratch are reused by otherElements and checkSpan for
	// each chunk of elements.
	spans   []span
	scratch []byte
}

// offset is the decoder's offset in the file: the end of what it has read.
func (w *walker) offset() int64 { return w.dec.InputOffset() + w.shift }

// errStop ends a walk after a syntax error.
var errStop = errors.New("stop")

func walk(r io.Reader, headLimit int, onSteps func(*traceMembers), onEntry func(*entry), countBad func(string, int, site) bool, onDiagnostic func(*diagnostic), keepOutput bool) (*stream, *posReader) {
	pr := newPosReader(r, headLimit)
	// A byte order mark, or a file in UTF-16 or UTF-32, is the one error
	// lint reports at 1:1 for the file; decoded, it would be a bad first
	// character, or a bad second one after a '{' read as UTF-16.
	if se := jsonpos.CheckEncoding(pr.peek(4)); se != nil {
		return &stream{syntax: &site{line: 1, col: 1}, syntaxMsg: se.Msg}, pr
	}
	dec := json.NewDecoder(pr)
	// Numbers stay text: a skipped 1e999 is valid JSON (lint accepts it),
	// but as a float64 it would be a decoding error taken for a syntax one.
	dec.UseNumber()
	w := &walker{dec: dec, pr: pr, s: &stream{}, onSteps: onSteps, onEntry: onEntry, countBad: countBad, onDiagnostic: onDiagnostic, keepOutput: keepOutput}
	_ = w.document()
	return w.s, pr
}

// failAt records the decoder's error err, met reading what follows offset
// prev, as the file's syntax error, placed and worded as pilotage lint
// places and words it (internal/base/jsonpos). The decoder's own errors are no
// use for that: a Token error's offset is at the bad byte or one past it
// depending on the token, a Decode error's counts from the start of the
// value, and their wording is encoding/json's. So the bytes still held
// from prev on are parsed again by jsonpos behind resume(prev), a prefix
// that puts jsonpos where the decoder was: the same enclosing objects and
// arrays (so the same depth limit) and the same expectation. jsonpos then
// stops at the first bad byte with lint's message.
func (w *walker) failAt(err error, prev int64) error {
	// The decoder ends a number at the first byte that cannot continue
	// it, so "01" is 0 then 1 to it but a leading zero to jsonpos: a
	// number that ends at prev (on a digit, as every number does) is
	// parsed again too.
	before := w.pr.bytes(w.pr.base, prev)
	if i := len(before); i > 0 && '0' <= before[i-1] && before[i-1] <= '9' {
		for i > 0 && bytes.IndexByte([]byte("0123456789+-.eE"), before[i-1]) >= 0 {
			i--
		}
		prev = w.pr.base + int64(i)
	}
	w.pr.completeRune()
	// Two spaces keep a resumed parse from reading its first bytes as an
	// encoding ('[' or one space, then a NUL, looks like UTF-16): the
	// file's own start was checked before the walk (jsonpos.CheckEncoding).
	prefix := "  " + w.resume(prev)
	src := append([]byte(prefix), w.pr.bytes(prev, w.pr.total)...)
	off, msg := w.offset(), err.Error()
	var se *jsonpos.SyntaxError
	if perr := jsonpos.Check(src); errors.As(perr, &se) && se.Pos.Offset >= len(prefix) {
		off, msg = w.pr.clamp(prev)+int64(se.Pos.Offset-len(prefix)), se.Msg
	}
	// Otherwise the decoder refused what jsonpos accepts, which their
	// differential tests (internal/base/jsonpos) rule out; its words stand.
	pos := w.pr.position(off)
	w.s.syntax = &site{line: pos.Line, col: pos.Column}
	w.s.syntaxMsg = msg
	return errStop
}

// resume returns the JSON text that leaves a parser in the state the
// decoder was in at offset prev: inside w.open, and in the innermost of
// them after its opening, a separator, a member name or a value, as the
// last byte before prev that is not white space tells. A member name is
// copied, so messages about it name it.
func (w *walker) resume(prev int64) string {
	before := w.pr.bytes(w.pr.base, prev)
	last := len(before) - 1
	for last >= 0 && isSpace(before[last]) {
		last--
	}
	c := w.pr.lastSig
	if last >= 0 {
		c = before[last]
	}
	if len(w.open) == 0 {
		if c == 0 {
			return "" // before the top-level value
		}
		return "null" // after it
	}
	var b strings.Builder
	opening(&b, w.open[:len(w.open)-1])
	inner := w.open[len(w.open)-1]
	switch {
	case c == inner: // just opened
		b.WriteByte(inner)
	case inner == '[' && c == ',':
		b.WriteString("[null,")
	case inner == '[':
		b.WriteString("[null")
	case c == ',':
		b.WriteString(`{"":null,`)
	case c == ':':
		b.WriteString(`{"":`)
	case c == '"' && last >= 0:
		if name, ok := memberName(before[:last+1]); ok {
			b.WriteByte('{')
			b.Write(name)
			break
		}
		fallthrough
	default:
		b.WriteString(`{"":null`)
	}
	return b.String()
}

// opening writes JSON text that opens the objects and arrays of open,
// outermost first, each ready for a value: a member's for an object, an
// element's for an array. It returns how many tokens a json.Decoder reads
// in it.
func opening(b *strings.Builder, open []byte) (tokens int) {
	for _, d := range open {
		if d == '{' {
			b.WriteString(`{"":`)
			tokens += 2
		} else {
			b.WriteByte('[')
			tokens++
		}
	}
	return tokens
}

// memberName returns the string that ends src when it is a member name:
// the byte before it, white space aside, opens the object or separates
// it from the previous member. Inside a string a '"' is always escaped,
// so its opening quote is the first '"' before the end that is preceded
// by an even number of backslashes.
func memberName(src []byte) ([]byte, bool) {
	for i := len(src) - 2; i >= 0; i-- {
		if src[i] != '"' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
			n++
		}
		if n%2 == 1 {
			continue
		}
		j := i - 1
		for j >= 0 && isSpace(src[j]) {
			j--
		}
		return src[i:], j >= 0 && (src[j] == '{' || src[j] == ',')
	}
	return nil, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// token reads the next token; on a syntax error it records the error and
// returns errStop.
//
// Token, unlike Decode, does not bound nesting, so the walk does: every
// object and array it reads by tokens is opened by a token read here
// with w.open holding exactly the ones around it, and one opened at
// jsonpos.MaxDepth is the syntax error lint reports there (failAt lets
// jsonpos word and place it); those it skips at byte level are held to
// the same bound by tooDeep (checkSpan).
func (w *walker) token() (json.Token, error) {
	prev := w.offset()
	t, err := w.dec.Token()
	if err == nil && (t == json.Delim('{') || t == json.Delim('[')) && len(w.open) >= jsonpos.MaxDepth {
		err = errTooDeep
	}
	if err == nil && w.pr.badBefore(w.offset()) {
		err = errNotUTF8
	}
	if err != nil {
		return nil, w.failAt(err, prev)
	}
	return t, nil
}

// errNotUTF8 stands for a byte that is not UTF-8 in what the decoder has
// just read, which it took as U+FFFD; failAt gives jsonpos's message.
var errNotUTF8 = errors.New("invalid UTF-8")

// value checks raw, a value the decoder has just read after offset prev,
// as jsonpos reads it: a byte that is not UTF-8 or an object's second
// member of one name in it, which the decoder lets pass, is then the
// file's syntax error, at its place in the file (failAt parses the value
// again from prev).
func (w *walker) value(raw []byte, prev int64) error {
	if err := jsonpos.Check(raw); err != nil || w.pr.badBefore(w.offset()) {
		return w.failAt(cmp.Or(err, errNotUTF8), prev)
	}
	return nil
}

// names remembers the member names of one object the walk reads token by
// token, to refuse the second of one name as lint does.
type names map[string]bool

// member records the name key, read after offset prev, and reports the
// file's syntax error when the object had it already.
func (w *walker) member(seen names, key string, prev int64) error {
	if !seen[key] {
		seen[key] = true
		return nil
	}
	pos := w.pr.position(w.pr.valueStart(prev, true))
	w.s.syntax = &site{line: pos.Line, col: pos.Column}
	w.s.syntaxMsg = jsonpos.DuplicateName(key)
	return errStop
}

// errTooDeep stands for the decoder's error when the walk finds nesting
// beyond jsonpos.MaxDepth; failAt replaces it with jsonpos's message.
var errTooDeep = errors.New("nesting too deep")

// tooDeep reports whether raw, a value the decoder has just accepted
// inside the objects and arrays of w.open, nests deeper in the whole
// document than jsonpos.MaxDepth allows. Decode bounds depth from the
// start of the value it decodes, lint from the start of the file, so a
// steps entry 9,999 deep is fine to one and too deep to the other. A value
// of n bytes nests at most n/2 deep, so only a large one is scanned.
func (w *walker) tooDeep(raw []byte) bool {
	room := jsonpos.MaxDepth - len(w.open)
	if len(raw) <= 2*room {
		return false
	}
	depth, inString := 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++ // the escaped byte cannot end the string
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > room {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

func (w *walker) shape(ptr string, off int64, format string, args ...any) {
	pos := w.pr.position(off)
	w.s.shape = append(w.s.shape, shapeProblem{site{ptr, pos.Line, pos.Column}, fmt.Sprintf(format, args...)})
}

func (w *walker) document() error {
	t, err := w.token()
	if err != nil {
		return err
	}
	start := w.pr.valueStart(0, false)
	pos := w.pr.position(start)
	w.s.traceAt = site{"", pos.Line, pos.Column}
	if t != json.Delim('{') {
		w.shape("", start, "the file holds %s, not a trace object or a response carrying one", tokenKind(t))
		if t == json.Delim('[') {
			return w.checkRest(start)
		}
		// Any other value is whole in its token.
	} else {
		w.s.object = true
		err = w.object("", &w.s.top)
	}
	if err != nil {
		return err
	}
	// Anything after the top-level value is malformed JSON: jsonpos,
	// resumed after a value, says so at the first byte of it.
	prev := w.offset()
	if _, err := w.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the top-level value")
		}
		return w.failAt(err, prev)
	}
	return nil
}

// checkRest finds the syntax error, if any, of a file whose top-level
// value, an array, starts at start: nothing in it is read as a trace, so
// the rest of the file is read whole and checked as lint checks it
// (jsonpos.Check), not token by token through the decoder, which took 4
// seconds and 107 MB for 16 MiB of one-character values (8 million
// tokens), where this takes a tenth of a second and holds the file once
// (TestArrayCheckedWhole).
func (w *walker) checkRest(start int64) error {
	w.pr.readTo(math.MaxInt64)
	src, pad := w.pr.bytes(start, w.pr.total), 0
	if jsonpos.CheckEncoding(src) != nil {
		// A NUL after the '[' reads as UTF-16 at the start of a
		// document; the file's own start was checked before the walk.
		src, pad = append([]byte("  "), src...), 2
	}
	var se *jsonpos.SyntaxError
	if !errors.As(jsonpos.Check(src), &se) {
		return nil
	}
	pos := w.pr.position(start + int64(se.Pos.Offset-pad))
	w.s.syntax = &site{line: pos.Line, col: pos.Column}
	w.s.syntaxMsg = se.Msg
	return errStop
}

// object walks the members of an object whose '{' was just read; prefix
// is its JSON Pointer.
func (w *walker) object(prefix string, m *traceMembers) error {
	w.open = append(w.open, '{')
	seen := names{}
	for w.dec.More() {
		prev := w.offset()
		t, err := w.token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if err := w.member(seen, key, prev); err != nil {
			return err
		}
		ptr := prefix + "/" + pilotage.EscapePointerToken(key)
		switch {
		case key == "steps":
			err = w.steps(ptr, m)
		case key == "trace" && prefix == "":
			err = w.traceMember(ptr)
		case key == "diagnostics" && prefix == "":
			err = w.diagnostics(ptr)
		case key == "output" && prefix == "" && w.keepOutput:
			m.output, m.outputRaw, err = w.kept(ptr)
		case key == "output":
			m.output, err = w.presence(ptr)
		case key == "narration" && prefix == "":
			m.narration, err = w.presence(ptr)
		case key == "run_id" || key == "level" || key == "outcome" || key == "mode" || key == "catalog_version":
			var v *located
			v, err = readSmall(w, ptr, wholeKind[key])
			switch key {
			case "run_id":
				m.runID = v
			case "level":
				m.level = v
			case "outcome":
				m.outcome = v
			case "catalog_version":
				m.catalogVersion = v
			default:
				m.mode = v
			}
		default:
			if prefix == "" && w.s.other == "" {
				w.s.other = otherArtifacts[key]
			}
			err = w.skipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err := w.token() // '}'
	w.open = w.open[:len(w.open)-1]
	return err
}

// small decodes a member value the checks read (run_id, level, outcome,
// mode, catalog_version) whole through the decoder and remembers where
// it is: smallBytes's way for short values, and the walk's for all
// before smallBytes (tokenWalk).
func (w *walker) small(ptr string) (*located, error) {
	var raw json.RawMessage
	prev := w.offset()
	if err := w.dec.Decode(&raw); err != nil || w.tooDeep(raw) {
		return nil, w.failAt(cmp.Or(err, errTooDeep), prev)
	}
	if err := w.value(raw, prev); err != nil {
		return nil, err
	}
	end := w.offset()
	start := end - int64(len(raw))
	pos := w.pr.position(start)
	return &located{site: site{ptr, pos.Line, pos.Column}, raw: raw}, nil
}

func (w *walker) traceMember(ptr string) error {
	prev := w.offset()
	t, err := w.token()
	if err != nil {
		return err
	}
	start := w.pr.valueStart(prev, true)
	if t == nil { // "trace": null, as for a Run at level none
		return nil
	}
	if t != json.Delim('{') {
		w.shape(ptr, start, "trace is %s, not a trace object", tokenKind(t))
		return skipRest(w, t, prev)
	}
	w.s.response = true
	pos := w.pr.position(start)
	w.s.traceAt = site{ptr, pos.Line, pos.Column}
	return w.object(ptr, &w.s.inner)
}

// steps walks the steps array, one entry at a time.
func (w *walker) steps(ptr string, m *traceMembers) error {
	var e *entry
	return w.array("steps", "trace steps", func(at site) { m.steps = &at; w.onSteps(m) }, &elements{ptr: ptr, objects: true,
		target: func(i int) any { e = &entry{index: i}; return &e.w },
		done: func(raw []byte, at site, bad error) {
			e.raw, e.site, e.bad = raw, at, bad
			w.s.entries++
			if m == &w.s.top {
				if bad == nil && e.w.programStep() {
					w.s.programSteps++
				} else {
					w.s.notProgram = true
				}
			}
			w.onEntry(e)
		},
		count: func(n int, at site) bool {
			if !w.countBad(RuleTraceShape, n, at) {
				return false
			}
			w.s.entries += n
			w.s.notProgram = true
			return true
		}})
}

// array walks the array value of member a.ptr one element at a time:
// each element is decoded into a.target(i) and handed to a.done with its bytes
// and place before the next is read, so memory does not grow with the
// array. A value that is not an array is a shape problem; an element of
// the wrong type is done's to report (bad). Elements that cannot decode
// into target are handed on without the decoder (others).
func (w *walker) array(name, of string, opened func(site), a *elements) error {
	ptr := a.ptr
	prev := w.offset()
	t, err := w.token()
	if err != nil {
		return err
	}
	start := w.pr.valueStart(prev, true)
	if t != json.Delim('[') {
		w.shape(ptr, start, "%s is %s, not an array of %s", name, tokenKind(t), of)
		return skipRest(w, t, prev)
	}
	if opened != nil {
		pos := w.pr.position(start)
		opened(site{ptr, pos.Line, pos.Column})
	}
	w.open = append(w.open, '[')
	prev = w.offset()
	fast := true
	for i := 0; w.dec.More(); i++ {
		if fast {
			var n int
			if n, prev, fast = others(w, a, i, prev); n > 0 {
				i += n - 1
				continue
			}
		}
		bad := w.dec.Decode(a.target(i))
		var te *json.UnmarshalTypeError
		if bad != nil && !errors.As(bad, &te) {
			return w.failAt(bad, prev)
		}
		end := w.offset()
		if w.tooDeep(w.pr.bytes(prev, end)) {
			return w.failAt(errTooDeep, prev)
		}
		from := w.pr.valueStart(prev, i > 0)
		if err := w.value(w.pr.bytes(from, end), prev); err != nil {
			return err
		}
		p := w.pr.position(from)
		a.done(w.pr.bytes(from, end), site{ptr + "/" + strconv.Itoa(i), p.Line, p.Column}, bad)
		prev = end
	}
	_, err = w.token() // ']'
	w.open = w.open[:len(w.open)-1]
	return err
}

// presence skips a member's value and returns where it is, or nil when
// it is null (an absent optional member and null mean the same here).
func (w *walker) presence(ptr string) (*site, error) {
	prev := w.offset()
	t, err := w.token()
	if err != nil || t == nil {
		return nil, err
	}
	pos := w.pr.position(w.pr.valueStart(prev, true))
	return &site{ptr, pos.Line, pos.Column}, skipRest(w, t, prev)
}

// kept is presence with the value kept; a null output is no output.
func (w *walker) kept(ptr string) (*site, json.RawMessage, error) {
	var raw json.RawMessage
	prev := w.offset()
	if err := w.dec.Decode(&raw); err != nil || w.tooDeep(raw) {
		return nil, nil, w.failAt(cmp.Or(err, errTooDeep), prev)
	}
	if string(raw) == "null" {
		return nil, nil, nil
	}
	pos := w.pr.position(w.pr.valueStart(prev, true))
	return &site{ptr, pos.Line, pos.Column}, raw, nil
}

// diagnostics walks a response's diagnostics array one element at a
// time; anything else there is a shape problem.
func (w *walker) diagnostics(ptr string) error {
	var d *diagnostic
	return w.array("diagnostics", "diagnostics", nil, &elements{ptr: ptr,
		target: func(int) any { d = &diagnostic{}; return &d.w },
		done: func(raw []byte, at site, bad error) {
			d.raw, d.site, d.bad = raw, at, bad
			w.onDiagnostic(d)
		},
		count: func(n int, at site) bool { return w.countBad(RuleResponseDiagnostics, n, at) }})
}

// skipValue skips the next value.
func (w *walker) skipValue() error {
	prev := w.offset()
	t, err := w.token()
	if err != nil {
		return err
	}
	return skipRest(w, t, prev)
}

// tokenKind names the JSON type a value's first token starts, with its
// article, for messages.
func tokenKind(t json.Token) string {
	switch t.(type) {
	case json.Delim:
		if t == json.Delim('[') {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}
