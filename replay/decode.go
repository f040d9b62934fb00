package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// typeProblem is a value of a snapshot that replay cannot read into the
// Go type it needs, with its place.
type typeProblem struct {
	node jsonpos.Node
	msg  string
}

// path is the JSON Pointer of a value decodeNode reads, spelled out only
// for a problem: a snapshot's guides are keyed by a Language's id, which
// may be a megabyte, and a pointer string for each value below that key
// would copy the id each time: gigabytes for 2,000 guides.
type path struct {
	up   *path
	name string // the member's name, when elem is false
	i    int    // the element's index, when elem is true
	elem bool
}

func (p *path) member(name string) *path { return &path{up: p, name: name} }
func (p *path) index(i int) *path        { return &path{up: p, i: i, elem: true} }

// String is the pointer, with each token clipped (report.ClipPointer),
// as a problem's message quotes it; its line:col place it.
func (p *path) String() string {
	if p == nil {
		return ""
	}
	if p.elem {
		return p.up.String() + "/" + strconv.Itoa(p.i)
	}
	return p.up.String() + "/" + report.Clip(pilotage.EscapePointerToken(p.name))
}

// mismatch words a value of JSON type got where type want is read.
func mismatch(n jsonpos.Node, ptr *path, want reflect.Type) *typeProblem {
	k := n.Kind().String()
	a := "a "
	if k == "object" || k == "array" {
		a = "an "
	}
	return &typeProblem{n, fmt.Sprintf("%s is %s%s, not %s", pointerOrRoot(ptr), a, k, jsonKind(want))}
}

func pointerOrRoot(ptr *path) string {
	if ptr == nil {
		return "the document"
	}
	return ptr.String()
}

// unmarshaler is the interface a type with its own JSON decoding has.
var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// decodeNode fills v from the parsed value n at JSON Pointer ptr, as
// json.Unmarshal would for the struct, map, slice, pointer and scalar
// types replay reads a snapshot into, and returns the first value that
// does not fit. json.Unmarshal itself says only "cannot unmarshal number
// into Go struct field …" with a dotted path and no array index; walking
// the jsonpos tree instead knows the line:col and JSON Pointer of every
// value. Members are matched by their exact name (member names are case
// sensitive in every Pilotage document) and unknown ones are ignored.
func decodeNode(doc *jsonpos.Doc, n jsonpos.Node, ptr *path, v reflect.Value) *typeProblem {
	t := v.Type()
	switch {
	case !n.Exists():
		return nil
	case reflect.PointerTo(t).Implements(unmarshaler):
		return decodeScalar(doc, n, ptr, v) // null included, as json.Unmarshal passes it on
	case n.Kind() == jsonpos.Null:
		return nil // null leaves the zero value, as json.Unmarshal does
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Struct && t.Kind() != reflect.Map && t.Kind() != reflect.Slice:
		return decodeScalar(doc, n, ptr, v)
	case t.Kind() == reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		return decodeNode(doc, n, ptr, v.Elem())
	case t.Kind() == reflect.Slice && n.Kind() == jsonpos.Array:
		v.Set(reflect.MakeSlice(t, n.Len(), n.Len()))
		for i, e := range n.Elems() {
			if p := decodeNode(doc, e, ptr.index(i), v.Index(i)); p != nil {
				return p
			}
		}
		return nil
	case t.Kind() == reflect.Map && n.Kind() == jsonpos.Object:
		v.Set(reflect.MakeMapWithSize(t, n.Len()))
		for _, m := range n.Members() {
			e := reflect.New(t.Elem()).Elem()
			if p := decodeNode(doc, m.Value, ptr.member(m.Key), e); p != nil {
				return p
			}
			v.SetMapIndex(reflect.ValueOf(m.Key).Convert(t.Key()), e)
		}
		return nil
	case t.Kind() == reflect.Struct && n.Kind() == jsonpos.Object:
		for _, m := range n.Members() {
			if i := fieldByName(t, m.Key); i >= 0 {
				if p := decodeNode(doc, m.Value, ptr.member(m.Key), v.Field(i)); p != nil {
					return p
				}
			}
		}
		return nil
	}
	return mismatch(n, ptr, t)
}

// decodeScalar decodes a leaf with encoding/json, which knows the
// number ranges and the types' own UnmarshalJSON, and words its refusal.
func decodeScalar(doc *jsonpos.Doc, n jsonpos.Node, ptr *path, v reflect.Value) *typeProblem {
	err := json.Unmarshal(doc.Raw(n), v.Addr().Interface())
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te) && te.Field == "":
		return mismatch(n, ptr, v.Type())
	}
	return &typeProblem{n, pointerOrRoot(ptr) + ": " + err.Error()}
}

// fieldByName returns the index of the field whose json tag names key.
func fieldByName(t reflect.Type, key string) int {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == key {
			return i
		}
	}
	return -1
}

// jsonKind names the JSON type a Go type is decoded from, with its
// article.
func jsonKind(t reflect.Type) string {
	if t == reflect.TypeFor[kindMember]() {
		return "a string" // a string that keeps its presence
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a number"
}
