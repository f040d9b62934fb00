package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestIndentJSONAsIndent holds IndentJSON to json.Indent for values no
// deeper than MaxIndentDepth, strings holding the structural characters
// and escaped quotes included.
func TestIndentJSONAsIndent(t *testing.T) {
	deepest := strings.Repeat("[", MaxIndentDepth-1) + `{"k":1,"l":{},"m":[]}` + strings.Repeat("]", MaxIndentDepth-1)
	for _, src := range []string{
		`1`, `"a"`, `[]`, `{}`, `[[]]`, `{"a":{}}`,
		`{"a":[1,2,{"b":null}],"c":"x,y:{[\"]}\\"}`,
		`[{"s":"\u2028<>&"},true,false,-1.5e3]`,
		deepest,
	} {
		var want, got bytes.Buffer
		if err := json.Indent(&want, []byte(src), "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := IndentJSON(&got, []byte(src)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("IndentJSON(%s):\n%s\nwant\n%s", src, got.String(), want.String())
		}
	}
}

// TestIndentJSONDeep: below MaxIndentDepth a value is written compact,
// so a value nested n deep stays about its own size (json.Indent: n²).
func TestIndentJSONDeep(t *testing.T) {
	const n = 9000 // json.Unmarshal reads at most 10000 deep
	src := `{"x":` + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "}"
	var got bytes.Buffer
	if err := IndentJSON(&got, []byte(src)); err != nil {
		t.Fatal(err)
	}
	if got.Len() > len(src)+4*MaxIndentDepth*MaxIndentDepth {
		t.Errorf("%d bytes indented to %d", len(src), got.Len())
	}
	var v, w any
	if err := json.Unmarshal(got.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(src), &w)
	a, _ := json.Marshal(v)
	b, _ := json.Marshal(w)
	if !bytes.Equal(a, b) {
		t.Error("the indented value is not the value")
	}
	want := "{\n  \"x\": [\n    [\n"
	if !strings.HasPrefix(got.String(), want) {
		t.Errorf("starts %q, want %q", got.String()[:40], want)
	}
}

// TestWriteJSONAsEncoder: WriteJSON is json.Encoder's indented output
// with HTML characters unescaped.
func TestWriteJSONAsEncoder(t *testing.T) {
	v := map[string]any{"a": []any{"<b>&", 1.5, map[string]any{}}, "z": nil}
	var want, got bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	if err := WriteJSON(&got, v); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}
