package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// The walk as it was before its byte-level paths (skip.go): every value
// read through the decoder, token by token, and every element of an
// array decoded. The reference of TestByteLevelLikeTokens and of
// BenchmarkByteLevel.

// tokenWalk puts the token-by-token walk in place of the byte-level paths
// until restore is called.
func tokenWalk() (restore func()) {
	skip, oth, small := skipRest, others, readSmall
	skipRest = (*walker).skipTokens
	others = func(_ *walker, _ *elements, _ int, prev int64) (int, int64, bool) { return 0, prev, false }
	readSmall = func(w *walker, ptr string, _ byte) (*located, error) { return w.small(ptr) }
	return func() { skipRest, others, readSmall = skip, oth, small }
}

// skipTokens skips the rest of a value whose first token was t, token by
// token: the skip the walk had before skipBytes.
func (w *walker) skipTokens(t json.Token, _ int64) error {
	d, ok := t.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	outer := len(w.open)
	w.open = append(w.open, byte(d))
	// The member names of each object open here, nil for an array; the
	// decoder keeps objects apart, so a string token read in an object
	// where a name may stand (not after ':') is a name.
	seen := []names{objectNames(d)}
	for len(w.open) > outer {
		prev := w.offset()
		t, err := w.token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			w.open = append(w.open, byte(t.(json.Delim)))
			seen = append(seen, objectNames(t.(json.Delim)))
			continue
		case json.Delim('}'), json.Delim(']'):
			w.open = w.open[:len(w.open)-1]
			seen = seen[:len(seen)-1]
			continue
		}
		if key, ok := t.(string); ok && seen[len(seen)-1] != nil && w.nameAt(prev) {
			if err := w.member(seen[len(seen)-1], key, prev); err != nil {
				return err
			}
		}
	}
	return nil
}

// objectNames is a new set of member names for an object, nil for an
// array.
func objectNames(d json.Delim) names {
	if d == '{' {
		return names{}
	}
	return nil
}

// nameAt reports whether the string token read after offset prev is a
// member name: the last byte before it that is not white space opens the
// object or separates members, where a value follows ':'.
func (w *walker) nameAt(prev int64) bool {
	start := w.pr.valueStart(prev, true)
	before := w.pr.bytes(w.pr.base, start)
	for i := len(before) - 1; i >= 0; i-- {
		if !isSpace(before[i]) {
			return before[i] == '{' || before[i] == ','
		}
	}
	return w.pr.lastSig == '{' || w.pr.lastSig == ','
}

// replayed is what a replay of a trace says: its findings in full, its
// entries, and how many entries OnEntry was told of.
func replayed(plan *Plan, src []byte, r func(io.Reader) io.Reader, max int) string {
	told, ids := 0, 0
	opt := Options{MaxPerRule: max, OnEntry: func() { told++ }}
	if max > 2 {
		// Entries read one by one: none is counted in a row.
		opt.OnStep = func(s *Seen) { ids += len(s.ID) }
	}
	// What a report shows of the trace; a level it does not know is
	// shown as written, or not at all when too long (TraceSeen.Level).
	var seen *TraceSeen
	opt.OnTrace = func(ts *TraceSeen) { seen = ts }
	res := Replay(plan, "t.json", r(bytes.NewReader(src)), opt)
	var b strings.Builder
	fmt.Fprintf(&b, "entries %d, told %d, id bytes %d\n", res.Entries, told, ids)
	if seen != nil {
		level := seen.Level
		if level != "summary" && level != "full" {
			level = "-"
		}
		fmt.Fprintf(&b, "run_id %q, level %s, outcome %+v\n", seen.RunID, level, seen.Outcome)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "%s %d:%d %s %s | %s | %s\n", f.Rule, f.Line, f.Column, f.Pointer, f.Message, f.Hint, f.Key)
	}
	if err := CheckJSON("t.json", r(bytes.NewReader(src))); err != nil {
		fmt.Fprintf(&b, "CheckJSON: %v\n", err)
	}
	return b.String()
}

// skipValues are values, JSON and not, that the walk meets where it
// skips a value or reads one at byte level.
func skipValues() []string {
	return []string{
		`[]`, `{}`, `[1, 2, [3, {"a": "b\"c\\", "d": [true, false, null]}]]`,
		`{"a": 1, "a": 2}`, `{"a": {"b": 1, "c": [{"d": 1, "d": 2}]}}`, `{"\u0061": 1, "a": 2}`,
		`{"": 1, "": 2}`, `{"": 1, "b": x}`, `[{"a": 1}, {"a": 1}]`,
		`["\u00e9\n\t\/", "a]b", "c}d", "\\", "\"]"]`, "[\"\xff\"]", "[\"a\x01\"]", "[\xc3]", `["\ud800", "\ud800\udc00"]`,
		`[1,]`, `[01]`, `{"a" 1}`, `{"a": 1,}`, `[1 2]`, `[tru]`, `[1.]`, `[-]`, `[1e999, -0.5E+3]`, `{"a": 1}}`, `[1]]`,
		`{a: 1}`, `[1, "x`, `{"a": [`, `["\x"]`, `["\u12"]`,
		strings.Repeat("[", 9998) + strings.Repeat("]", 9998),
		strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
		strings.Repeat(`{"a":`, 9998) + "1" + strings.Repeat("}", 9998),
	}
}

// skipCases are traces whose values the walk skips or hands on at byte
// level, well-formed and not: escapes, nesting, member names given
// twice, bytes that are not UTF-8, numbers and literals cut or run on.
func skipCases() [][]byte {
	values := skipValues()
	elements := []string{
		`1, 2, 3`, `1, "x", true, false, [1], ["a", {"b": 1}]`, `1, {"id": "read"}, 2`, `null, 1`, `{"id": "read"}, 1`,
		`1, 01`, `1, 1x`, `1 1`, `1,, 2`, `1,`, `1, ]`, `"a" "b"`, `1, "\xff"`, `[1, 2], [3, [4]]`, `1, [{"a": 1, "a": 2}]`,
		`null, null, {}, { }, {"id": "read"}, {}`, `{"a": 1}, {"kind": 5}, {"ID": "read"}, {"İd": "read"}, {"\u0069d": "read"}`,
		`{"id": null}, {"calls": "x", "a": {"id": "read"}}, {"a": "id", "b": ["id"]}, {"Id": 1}, {"a": 1, "a": 2}`,
		`{"kind": "odd", "outcome": {"ok": true}}, {"t_ms": -1, "decisions": [{"at": 1}]}, {"a": 1}}`, `{}, {"id": 1}, null`, `nul`, `{}}`, `{,}`, `{ "a" }`,
		`-`, `1, -`, `1e5, 1E-5, -0, 0.5`, `"\"", "\\", "]"`, "\t1 ,\n 2\r\n", `1, {"id": 1}`, `1, tru`, `1, nul`,
	}
	var docs []string
	for _, v := range values {
		docs = append(docs,
			`{"x": `+v+`, "steps": []}`,
			`{"trace": `+v+`}`,
			`{"steps": `+v+`}`,
			`{"steps": [1, `+v+`, 2]}`,
			`{"output": `+v+`, "narration": `+v+`, "steps": []}`,
			`{"run_id": "r", "trace": {"steps": [], "x": `+v+`, "y": 1}}`,
			`{"diagnostics": [`+v+`, 1], "trace": null}`,
			"{\n  \"x\":\n  "+v+"\n  ,\"x\": 1}",
		)
	}
	for _, e := range elements {
		docs = append(docs, `{"steps": [`+e+`]}`, `{"trace": {"steps": [`+e+`], "run_id": "r"}}`, `{"diagnostics": [`+e+`], "steps": [`+e+`]}`)
	}
	var out [][]byte
	for _, d := range docs {
		out = append(out, []byte(d))
	}
	// Arrays past a chunk of elements (otherElements), with an error
	// in a later chunk or after the array, and a skipped member of the
	// same.
	many := strings.Repeat(`1, "a", [2], true, null, {}, {"a": {"id": 1}}, {"kind": 5}, {"id": 1}, {"Id": null}, `, 2500)
	for _, tail := range []string{`3]}`, `{"id": "read", "kind": "odd"}, 3, {"id": "read", "kind": "odd"}]}`,
		`{"İd": "read", "kind": "odd"}, {"\u0069d": "read", "kind": "odd"}, {"ID": "read", "kind": "odd"}, {"Id": "read", "kind": "odd"}]}`,
		`{"id": 1, "kind": "odd"}, {"id": null, "ID": "read", "kind": "odd"}, {"id": ["read"]}, {"iD": {"id": "read"}, "kind": "odd"}, {"id" : "read", "kind": 5}, {"id": "read", "kind": "odd"}]}`, `3x]}`, `01]}`, `3], "a": 1, "a": 2}`, `{"id": "read"}, 4]}`, `3,]}`, `"` + "\xff" + `"]}`, `3`} {
		out = append(out, []byte(`{"steps": [`+many+tail), []byte(`{"x": [`+many+tail+`, "steps": [`+many+`1]}`))
	}
	scalars := strings.Repeat(`1, null, {}, "a", `, 20000)
	for _, tail := range []string{`1]}`, `1x]}`, `{"code": "c"}, 1]}`} {
		out = append(out, []byte(`{"trace": null, "diagnostics": [`+many+tail), []byte(`{"trace": null, "diagnostics": [`+scalars+tail))
	}
	return out
}

// TestByteLevelLikeTokens holds the byte-level paths of the walk (skip.go)
// to the findings, in full and in order, entries and progress of the
// token-by-token walk they replaced, on every case of skipCases, every
// cut of the short ones (input ending early) and readers that give a
// byte or half a read at a time; with the cap at 2 findings a rule, so
// that entries that are not steps are counted in a row. -short takes a
// sample: one cut in twenty, a twelfth of the cases of one chunk, a
// thirty-sixth of the larger ones.
func TestByteLevelLikeTokens(t *testing.T) {
	plan := basePlan(t)
	cases := skipCases()
	readers := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r }, "byte": iotest.OneByteReader, "half": iotest.HalfReader,
	}
	type run struct {
		src    []byte
		reader string
		max    int
	}
	var runs []run
	big := 0
	for i, src := range cases {
		if len(src) > 1<<16 && testing.Short() {
			// The cases of several 64 KiB chunks take the token walk
			// 40 – 110 ms each: -short runs one in thirty-six, read
			// whole.
			if big++; big%36 == 1 {
				runs = append(runs, run{src, "whole", 2})
			}
			continue
		}
		if len(src) > 4096 && testing.Short() && i%12 != 0 {
			continue // -short: one in twelve of the cases of one chunk
		}
		for name := range readers {
			if name == "byte" && (len(src) > 1<<16 || testing.Short()) {
				continue // a byte at a time takes a while
			}
			if name == "half" && len(src) > 4096 && testing.Short() {
				continue // the cases of one chunk, read whole
			}
			runs = append(runs, run{src, name, 2})
			if !testing.Short() {
				runs = append(runs, run{src, name, 50})
			}
		}
		if len(src) < 200 {
			for cut := range len(src) {
				// -short: one cut in twenty, a different one of each
				// case, so that the cases' cuts still meet every
				// residue; the full suite takes every cut.
				if !testing.Short() || (cut+i)%20 == 0 {
					runs = append(runs, run{src[:cut], "whole", 2})
				}
			}
		}
	}
	want := make([]string, len(runs))
	restore := tokenWalk()
	for i, r := range runs {
		want[i] = replayed(plan, r.src, readers[r.reader], r.max)
	}
	restore()
	differ := 0
	for i, r := range runs {
		if got := replayed(plan, r.src, readers[r.reader], r.max); got != want[i] {
			if differ++; differ <= 5 {
				t.Errorf("%.200q (%s reader, %d a rule):\nbyte level:\n%s\ntokens:\n%s", r.src, r.reader, r.max, got, want[i])
			}
		}
	}
	if differ > 5 {
		t.Errorf("%d of %d runs differ", differ, len(runs))
	}
}

// TestSkipChecksLikeJSONPos: a skipped value is checked as the document's
// part, so a file replay finds no syntax error in is one jsonpos accepts,
// and replay's error is jsonpos's, at its place, for every case.
func TestSkipChecksLikeJSONPos(t *testing.T) {
	for _, src := range skipCases() {
		if len(src) > 1<<16 && testing.Short() {
			continue // the cases of several chunks are left to the full suite
		}
		err := CheckJSON("t.json", bytes.NewReader(src))
		var se *jsonpos.SyntaxError
		perr := jsonpos.Check(src)
		if perr == nil {
			if err != nil {
				t.Errorf("%.200q: replay: %v; jsonpos accepts it", src, err)
			}
			continue
		}
		ie, ok := err.(*InputError)
		if !ok || !asSyntax(perr, &se) || ie.Line != se.Pos.Line || ie.Col != se.Pos.Column || ie.Msg != "malformed JSON: "+se.Msg {
			t.Errorf("%.200q: replay: %v; jsonpos: %v", src, err, perr)
		}
	}
}

func asSyntax(err error, se **jsonpos.SyntaxError) bool {
	s, ok := err.(*jsonpos.SyntaxError)
	*se = s
	return ok
}

// FuzzByteLevelLikeTokens holds the byte-level walk to the token-by-token
// one on any bytes, as TestByteLevelLikeTokens does on its cases.
// -short adds one seed in ten: TestByteLevelLikeTokens replays each
// case of skipCases up to 4 KiB whole, at 2 findings a rule, as this
// does.
func FuzzByteLevelLikeTokens(f *testing.F) {
	plan := basePlan(f)
	for i, src := range skipCases() {
		if len(src) <= 4096 && (!testing.Short() || i%10 == 0) {
			f.Add(src)
		}
	}
	whole := func(r io.Reader) io.Reader { return r }
	f.Fuzz(func(t *testing.T, src []byte) {
		restore := tokenWalk()
		want := replayed(plan, src, whole, 2)
		restore()
		if got := replayed(plan, src, whole, 2); got != want {
			t.Fatalf("byte level:\n%s\ntokens:\n%s", got, want)
		}
	})
}

// BenchmarkByteLevel replays 2 MiB of one-character values where the walk
// skips them (a member it does not read, a trace that is not an object)
// or hands them on as entries that are not steps, and 2 MiB of objects
// without an id as steps, at byte level and, in
// the same loop, token by token as before: "ratio" is byte level over
// tokens, per case.
//
//	go test ./replay -run XXX -bench ByteLevel -benchtime 5x -count 3
func BenchmarkByteLevel(b *testing.B) {
	plan := basePlan(b)
	values := "[" + strings.Repeat("1,", 1<<20-1) + "1]"
	for _, c := range []struct{ name, src string }{
		{"member", `{"x": ` + values + `, "steps": []}`},
		{"trace", `{"trace": ` + values + `}`},
		{"steps", `{"steps": ` + values + `}`},
		{"objects", `{"steps": [` + strings.Repeat(`{"a":1},`, 1<<18-1) + `{"a":1}]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var bytes, tokens time.Duration
			for b.Loop() {
				start := time.Now()
				Replay(plan, "b.json", strings.NewReader(c.src), Options{})
				bytes += time.Since(start)
				restore := tokenWalk()
				start = time.Now()
				Replay(plan, "b.json", strings.NewReader(c.src), Options{})
				tokens += time.Since(start)
				restore()
			}
			b.ReportMetric(float64(bytes.Milliseconds())/float64(b.N), "bytes-ms/op")
			b.ReportMetric(float64(tokens.Milliseconds())/float64(b.N), "tokens-ms/op")
			b.ReportMetric(float64(bytes)/float64(tokens), "ratio")
		})
	}
}
