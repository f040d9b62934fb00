package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// corpus returns the documents of testdata/corpus.txtar plus the generated
// ones that cannot be written as text: deep nesting around MaxDepth, huge
// strings, invalid UTF-8, a byte-order mark and UTF-16 and UTF-32 text.
func corpus(t testing.TB) map[string][]byte {
	ar, err := txtar.ParseFile("testdata/corpus.txtar")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	for _, f := range ar.Files {
		docs[f.Name] = f.Data
	}
	nest := func(n int, inner string) []byte {
		return []byte(strings.Repeat("[", n) + inner + strings.Repeat("]", n))
	}
	big := strings.Repeat("pilotage ", 1<<17) // 1.1 MB
	gen := map[string][]byte{
		"ok-depth-max-arrays":       nest(MaxDepth, ""),
		"ok-depth-max-with-scalar":  nest(MaxDepth, "1"),
		"bad-depth-over-max":        nest(MaxDepth+1, ""),
		"bad-depth-hostile":         nest(1_000_000, ""),
		"bad-depth-unclosed":        []byte(strings.Repeat(`{"a":[`, 200_000)),
		"ok-depth-max-objects":      []byte(strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)),
		"bad-depth-over-objects":    []byte(strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)),
		"ok-huge-string":            []byte(`{"body": "` + big + `"}`),
		"ok-huge-escaped-string":    []byte(`["` + strings.Repeat(`\n\u00e9`, 100_000) + `"]`),
		"ok-huge-array":             []byte("[" + strings.Repeat("1,", 200_000) + "1]"),
		"ok-long-number":            []byte("[" + strings.Repeat("9", 10_000) + "." + strings.Repeat("1", 10_000) + "]"),
		"bad-huge-unterminated":     []byte(`"` + big),
		"bad-bom":                   []byte("\xef\xbb\xbf{}"),
		"bad-utf16le-bom":           []byte("\xff\xfe{\x00}\x00"),
		"bad-utf16be-no-bom":        []byte("\x00[\x00]"),
		"bad-utf32le-no-bom":        []byte("[\x00\x00\x00]\x00\x00\x00"),
		"bad-invalid-utf8-string":   []byte("[\"a\xffb\"]"),
		"bad-invalid-utf8-key":      []byte("{\"\xc3\x28\": 1}"),
		"bad-invalid-utf8-outside":  []byte("[1, \xff]"),
		"bad-truncated-utf8":        []byte("[\"\xe6\x97\"]"),
		"bad-overlong-utf8":         []byte("[\"\xc0\xaf\"]"),
		"bad-surrogate-utf8":        []byte("[\"\xed\xa0\x80\"]"), // U+D800 encoded directly is not UTF-8
		"bad-nul-byte":              []byte("[\"a\x00\"]"),
		"bad-nul-outside":           []byte("[1]\x00"),
		"ok-escaped-nul":            []byte(`["a\u0000b"]`),
		"bad-lone-backslash-at-end": []byte(`["\`),
		"bad-unicode-escape-at-end": []byte(`["\u00`),
		"ok-replacement-char":       []byte("[\"\xef\xbf\xbd\"]"), // a literal U+FFFD is valid
	}
	for k, v := range gen {
		docs[k+".json"] = v
	}
	return docs
}

// decodeStd decodes src the way JSON Schema validation wants it:
// encoding/json with UseNumber.
func decodeStd(src []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// differential checks Parse against encoding/json on one document. Parse
// must accept exactly what json.Valid accepts, except invalid UTF-8 (RFC
// 8259 §8.1) and an object with two members of one name, which it
// rejects; Value must equal the UseNumber decode; every node's extent must
// be its exact source text.
func differential(t testing.TB, name string, src []byte) {
	doc, err := Parse(src)
	// Check says what Parse says, at the same place.
	if cerr := Check(src); fmt.Sprintf("%#v", cerr) != fmt.Sprintf("%#v", err) {
		t.Fatalf("%s: Check = %#v, Parse = %#v", name, cerr, err)
	}
	// Decode too, and its values are the tree's.
	decoded, derr := Decode(src, func(text []byte) any { return json.Number(text) })
	if fmt.Sprintf("%#v", derr) != fmt.Sprintf("%#v", err) {
		t.Fatalf("%s: Decode = %#v, Parse = %#v", name, derr, err)
	}
	want := json.Valid(src) && utf8.Valid(src) && !duplicateNames(src)
	if (err == nil) != want {
		t.Fatalf("%s: Parse error = %v, but json.Valid = %v, utf8.Valid = %v, duplicate names %v", name, err, json.Valid(src), utf8.Valid(src), duplicateNames(src))
	}
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%s: error %T is not a *SyntaxError", name, err)
		}
		checkPos(t, name, src, se.Pos)
		if doc == nil || doc.Root.Exists() {
			t.Fatalf("%s: a failed Parse must return a Doc with the zero Root", name)
		}
		return
	}
	std, err := decodeStd(src)
	if err != nil {
		t.Fatalf("%s: encoding/json cannot decode what Parse accepted: %v", name, err)
	}
	if got := doc.Root.Value(); !reflect.DeepEqual(got, std) {
		t.Fatalf("%s: Value() differs from encoding/json:\n got %.200v\nwant %.200v", name, got, std)
	}
	if !reflect.DeepEqual(decoded, std) {
		t.Fatalf("%s: Decode differs from encoding/json:\n got %.200v\nwant %.200v", name, decoded, std)
	}
	// ParseShared builds the same tree, strings shared or not.
	shared, err := ParseShared(src)
	if err != nil || dump(shared.Root) != dump(doc.Root) {
		t.Fatalf("%s: ParseShared gives another tree than Parse (error %v)", name, err)
	}
	if got, want := string(doc.Raw(doc.Root)), string(bytes.Trim(src, " \t\r\n")); got != want {
		t.Fatalf("%s: root extent %q, want the trimmed document", name, got)
	}
	checkExtents(t, name, doc, doc.Root)
}

// checkExtents verifies that every node's [Start, End) is its exact source
// text: a scalar's source decodes to the node, a container's source is
// delimited by its brackets and holds its children in order, and every key
// offset points at the key's opening quote. It is linear in the document,
// so it runs on the deepest and largest corpus documents too.
func checkExtents(t testing.TB, name string, doc *Doc, n Node) {
	if n.Start() < 0 || n.End() > len(doc.Src) || n.Start() >= n.End() {
		t.Fatalf("%s: %s node extent [%d,%d) out of bounds", name, n.Kind(), n.Start(), n.End())
	}
	raw := doc.Raw(n)
	next := n.Start() + 1 // children start after the opening bracket, in order
	inside := func(c Node) {
		if c.Start() < next || c.End() >= n.End() {
			t.Fatalf("%s: child [%d,%d) is not inside its parent [%d,%d) in order", name, c.Start(), c.End(), n.Start(), n.End())
		}
		next = c.End()
		checkExtents(t, name, doc, c)
	}
	switch n.Kind() {
	case Object:
		if raw[0] != '{' || raw[len(raw)-1] != '}' {
			t.Fatalf("%s: object at %d is not delimited by braces: %.40q", name, n.Start(), raw)
		}
		for i, m := range n.Members() {
			key := keyOf(n, i)
			if key.Start() < next || doc.Src[key.Start()] != '"' || doc.Src[key.End()-1] != '"' || key.End() >= m.Value.Start() || key.Str() != m.Key {
				t.Fatalf("%s: key %q extent [%d,%d) is not its quoted source", name, m.Key, key.Start(), key.End())
			}
			inside(m.Value)
		}
	case Array:
		if raw[0] != '[' || raw[len(raw)-1] != ']' {
			t.Fatalf("%s: array at %d is not delimited by brackets: %.40q", name, n.Start(), raw)
		}
		for _, e := range n.Elems() {
			inside(e)
		}
	default:
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || !reflect.DeepEqual(v, n.Value()) || dec.InputOffset() != int64(len(raw)) {
			t.Fatalf("%s: %s at %d: source %.80q does not decode to %v (%v)", name, n.Kind(), n.Start(), raw, n.Value(), err)
		}
	}
}

// keyOf is the key record of member i of object n, which Locate reports
// for a member's key.
func keyOf(n Node, i int) Node { return Node{n.d, n.children()[i]} }

// dump renders a tree with every kind, extent, key, key offset and string,
// so that two trees compare equal only when they are the same.
func dump(n Node) string {
	var b strings.Builder
	var walk func(n Node)
	walk = func(n Node) {
		fmt.Fprintf(&b, "%s[%d,%d)%q(", n.Kind(), n.Start(), n.End(), n.Str())
		for i, m := range n.Members() {
			fmt.Fprintf(&b, "%q@%d:", m.Key, keyOf(n, i).Start())
			walk(m.Value)
		}
		for _, e := range n.Elems() {
			walk(e)
		}
		b.WriteString(")")
	}
	walk(n)
	return b.String()
}

// checkPos verifies that a position is inside the document and that its
// line and column agree with its offset. A line ends at LF, CR LF or a
// lone CR (docs/json.md).
func checkPos(t testing.TB, name string, src []byte, p Pos) {
	if p.Offset < 0 || p.Offset > len(src) {
		t.Fatalf("%s: offset %d outside [0,%d]", name, p.Offset, len(src))
	}
	before := src[:p.Offset]
	line, start := 1, 0
	for i, c := range before {
		if c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			line, start = line+1, i+1
		}
	}
	col := utf8.RuneCount(before[start:]) + 1
	if p.Line != line || p.Column != col {
		t.Fatalf("%s: position %d:%d for offset %d, want %d:%d", name, p.Line, p.Column, p.Offset, line, col)
	}
}

func TestDifferentialCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("parses the whole corpus twice; run without -short")
	}
	docs := corpus(t)
	if len(docs) < 75 {
		t.Fatalf("corpus has only %d documents", len(docs))
	}
	for name, src := range docs {
		t.Run(name, func(t *testing.T) {
			differential(t, name, src)
			_, err := Parse(src)
			switch {
			case strings.HasPrefix(name, "ok-") && err != nil:
				t.Errorf("%s must parse: %v", name, err)
			case strings.HasPrefix(name, "bad-") && err == nil:
				t.Errorf("%s must not parse", name)
			}
		})
	}
}

// duplicateNames reports whether valid JSON src has an object with two
// members of one name, by encoding/json's tokens.
func duplicateNames(src []byte) bool {
	if !json.Valid(src) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	type frame struct {
		names  map[string]bool
		object bool
		key    bool // the next token of an object is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].key = true
				}
				continue
			}
			name := tok.(string)
			if top.names[name] {
				return true
			}
			top.names[name] = true
			top.key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{names: map[string]bool{}, object: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
}

// Syntax errors are reported at the offending character, as line:col with
// columns in characters, and say what was expected.
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		src  string
		pos  string
		says string
	}{
		{``, "1:1", "unexpected end of input; expected a value"},
		{"  \n  ", "2:3", "unexpected end of input"},
		{`{"a": 1,}`, "1:8", "trailing comma before '}'"},
		// Two members of one name, also when an escape spells it, and in
		// an object large enough for a map of its names.
		{`{"a": 1, "b": {"a": 2}, "a": 3}`, "1:25", `duplicate member name "a"; a member name appears once`},
		{"{\"a\": 1,\n \"\\u0061\": 2}", "2:2", `duplicate member name "a"`},
		{`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":0,"k11":1,"k12":2,"k13":3,"k14":4,"k15":5,"k16":6,"k17":7,"k3":8}`, "1:136", `duplicate member name "k3"`},
		// A name the message quotes is clipped: a 1 MB name twice in
		// one object was quoted whole in the error.
		{`{"` + strings.Repeat("n", 1<<20) + `": 1, "` + strings.Repeat("n", 1<<20) + `": 2}`, "1:1048585", `duplicate member name "` + strings.Repeat("n", 117) + `…"; a member`},
		{`{"` + strings.Repeat("n", 1<<20) + `" 1}`, "1:1048581", `expected ':' after member name "` + strings.Repeat("n", 117) + `…"`},
		{"[1,\n 2,\n]", "2:3", "trailing comma before ']'"},
		{`{"a" 1}`, "1:6", `unexpected '1'; expected ':' after member name "a"`},
		{`{"a": 1 "b": 2}`, "1:9", "expected ',' or '}' after an object member"},
		{`{a: 1}`, "1:2", "unexpected 'a'; expected a member name in double quotes"},
		{`[1 2]`, "1:4", "expected ',' or ']' after an array element"},
		{`{"a": 1} x`, "1:10", "unexpected 'x' after the top-level value"},
		{`{"a": "abc`, "1:7", "unterminated string"},
		{"{\n  \"a\": [1, 2]", "2:14", "the object has no closing '}'"},
		{"[\"line\nbreak\"]", "1:7", "control character 0x0a in string"},
		{`["\x41"]`, "1:3", `invalid escape '\x'`},
		{`["\u12"]`, "1:3", "invalid \\u escape"},
		{`[01]`, "1:2", "leading zeros"},
		{`[-]`, "1:3", "expected a digit after '-'"},
		{`[1.]`, "1:4", "expected a digit after '.'"},
		{`[1e+]`, "1:5", "expected a digit in the exponent"},
		{`[tru]`, "1:2", `invalid literal; expected "true"`},
		{`[NaN]`, "1:2", "unexpected 'N'; expected a value"},
		// Multi-byte characters count as one column each.
		{`{"é": "ü", "日本語": x}`, "1:19", "unexpected 'x'"},
		{"{\"😀\": 1,\n \"ß\": ,}", "2:7", "unexpected ','"},
		// Invalid UTF-8 is reported at the bad byte.
		{"[\"ab\xffc\"]", "1:5", "invalid UTF-8 byte 0xff in string"},
		{"[1, \xff]", "1:5", "unexpected byte 0xff"},
		// A byte order mark, or a file plainly in UTF-16 or UTF-32, is named
		// at 1:1 with what to do (RFC 8259 §8.1, CheckEncoding); a U+FEFF
		// anywhere else is a character like any other.
		{"\xef\xbb\xbf{}", "1:1", "the file starts with a UTF-8 byte order mark (EF BB BF), which JSON exchanged between systems must not carry (RFC 8259 §8.1) and Go's encoding/json refuses: save it as UTF-8 without BOM"},
		{"\xef\xbb\xbf", "1:1", "starts with a UTF-8 byte order mark"},
		{"\xff\xfe{\x00}\x00", "1:1", "the file is UTF-16 (byte order mark FF FE); JSON exchanged between systems must be UTF-8 (RFC 8259 §8.1): save it as UTF-8 (your editor's Save As offers the encoding), or convert it: iconv -f UTF-16 -t UTF-8"},
		{"\x00[\x00]", "1:1", "looks like UTF-16 without a byte order mark (its first byte is NUL); JSON exchanged between systems must be UTF-8 (RFC 8259 §8.1): save it as UTF-8 (your editor's Save As offers the encoding), or convert it: iconv -f UTF-16BE -t UTF-8"},
		{"{\x00\x00\x00}\x00\x00\x00", "1:1", "looks like UTF-32 without a byte order mark (its second to fourth bytes are NUL); JSON exchanged between systems must be UTF-8 (RFC 8259 §8.1): save it as UTF-8 (your editor's Save As offers the encoding), or convert it: iconv -f UTF-32LE -t UTF-8"},
		{" \xef\xbb\xbf{}", "1:2", "unexpected '\\ufeff'"},
		{"[\xef\xbb\xbf]", "1:2", "unexpected '\\ufeff'"},
		// A NUL later than beside the first character is a bad byte where it is.
		{"  \x00", "1:3", "unexpected '\\x00'"},
		// A literal U+FFFD is a character, not a bad byte.
		{"[\xef\xbf\xbd]", "1:2", "unexpected '�'"},
		{"\t[\r\n\t1,\r\n\t]", "2:3", "trailing comma"},
		{strings.Repeat("[", MaxDepth+1), "1:10001", "nesting deeper than 10000 levels"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.src))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%.40q) = %v, want a syntax error", tt.src, err)
			continue
		}
		if se.Pos.String() != tt.pos || !strings.Contains(se.Msg, tt.says) {
			t.Errorf("Parse(%.40q) error at %s %q; want at %s saying %q", tt.src, se.Pos, se.Msg, tt.pos, tt.says)
		}
		if !strings.HasPrefix(err.Error(), tt.pos+": ") {
			t.Errorf("Error() = %q does not start with the position", err.Error())
		}
		checkPos(t, tt.src, []byte(tt.src), se.Pos)
	}
}

const pointerDoc = `{
  "a/b": {"m~n": [10, {"x": "ü"}]},
  "list": [1, 2, 3],
  "日本": {"k": true},
  "obj": {"inner": null},
  "": {"": "empty"}
}`

func TestAt(t *testing.T) {
	doc, err := Parse([]byte(pointerDoc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr  string
		want string // source text of the node, "" when it must not resolve
	}{
		{"", pointerDoc},
		{"/a~1b", `{"m~n": [10, {"x": "ü"}]}`},
		{"/a~1b/m~0n/0", `10`},
		{"/a~1b/m~0n/1/x", `"ü"`},
		{"/list/2", `3`},
		{"/日本/k", `true`},
		{"/obj", `{"inner": null}`},
		{"/obj/inner", `null`},
		{"/", `{"": "empty"}`},
		{"//", `"empty"`},
		{"/a/b", ""},           // unescaped '/' splits tokens
		{"/a~1b/m~n", ""},      // '~n' is not an escape of '~'
		{"/list/3", ""},        // out of range
		{"/list/-1", ""},       // RFC 6901 '-' / negatives name no element
		{"/list/-", ""},        // the past-the-end element does not exist
		{"/list/01", ""},       // no leading zeros
		{"/list/+1", ""},       // no sign
		{"/list/1x", ""},       // not a number
		{"/list/", ""},         // empty index
		{"/list/0/deeper", ""}, // below a scalar
		{"/missing", ""},
		{"list", ""}, // not a pointer
		{"/list/99999999999999999999999", ""},
	}
	for _, tt := range tests {
		n := doc.Root.At(tt.ptr)
		got := ""
		if n.Exists() {
			got = string(doc.Raw(n))
		}
		if got != tt.want {
			t.Errorf("At(%q) = %q, want %q", tt.ptr, got, tt.want)
		}
	}
	var none Node
	if none.Exists() || none.At("/x").Exists() || none.Get("x").Exists() || none.Index(0).Exists() || none.String() != "" ||
		none.Str() != "" || none.Is(Null) || none.Has("x") || none.Len() != 0 || none.Value() != nil {
		t.Error("the zero Node resolves nothing")
	}
	for range none.Members() {
		t.Error("the zero Node has members")
	}
	for range none.Elems() {
		t.Error("the zero Node has elements")
	}
}

// Locate gives the position a finding points at: the value, its key, or
// the deepest existing ancestor when the pointer does not resolve.
func TestLocate(t *testing.T) {
	doc, err := Parse([]byte(pointerDoc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr      string
		key      bool
		pos      string
		resolved string
	}{
		{"", false, "1:1", ""},
		{"/a~1b", false, "2:10", "/a~1b"},
		{"/a~1b", true, "2:3", "/a~1b"},
		{"/a~1b/m~0n/1/x", false, "2:29", "/a~1b/m~0n/1/x"},
		{"/a~1b/m~0n/1/x", true, "2:24", "/a~1b/m~0n/1/x"},
		{"/a~1b/m~0n/0", true, "2:19", "/a~1b/m~0n/0"}, // array elements have no key: the value
		{"/日本/k", false, "4:15", "/日本/k"},              // columns in characters
		{"/日本/k", true, "4:10", "/日本/k"},
		{"/obj", true, "5:3", "/obj"},
		{"/obj/inner", false, "5:20", "/obj/inner"},
		{"/missing", false, "1:1", ""},                        // missing member: at the parent object
		{"/a~1b/m~0n/7", false, "2:18", "/a~1b/m~0n"},         // missing element: at the array
		{"/a~1b/m~0n/1/x/y", false, "2:29", "/a~1b/m~0n/1/x"}, // below a scalar: at the scalar
		{"/list/01", false, "3:11", "/list"},
		{"/list/-1", false, "3:11", "/list"},
		{"list", false, "1:1", ""},
		{"//", false, "6:12", "//"},
		{"/a~1b/m~n", false, "2:10", "/a~1b"}, // a malformed escape resolves nothing
	}
	for _, tt := range tests {
		pos, resolved := doc.Locate(tt.ptr, tt.key)
		if pos.String() != tt.pos || resolved != tt.resolved {
			t.Errorf("Locate(%q, %v) = %s %q, want %s %q", tt.ptr, tt.key, pos, resolved, tt.pos, tt.resolved)
		}
		checkPos(t, tt.ptr, doc.Src, pos)
	}
	// A document that did not parse locates everything at its start.
	bad, _ := Parse([]byte("{oops"))
	if pos, res := bad.Locate("/a", false); pos.String() != "1:1" || res != "" {
		t.Errorf("Locate on a failed parse = %s %q", pos, res)
	}
}

func TestPosition(t *testing.T) {
	src := []byte("ab\n\tçd\r\n😀x\n")
	doc := &Doc{Src: src}
	for _, tt := range []struct {
		off  int
		want string
	}{
		{0, "1:1"}, {2, "1:3"}, {3, "2:1"}, {4, "2:2"}, {6, "2:3"}, {7, "2:4"}, {9, "3:1"},
		{13, "3:2"}, {15, "4:1"}, {-5, "1:1"}, {1000, "4:1"},
	} {
		if got := doc.Position(tt.off); got.String() != tt.want {
			t.Errorf("Position(%d) = %s, want %s", tt.off, got, tt.want)
		}
	}
}

// Position on long lines goes through marks; at every offset, including
// offsets inside a multi-byte character and after invalid bytes, it must
// agree with counting from the start of the line.
func TestPositionLongLines(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 8*markEvery; i++ {
		switch i % 7 {
		case 0:
			b.WriteString("日本語")
		case 1:
			b.WriteString("\xff\xe6\x97")
		case 2:
			b.WriteString("😀")
		case 3:
			if i%3 == 0 {
				b.WriteString("\r\n")
			}
		default:
			b.WriteString("abc")
		}
	}
	src := b.Bytes()
	doc := &Doc{Src: src}
	for off := 0; off <= len(src); off++ {
		checkPos(t, "long", src, doc.Position(off))
	}
	if len(doc.marks) < 8 {
		t.Errorf("only %d marks on %d bytes", len(doc.marks), len(src))
	}
}

func TestNodeAccessors(t *testing.T) {
	doc, err := Parse([]byte(`{"s": "x", "n": -1.5e3, "b": false, "t": true, "z": null, "a": [1], "e": {}, "esc": "\u00e9\"\\"}`))
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Root
	if r.Get("s").String() != "x" || r.Get("n").Str() != "-1.5e3" || r.Get("b").Bool() || !r.Get("t").Bool() || !r.Get("b").Is(Bool) ||
		!r.Get("z").Is(Null) || !r.Has("z") || r.Has("nope") || r.Get("a").Index(0).Str() != "1" || r.Get("a").Index(1).Exists() ||
		r.Get("a").Index(-1).Exists() || r.Get("n").String() != "" || r.Get("a").Get("x").Exists() || r.Get("s").Index(0).Exists() ||
		r.Get("esc").String() != "é\"\\" || r.Get("z").Str() != "" || r.Len() != 8 || r.Get("a").Len() != 1 ||
		r.Get("e").Len() != 0 || r.Get("s").Len() != 0 {
		t.Error("accessors disagree with the document")
	}
	kinds := []string{}
	for i, m := range r.Members() {
		if i != len(kinds) {
			t.Errorf("member %q has index %d, want %d", m.Key, i, len(kinds))
		}
		kinds = append(kinds, m.Value.Kind().String())
	}
	if got := strings.Join(kinds, ","); got != "string,number,boolean,boolean,null,array,object,string" {
		t.Errorf("kinds = %s", got)
	}
	// Ending a loop early stops the iteration.
	for i := range r.Members() {
		if i > 0 {
			t.Fatal("Members went on after the loop ended")
		}
		break
	}
}

// Parse copies the source once the document parses; ParseShared's strings
// without escapes and its Text are views of the caller's source, strings
// with escapes are copies in both.
func TestParseSharedStrings(t *testing.T) {
	src := []byte(`{"key": "value", "n": 12, "esc": "a\nb", "a": ["x", "y"]}`)
	copied, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := ParseShared(src)
	if err != nil {
		t.Fatal(err)
	}
	text := copied.Text(copied.Root.Get("n"))
	sharedText := shared.Text(shared.Root.Get("n"))
	for i := range src {
		if src[i] == 'y' || src[i] == '2' || src[i] == 'b' {
			src[i] = 'Z'
		}
	}
	if got := copied.Root.Get("a").Index(1).Str() + copied.Root.Get("n").Str() + copied.Root.Get("esc").Str(); got != "y12a\nb" {
		t.Errorf("Parse's strings changed with the source: %q", got)
	}
	if got := shared.Root.Get("a").Index(1).Str() + shared.Root.Get("n").Str() + shared.Root.Get("esc").Str(); got != "Z1Za\nb" {
		t.Errorf("ParseShared's strings = %q, want views of the source where unescaped", got)
	}
	for _, m := range shared.Root.Members() {
		if m.Key != "keZ" {
			t.Errorf("ParseShared's key = %q, want a view of the source", m.Key)
		}
		break
	}
	if got := copied.Text(copied.Root.Get("a")) + shared.Text(shared.Root.Get("a")); got != `["x", "y"]["x", "Z"]` {
		t.Errorf("Text after a change of the source = %q", got)
	}
	if text != "12" || sharedText != "1Z" {
		t.Errorf("Text taken before a change of the source: copy %q (want 12), view %q (want 1Z)", text, sharedText)
	}
}

// Records come in chunks of chunkLen and children are ranges of one
// shared slice: containers whose records straddle a chunk boundary, and
// nested containers closing between a parent's children, keep their own
// children.
func TestChunksAndRanges(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"outer": [`)
	for i := range 3 * chunkLen / 4 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": %d, "tags": ["t%d", [%d]], "e": {}}`, i, i, i)
	}
	b.WriteString(`], "after": "last"}`)
	doc, err := ParseShared([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.records.chunks) < 3 || len(doc.kids.chunks) < 3 {
		t.Fatalf("only %d chunks of records and %d of kids: the document does not cross chunk boundaries",
			len(doc.records.chunks), len(doc.kids.chunks))
	}
	outer := doc.Root.Get("outer")
	if outer.Len() != 3*chunkLen/4 || doc.Root.Get("after").String() != "last" {
		t.Fatalf("outer has %d elements, after = %q", outer.Len(), doc.Root.Get("after").String())
	}
	for i, e := range outer.Elems() {
		id, tags := e.Get("id").Str(), e.Get("tags")
		want := strconv.Itoa(i)
		if id != want || tags.Index(0).String() != "t"+want || tags.Index(1).Index(0).Str() != want || e.Get("e").Len() != 0 {
			t.Fatalf("element %d = %s", i, doc.Raw(e))
		}
	}
	checkExtents(t, "chunks", doc, doc.Root)
}

// Records and children are addressed by uint32 indices. Past the last
// chunk those reach, parsing fails with an error rather than wrapping an
// index around: the slabs start here as full as a document near MaxSize
// could make them (every chunk one full chunk, shared).
func TestIndexOverflow(t *testing.T) {
	kids := fullChunks[uint32]() // 24 MiB of slice headers: made once
	for _, fill := range []func(d *Doc){
		func(d *Doc) { d.records.chunks = fullChunks[record]() },
		func(d *Doc) { d.kids.chunks = kids },
	} {
		p := parser{src: []byte(`{"a": [1]}`), d: &Doc{}}
		fill(p.d)
		if p.value(0); p.err == nil || p.err.Error() != tooMany {
			t.Errorf("parsing past the last addressable chunk: error %v, want %q", p.err, tooMany)
		}
	}
	// One chunk less is enough. (Cut at the end, the slice has room for
	// the chunk parsing adds: growing it would copy 24 MiB.)
	p := parser{src: []byte(`{"a": [1]}`), d: &Doc{}}
	p.d.kids.chunks = kids[:len(kids)-1]
	if p.value(0); p.err != nil {
		t.Errorf("parsing with a chunk left: %v", p.err)
	}
}

// fullChunks returns maxChunks chunks that are full.
func fullChunks[T any]() [][]T {
	full := make([]T, chunkLen)
	chunks := make([][]T, maxChunks)
	for i := range chunks {
		chunks[i] = full
	}
	return chunks
}

// The point of the representation: a tree of about one byte per input
// byte. A record must stay 16 bytes, and parsing the example snapshot of
// docs/examples must allocate at most one byte per input byte besides the
// unescaped copies of its strings with escapes (its guide bodies, more
// than half of it), children slice regrowth included.
func TestTreeSize(t *testing.T) {
	if got := unsafe.Sizeof(record{}); got != 16 {
		t.Errorf("a record is %d bytes, want 16", got)
	}
	src, err := os.ReadFile("../../../docs/examples/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	// The least of three parses: TotalAlloc is the process's, so a
	// goroutine an earlier test left running can add to one reading.
	perByte := math.Inf(1)
	for range 3 {
		var (
			doc *Doc
			err error
		)
		alloc := memtest.Allocated(func() { doc, err = ParseShared(src) })
		if err != nil {
			t.Fatal(err)
		}
		unescaped := 0
		for _, s := range doc.strs {
			unescaped += len(s)
		}
		perByte = min(perByte, float64(int(alloc)-unescaped)/float64(len(src)))
	}
	if perByte > 1 {
		t.Errorf("parsing %d bytes allocated %.2f bytes per byte besides its unescaped strings, want at most 1", len(src), perByte)
	}
}

func TestValueWith(t *testing.T) {
	doc, err := Parse([]byte(`{"keep": [1, {"x": true}], "cut": {"deep": [1, 2, 3]}, "s": "t"}`))
	if err != nil {
		t.Fatal(err)
	}
	cut := doc.Root.Get("cut")
	got := doc.Root.ValueWith(func(n Node) (any, bool) { return "replaced", n == cut })
	want := map[string]any{"keep": []any{json.Number("1"), map[string]any{"x": true}}, "cut": "replaced", "s": "t"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ValueWith = %v, want %v", got, want)
	}
}

// TestCheckHoldsNoTree: checking 16 MB of one-character values allocates
// a small part of what their tree takes (ten bytes a byte), and finds a
// member name given twice among 100,000 as Parse does.
func TestCheckHoldsNoTree(t *testing.T) {
	if testing.Short() {
		t.Skip("a 16 MB input; run without -short")
	}
	src := []byte("[" + strings.Repeat("1,", 8<<20) + "1]")
	var err error
	n := memtest.Allocated(func() { err = Check(src) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 1<<20 {
		t.Errorf("Check of %d bytes allocated %d bytes, want under 1 MiB", len(src), n)
	}
	var b strings.Builder
	b.WriteString("[{")
	for i := range 100_000 {
		fmt.Fprintf(&b, `"k%d": [1, {"k%d": "\u0061"}], `, i, i)
	}
	b.WriteString(`"k5": 1}]`)
	differential(t, "100,000 names and a duplicate", []byte(b.String()))
	if err := Check([]byte(b.String())); err == nil || !strings.Contains(err.Error(), `duplicate member name "k5"`) {
		t.Errorf("Check = %v, want the duplicate k5", err)
	}
}

// TestCheckHoldsOpenNames: Check holds the names of the objects still
// open and nothing of those closed (it held a 16-byte record of every
// name: 16 MB of {"a":0} took 2 bytes a byte), a set of the names of a
// large object at 5.3 to 10.7 bytes a name (a map of them took 16 bytes
// a byte of 2.4 MB of short names), and finds a name given twice in a
// large object as Parse does: written with escapes or not, in an object
// inside another, or after the set grew.
func TestCheckHoldsOpenNames(t *testing.T) {
	if testing.Short() {
		t.Skip("inputs of megabytes; run without -short")
	}
	closed := []byte("[" + strings.Repeat(`{"a":0},`, 2<<20) + `{"a":0}]`)
	var err error
	if n := memtest.Allocated(func() { err = Check(closed) }); err != nil || n > 1<<10 {
		t.Errorf("Check of %d bytes of small objects = %v, allocating %d bytes; want nil and nothing", len(closed), err, n)
	}
	// 300,000 distinct names of one to four letters, 8 bytes a member.
	names := make([]string, 300_000)
	for i := range names {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		for j := i; ; j /= len(letters) {
			names[i] += string(letters[j%len(letters)])
			if j < len(letters) {
				break
			}
		}
	}
	wide := []byte(`{"` + strings.Join(names, `":0,"`) + `":0}`)
	n := memtest.Allocated(func() { err = Check(wide) })
	t.Logf("Check of %d names in %d bytes allocated %d bytes, %.1f a byte", len(names), len(wide), n, float64(n)/float64(len(wide)))
	// The set ends at most 8/3 slots a name, having been every power of
	// two below, so that it allocated at most 2*4*8/3 bytes a name; the
	// names in it are not listed on the stack of open names too.
	if err != nil || n > 22*uint64(len(names)) {
		t.Errorf("Check of %d names = %v, allocating %d bytes; want nil and at most 22 bytes a name", len(names), err, n)
	}
	object := func(names []string, last string) string {
		return `{"` + strings.Join(names, `":0,"`) + `":0,` + last + `}`
	}
	for _, c := range []struct{ name, src, dup string }{
		{"the first name again, last", object(names[:1000], `"a":1`), "a"},
		{"a name again, written with escapes", object(names[:1000], `"\u0062":1`), "b"},
		{"a name with escapes, again as is", object(append([]string{`\u00e9`}, names[:100]...), `"é":1`), "é"},
		{"in an object inside a large one", `{"a":` + object(names[:20], `"zz":{"x":1,"x":2}`) + `,"b":1}`, "x"},
		{"in a large one after a small one", `{"_x":{"_y":1},` + object(names[:40], `"_y":1,"_x":2`)[1:], "_x"},
		{"an escaped name of a closed object", `{"_o":{"\u0061":1},` + object(names[1:30], `"a":2`)[1:], ""},
		{"names of 30 objects, none twice", `[` + strings.Repeat(object(names[:30], `"é":1`)+",", 30) + `{}]`, ""},
		{"the 18th name, the 17th again, then a trailing comma", object(names[:16], `"b":1,"b":2,`), "b"},
	} {
		differential(t, c.name, []byte(c.src))
		err := Check([]byte(c.src))
		if want := DuplicateName(c.dup); c.dup == "" && err != nil || c.dup != "" && (err == nil || !strings.HasSuffix(err.Error(), want)) {
			t.Errorf("%s: Check = %v, want %s", c.name, err, want)
		}
	}
}

// TestScanHoldsNothing: ScanTally allocates nothing for a document of
// values or of member names, however many, leaves a name given twice to
// the reader, and refuses with OverBudget what CheckBudget does, in its
// words. The array over the budget holds 4 Mi values, 1 Mi in -short
// (2 MiB, its tree 40 MiB against a budget of 14).
func TestScanHoldsNothing(t *testing.T) {
	over := 4 << 20
	if testing.Short() {
		over = 1 << 20
	}
	var b strings.Builder
	b.WriteString(`{"a": [`)
	for i := range 20_000 {
		fmt.Fprintf(&b, `{"k%d": [1, true, "s"]}, `, i)
	}
	b.WriteString(`{"k": 1, "k": 2}], "b": 1}`)
	wide := []byte(b.String())
	var err error
	if n := memtest.Allocated(func() { _, err = ScanTally(wide) }); err != nil || n > 1<<10 {
		t.Errorf("ScanTally of %d bytes = %v, allocating %d bytes; want nil and nothing", len(wide), err, n)
	}
	if err := CheckBudget(wide); err == nil || !strings.Contains(err.Error(), `duplicate member name "k"`) {
		t.Errorf("CheckBudget = %v, want the duplicate", err)
	}
	for _, src := range [][]byte{
		[]byte("[" + strings.Repeat("1,", over) + "1]"), // over the budget
		[]byte(`{"a": [1, 2,]}`),
		[]byte(`{"a\u0062" 1}`),
		[]byte(`{"a": "x` + "\xff" + `"}`),
	} {
		tally, serr := ScanTally(src)
		if serr == nil {
			serr = tally.OverBudget(len(src))
		}
		if cerr := CheckBudget(src); serr == nil || cerr == nil || serr.Error() != cerr.Error() {
			t.Errorf("ScanTally(%.40s) and OverBudget = %v, want CheckBudget's %v", src, serr, cerr)
		}
	}
}

// treeTally counts from Parse's tree what CheckTally counts while
// checking.
func treeTally(n Node, t *Tally) {
	written := func(s Node) int64 { return int64(s.End() - s.Start() - 2) }
	switch n.Kind() {
	case Object:
		t.Objects++
		if n.Len() > 0 {
			t.FilledObjects++
		}
		for _, m := range n.Members() {
			t.Members++
			t.NameBytes += written(Node{n.d, m.Value.i - 1})
			treeTally(m.Value, t)
		}
	case Array:
		t.Arrays++
		for _, e := range n.Elems() {
			t.Elements++
			treeTally(e, t)
		}
	case String:
		t.Strings++
		t.StringBytes += written(n)
	case Number:
		t.Numbers++
	default:
		t.Literals++
	}
}

// TestCheckTally: CheckTally counts what the tree holds, escapes as
// written, and nothing of a document with an error.
func TestCheckTally(t *testing.T) {
	src := []byte(`{"a": [1, -2.5e3, "x\u0061", [], {}, true, null], "b\n": {"c": false}, "": ""}`)
	got, err := CheckTally(src)
	if err != nil {
		t.Fatal(err)
	}
	want := Tally{Objects: 3, Arrays: 2, Strings: 2, Numbers: 2, Literals: 3, FilledObjects: 2,
		Members: 4, Elements: 7, StringBytes: 7, NameBytes: 5}
	if got != want {
		t.Errorf("CheckTally = %+v\nwant %+v", got, want)
	}
	if got, err := CheckTally([]byte(`[1, 2,]`)); err == nil || got != (Tally{}) {
		t.Errorf("CheckTally of a trailing comma = %+v, %v; want the zero Tally and an error", got, err)
	}
}

// FuzzParse: Parse agrees with encoding/json (json.Valid, UseNumber
// decode), never panics, and every position it reports is inside the input
// and consistent with its offset.
func FuzzParse(f *testing.F) {
	for _, src := range corpus(f) {
		if len(src) < 4096 {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		differential(t, "fuzz", src)
		doc, err := Parse(src)
		// Within the budget's allowance, as every input here is, readers
		// that check first (lint, replay --plan) refuse what Parse does,
		// in its words and at its place.
		if berr := CheckBudget(src); fmt.Sprint(berr) != fmt.Sprint(err) {
			t.Fatalf("CheckBudget = %v; Parse gives %v", berr, err)
		}
		// A scan gives the same answer but for a name given twice, which
		// it leaves to the decoder it hands the document to, and the
		// same tally.
		scanned, serr := ScanTally(src)
		if fmt.Sprint(serr) != fmt.Sprint(err) && !strings.Contains(fmt.Sprint(err), "duplicate member name") {
			t.Fatalf("ScanTally = %v; Parse gives %v", serr, err)
		}
		// Read a part at a time, the document has the same errors and,
		// unfolded, the same tree.
		for fold := 1; fold <= 3; fold++ {
			folded, ferr := ParseSharedTo(src, fold)
			if fmt.Sprint(ferr) != fmt.Sprint(err) {
				t.Fatalf("ParseSharedTo(%d) = %v; Parse gives %v", fold, ferr, err)
			}
			if err == nil {
				sameTree(t, doc.Root, folded.Root, fold, "")
			}
		}
		if err != nil {
			return
		}
		var want Tally
		treeTally(doc.Root, &want)
		if got, err := CheckTally(src); err != nil || got != want || scanned != want {
			t.Fatalf("CheckTally = %+v, %v, ScanTally %+v; the tree holds %+v", got, err, scanned, want)
		}
		// Locating every value and key gives in-bounds, consistent positions.
		var walk func(n Node, ptr string)
		walk = func(n Node, ptr string) {
			for _, key := range []bool{false, true} {
				pos, resolved := doc.Locate(ptr, key)
				checkPos(t, ptr, src, pos)
				if resolved != ptr {
					t.Fatalf("Locate(%q) resolved only %q", ptr, resolved)
				}
			}
			if doc.Root.At(ptr) != n {
				t.Fatalf("At(%q) does not resolve to its node", ptr)
			}
			for _, m := range n.Members() {
				if n.Get(m.Key) != m.Value {
					t.Fatalf("Get(%q) of %q is not its member", m.Key, ptr)
				}
				walk(m.Value, ptr+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(m.Key))
			}
			for i, e := range n.Elems() {
				if n.Index(i) != e {
					t.Fatalf("Index(%d) of %q is not its element", i, ptr)
				}
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
		walk(doc.Root, "")
	})
}

// sameTree fails t where folded, a tree read fold levels deep and
// unfolded as it is walked, differs from whole, the tree of the same
// value read whole.
func sameTree(t *testing.T, whole, folded Node, fold int, ptr string) {
	t.Helper()
	if whole.Folded() {
		t.Fatalf("%q is folded in a tree read whole", ptr)
	}
	folded, err := folded.UnfoldIn(new(Doc), fold)
	if err != nil {
		t.Fatalf("UnfoldIn of %q: %v", ptr, err)
	}
	if folded.Folded() || whole.Kind() != folded.Kind() || whole.Str() != folded.Str() || whole.Len() != folded.Len() ||
		whole.End()-whole.Start() != folded.End()-folded.Start() {
		t.Fatalf("%q: %v %q of %d, folded %v %q of %d", ptr, whole.Kind(), whole.Str(), whole.Len(), folded.Kind(), folded.Str(), folded.Len())
	}
	var keys []string
	var values []Node
	for _, m := range folded.Members() {
		keys, values = append(keys, m.Key), append(values, m.Value)
	}
	for _, e := range folded.Elems() {
		values = append(values, e)
	}
	for i, m := range whole.Members() {
		if keys[i] != m.Key {
			t.Fatalf("%q: member %d is %q, folded %q", ptr, i, m.Key, keys[i])
		}
		sameTree(t, m.Value, values[i], fold, ptr+"/"+m.Key)
	}
	for i, e := range whole.Elems() {
		sameTree(t, e, values[i], fold, ptr+"/"+strconv.Itoa(i))
	}
}

// A large object is looked up through a map of its keys: the same
// answers as the scan of a small one, from several goroutines at once.
func TestLookupLargeObject(t *testing.T) {
	for _, n := range []int{indexFrom - 1, indexFrom, 3 * indexFrom} {
		var b strings.Builder
		b.WriteString(`{"first": 0`)
		for i := range n {
			fmt.Fprintf(&b, `, "k%d": %d`, i, i)
		}
		b.WriteString(`, "last": 1, "esc\u0061ped": 2}`)
		d, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					if got := d.Root.Get(fmt.Sprintf("k%d", i)); got.Str() != fmt.Sprint(i) {
						t.Errorf("%d members: Get(k%d) = %q", n, i, got.Str())
					}
				}
				if got, last := d.Root.Get("first"), d.Root.Get("last"); got.Str() != "0" || last.Str() != "1" {
					t.Errorf("%d members: Get(first), Get(last) = %q, %q", n, got.Str(), last.Str())
				}
				if got := d.Root.At("/escaped"); got.Str() != "2" {
					t.Errorf("%d members: At(/escaped) = %q", n, got.Str())
				}
				if d.Root.Has("k-1") || d.Root.Has("") {
					t.Errorf("%d members: Has a key the object lacks", n)
				}
			}()
		}
		wg.Wait()
	}
}

// TestTreeBytesBoundsParse: what Parse allocates for a tree is within a
// quarter over TreeBytes of the document's tally, and not far below it,
// on a real snapshot and on dense hostile shapes. (Strings with escapes
// and objects of thousands of members allocate up to three times it:
// docs/performance.md, "Hostile inputs", what remains.)
func TestTreeBytesBoundsParse(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the trees of large generated documents; run without -short")
	}
	real, err := os.ReadFile("../../../docs/examples/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{
		"snapshot":             real,
		"one-character values": []byte("[" + strings.Repeat("0,", 1<<20) + "0]"),
		"small objects":        []byte("[" + strings.Repeat(`{"a":1},`, 1<<17) + "{}]"),
	}
	for name, src := range docs {
		tally, err := CheckTally(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		est := tally.TreeBytes()
		// The least of three parses: TotalAlloc is the process's.
		alloc := uint64(math.MaxUint64)
		for range 3 {
			alloc = min(alloc, memtest.Allocated(func() {
				if _, err := ParseShared(src); err != nil {
					t.Fatal(err)
				}
			}))
		}
		t.Logf("%s: %d bytes, Parse allocated %d, TreeBytes %d", name, len(src), alloc, est)
		if float64(alloc) > 1.25*float64(est) {
			t.Errorf("%s: Parse allocated %d bytes, over 1.25 times TreeBytes %d", name, alloc, est)
		}
		if float64(alloc) < 0.4*float64(est) && est > 1<<20 {
			t.Errorf("%s: Parse allocated %d bytes, under 0.4 of TreeBytes %d: the estimate refuses what fits", name, alloc, est)
		}
	}
}

// TestRealTreesInBudget: the trees of real manifests and snapshots take
// a small part of TreeBudget, and 16 MiB of one-character values is over
// it, so readers refuse only hostile documents.
func TestRealTreesInBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("parses every real manifest and snapshot for its tree's size; run without -short")
	}
	files, _ := filepath.Glob("../../../docs/examples/*.json")
	golden, _ := filepath.Glob("../../../workbench/emit/testdata/golden/*/snapshot.json")
	files = append(files, golden...)
	if len(files) < 4 {
		t.Fatalf("found %d real documents: %v", len(files), files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tally, err := CheckTally(src)
		if err != nil {
			continue // the examples of malformed JSON
		}
		if tree, budget := tally.TreeBytes(), TreeBudget(len(src)); tree > budget/2 || CheckBudget(src) != nil {
			t.Errorf("%s: its tree would take %d bytes, over half the budget of %d", f, tree, budget)
		}
	}
	src := []byte("[" + strings.Repeat("0,", 8<<20-1) + "0]")
	tally, err := CheckTally(src)
	if err != nil {
		t.Fatal(err)
	}
	var be *BudgetError
	if !errors.As(CheckBudget(src), &be) || be.Tree != tally.TreeBytes() || be.Budget != TreeBudget(len(src)) || be.Values != 8<<20+1 {
		t.Errorf("16 MiB of one-character values: CheckBudget = %+v, want the tree %d over the budget %d", be, tally.TreeBytes(), TreeBudget(len(src)))
	}
	bad := []byte("[" + strings.Repeat("0,", 8<<20) + "]")
	_, perr := Parse(bad)
	if err := CheckBudget(bad); err == nil || err.Error() != perr.Error() {
		t.Errorf("malformed JSON: CheckBudget = %v, want Parse's %v", err, perr)
	}
}

// TestDecodeAllocates: Decode of an array of one-character values, at
// the top or as a member (a Run's input), allocates one 16-byte slot a
// value: its stack's, which the array takes over (builder.handOver),
// beside the records of member names (a first chunk of half a byte a
// byte of the document).
// Copied out of the stack it took two; encoding/json's Decode into an any
// grows the array by appending and boxes every number's text (3.5 times
// as much, 22 MB for these 400 KB).
func TestDecodeAllocates(t *testing.T) {
	const n = 200_000
	ones := strings.Repeat("1,", n-1) + "1"
	one := any(int64(1))
	for _, doc := range []string{"[" + ones + "]", `{"before": [1], "x": [` + ones + `], "after": {"y": [1, 2]}}`} {
		src := []byte(doc)
		var v any
		var err error
		alloc := memtest.Allocated(func() { v, err = Decode(src, func([]byte) any { return one }) })
		if err != nil {
			t.Fatal(err)
		}
		arr, _ := v.([]any)
		if m, ok := v.(map[string]any); ok {
			arr, _ = m["x"].([]any)
		}
		if len(arr) != n {
			t.Fatalf("Decode = %d values; want %d", len(arr), n)
		}
		t.Logf("%d values: Decode allocated %d bytes", n, alloc)
		if alloc > uint64(16*n+len(src)/2+64<<10) {
			t.Errorf("Decode allocated %d bytes for %d values, over one 16-byte slot a value", alloc, n)
		}
	}
}

// TestDecodeHandsOverLikeEncodingJSON: a large array that takes the
// stack's memory over leaves what comes after it, and what it sits in,
// as encoding/json decodes them; and appending to it does not write into
// the stack that goes on.
func TestDecodeHandsOverLikeEncodingJSON(t *testing.T) {
	ones := strings.Repeat("1,", 60) + "1"
	for _, doc := range []string{
		"[" + ones + "]",
		`[[` + ones + `], 2, [3, [4]], {"a": 5}]`,
		`{"a": {"b": [` + ones + `]}, "c": [6, 7], "d": "e"}`,
		`{"a": [[` + ones + `], [` + ones + `]], "z": 1}`,
	} {
		v, err := Decode([]byte(doc), func(b []byte) any { return json.Number(b) })
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Errorf("Decode(%.40q…) = %v\nwant %v", doc, v, want)
		}
		if arr, ok := v.([]any); ok && cap(arr) != len(arr) {
			t.Errorf("the array handed over has room past its end (%d of %d), where an append would write", len(arr), cap(arr))
		}
	}
}
