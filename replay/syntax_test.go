package replay

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// checkSyntaxLikeLint replays data, read whole and one byte at a time
// (the decoder's read-ahead, and so the bytes replay still holds, differ),
// and requires the trace-json finding that pilotage lint would give the
// same bytes: at jsonpos's line:col, with its message (§5.8: a trace is
// well-formed JSON), invalid UTF-8 and an object's second member of one
// name included (docs/json.md), which encoding/json alone would let pass.
func checkSyntaxLikeLint(t *testing.T, plan *Plan, data []byte) {
	t.Helper()
	_, perr := jsonpos.Parse(data)
	var want *jsonpos.SyntaxError
	if perr != nil && !errors.As(perr, &want) {
		t.Fatalf("jsonpos: %v", perr)
	}
	for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data))} {
		res := Replay(plan, "t.json", r, Options{})
		var got []string
		for _, f := range res.Findings {
			if f.Rule == RuleTraceJSON {
				got = append(got, jsonpos.Pos{Line: f.Line, Column: f.Column}.String()+" "+f.Message)
			}
		}
		switch {
		case want == nil && len(got) > 0:
			t.Fatalf("%q is JSON, but replay reports %q", data, got)
		case want == nil:
		case len(got) != 1 || got[0] != want.Pos.String()+" malformed JSON: "+want.Msg:
			t.Fatalf("%q:\n got %q\nwant [%s malformed JSON: %s]", data, got, want.Pos, want.Msg)
		}
	}
}

// TestSyntaxErrorsLikeLint corrupts a valid trace a thousand ways (a byte
// dropped, replaced or inserted, the file cut short) and checks every
// result with checkSyntaxLikeLint: the first syntax error of a streamed
// trace is placed and worded exactly as lint places and words it in the
// whole file, wherever it is (top level, steps, inside an entry, in a
// skipped member, after the top-level value). With -short, a tenth of
// the corruptions.
func TestSyntaxErrorsLikeLint(t *testing.T) {
	plan := basePlan(t)
	corruptions := 500
	if testing.Short() {
		corruptions = 50
	}
	src, err := os.ReadFile(filepath.Join("testdata", "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A response carrying the trace adds skipped members and nesting.
	resp := []byte(`{"diagnostics": [{"code": "c", "severity": "info", "message": "m", "path": [1, "a"]}], "meta": {"x": [[], {}, -1.5e3, "q\"\\"]}, "trace": ` +
		string(src) + `, "outcome": {"ok": true, "status": "success"}}`)
	rng := rand.New(rand.NewPCG(11, 17))
	const alphabet = "{}[],:\" \n0-.eatrun\\x/"
	for _, base := range [][]byte{src, resp} {
		checkSyntaxLikeLint(t, plan, base)
		for range corruptions {
			b := bytes.Clone(base)
			i := rng.IntN(len(b))
			c := alphabet[rng.IntN(len(alphabet))]
			switch rng.IntN(4) {
			case 0:
				b = append(b[:i], b[i+1:]...)
			case 1:
				b[i] = c
			case 2:
				b = append(b[:i], append([]byte{c}, b[i:]...)...)
			default:
				b = b[:i]
			}
			checkSyntaxLikeLint(t, plan, b)
		}
	}
}

// TestDuplicatesAndUTF8LikeLint: an object's second member of one name,
// and a byte that is not UTF-8, are malformed JSON in a trace as lint
// says they are (issue 13 item 9): the decoder would keep the last member
// and read the byte as U+FFFD, so "level" given twice was checked as the
// second and a bad byte in "level" was "an unknown level".
func TestDuplicatesAndUTF8LikeLint(t *testing.T) {
	plan := basePlan(t)
	src, err := os.ReadFile(filepath.Join("testdata", "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	trace := string(src)
	resp := `{"meta": {"x": [{"a": 1}]}, "trace": ` + trace + `}`
	for _, c := range []struct{ name, data string }{
		{"top-level member", strings.Replace(trace, `"level"`, `"level": "full", "level"`, 1)},
		{"inside a step entry", strings.Replace(trace, `"id"`, `"id": "x", "id"`, 1)},
		{"inside a skipped member", strings.Replace(resp, `{"a": 1}`, `{"a": 1, "a": 2}`, 1)},
		{"skipped member twice", strings.Replace(resp, `"meta"`, `"meta": 1, "meta"`, 1)},
		{"bad byte in level", strings.Replace(trace, `"summary"`, "\"sum\xffmary\"", 1)},
		{"bad byte in an entry", strings.Replace(trace, `"id": "`, "\"id\": \"\xc3(", 1)},
		{"bad byte in a skipped member", strings.Replace(resp, `"x"`, "\"x\xfe\"", 1)},
		{"bad byte in a member name", strings.Replace(trace, `"level"`, "\"lev\xffel\"", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := jsonpos.Parse([]byte(c.data)); err == nil {
				t.Fatalf("the case is valid JSON to jsonpos:\n%s", c.data)
			}
			checkSyntaxLikeLint(t, plan, []byte(c.data))
		})
	}
}

// TestHugeNumbersAreJSON: a number too large for a float64 is valid JSON
// (RFC 8259 §6 leaves range to implementations), so a trace holding one
// where replay only skips or notes presence is not malformed.
func TestHugeNumbersAreJSON(t *testing.T) {
	plan := basePlan(t)
	for _, data := range []string{
		`{"a": 1e999}`,
		`{"meta": [-1e999, {"x": 1E+400}], "steps": []}`,
		`{"steps": [], "output": 1e999}`,
		`{"trace": {"steps": [], "output": [1e999]}, "narration": 1e999}`,
		`[1e999]`,
	} {
		checkSyntaxLikeLint(t, plan, []byte(data))
	}
}

// TestEncodingLikeLint: a trace that starts with a UTF-8 byte order mark
// or is in UTF-16 or UTF-32 is one finding at 1:1 in lint's words
// (jsonpos.CheckEncoding, RFC 8259 §8.1), however the bytes arrive; NUL
// bytes or a U+FEFF further on are bad characters where they are, even
// right after an opening bracket, where a resumed parse starts.
func TestEncodingLikeLint(t *testing.T) {
	plan := basePlan(t)
	src, err := os.ReadFile(filepath.Join("testdata", "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var le, be []byte
	for _, u := range utf16.Encode([]rune(string(src))) {
		le, be = append(le, byte(u), byte(u>>8)), append(be, byte(u>>8), byte(u))
	}
	for _, c := range []struct {
		data []byte
		says string // "" for a bad character where it is, no encoding named
	}{
		{append([]byte("\xef\xbb\xbf"), src...), "starts with a UTF-8 byte order mark"},
		{append([]byte{0xff, 0xfe}, le...), "is UTF-16 (byte order mark FF FE)"},
		{append([]byte{0xfe, 0xff}, be...), "is UTF-16 (byte order mark FE FF)"},
		{le, "looks like UTF-16 without a byte order mark"},
		{be[:3], "looks like UTF-16 without a byte order mark"},
		{[]byte("\xef\xbb"), ""},
		{[]byte(" \xef\xbb\xbf{}"), ""},
		{[]byte("  {\x00}"), ""},
		{[]byte("  [\x00]"), ""},
		{[]byte("\n{\"steps\": [\x00]}"), ""},
	} {
		checkSyntaxLikeLint(t, plan, c.data)
		res := Replay(plan, "t.json", iotest.OneByteReader(bytes.NewReader(c.data)), Options{})
		if len(res.Findings) != 1 {
			t.Fatalf("%.20q: %d findings, want 1", c.data, len(res.Findings))
		}
		f := res.Findings[0]
		named := strings.Contains(f.Message, "(RFC 8259 §8.1)")
		if c.says == "" && named || c.says != "" && (!strings.Contains(f.Message, c.says) || f.Line != 1 || f.Column != 1) {
			t.Errorf("%.20q: %d:%d %s; want %q", c.data, f.Line, f.Column, f.Message, c.says)
		}
	}
}

// FuzzSyntaxErrorsLikeLint is checkSyntaxLikeLint over arbitrary bytes.
func FuzzSyntaxErrorsLikeLint(f *testing.F) {
	plan := basePlan(f)
	for _, seed := range []string{"", "x{}", "{} {}", `{"a": 1e999}`, `{"steps": [,]}`, `{"a" 1}`, `{"a": [1 2]}`, `{"a": {"b": tru}}`, `[{"a":1,}]`, "{\"a\": \"\x01\"}", "\xef\xbb\xbf{}", "{\x00}\x00", " [\x00", "[\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSyntaxLikeLint(t, plan, data)
	})
}

// TestDeepNestingLikeLint: nesting beyond jsonpos.MaxDepth is a syntax
// error wherever it is, worded and placed as lint words and places it:
// a top-level array or a skipped member (checked whole by jsonpos), a steps
// entry or a small member deep enough for lint but not for the decoder,
// which counts from the start of the value it decodes.
func TestDeepNestingLikeLint(t *testing.T) {
	plan := basePlan(t)
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		data    string
		tooDeep bool
	}{
		{strings.Repeat("[", 20000), true},
		{"\n\n  " + strings.Repeat("[", 20000), true},
		{strings.Repeat(`{"a":`, 20000), true},
		{deep(10001), true},
		{`{"meta": ` + deep(10000) + `}`, true},
		{`{"steps": [` + strings.Repeat("[", 20000), true},
		{`{"steps": [1, ` + deep(9999) + `]}`, true},
		{`{"steps": [{"id": "read", "input": "[[[[", "output": ` + deep(9998) + `}]}`, true},
		{`{"trace": {"steps": [` + deep(9998) + `]}}`, true},
		{`{"diagnostics": [` + deep(9999) + `]}`, true},
		{`{"run_id": ` + deep(10000) + `}`, true},
		{deep(10000), false},
		{`{"steps": [` + deep(9998) + `], "meta": ` + deep(9999) + `}`, false},
	} {
		_, err := jsonpos.Parse([]byte(c.data))
		if got := err != nil && strings.Contains(err.Error(), "nesting deeper than"); got != c.tooDeep {
			t.Fatalf("%.40q…: jsonpos says %v, the test expects too deep = %v", c.data, err, c.tooDeep)
		}
		checkSyntaxLikeLint(t, plan, []byte(c.data))
	}
}
