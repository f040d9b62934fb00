package expr

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// DecodeCheckedJSON is DecodeJSON for JSON a caller sent (an execute
// request's input or context): it applies the policy every reader of the
// project applies (docs/json.md), so a member name given twice or a byte
// that is not UTF-8 is an error at its line and column rather than
// silently the last value or U+FFFD, as encoding/json would read it. It
// decodes with jsonpos.Decode, which sizes every slice and map once: a
// Run holds its input for its whole length, and its memory limit charges
// what the values hold (CheckHeld).
func DecodeCheckedJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var over []byte
	v, err := jsonpos.Decode(data, func(text []byte) any {
		n := number(string(text))
		if f, ok := n.(float64); ok && math.IsInf(f, 0) && over == nil {
			over = text
		}
		return n
	})
	if err == nil && over != nil {
		return nil, &RangeError{Number: report.Clip(over), Pointer: overAt(data)}
	}
	return v, err
}

// RangeError is a JSON number past a 64-bit float's range (1e999999, a
// hundred thousand digits): JSON allows it, but decoded it is ±Inf, which
// compares as larger than any number and has no JSON form to output.
// Pointer is where the first such number is in the JSON decoded, for a
// diagnostic's path, which a command line turns into the number's line
// and column in the file (before, the whole value's 1:1).
type RangeError struct{ Number, Pointer string }

// overAt is the JSON Pointer of the first number of data, valid JSON, in
// document order past a float64's range. The values decoded have no
// places, so data is read again, with them: only on this error's path.
func overAt(data []byte) string {
	d, err := jsonpos.Parse(data)
	if err != nil {
		return ""
	}
	var rev []string // the pointer's tokens, innermost first
	var find func(n jsonpos.Node) bool
	find = func(n jsonpos.Node) bool {
		switch n.Kind() {
		case jsonpos.Number:
			f, ok := number(d.Text(n)).(float64)
			return ok && math.IsInf(f, 0)
		case jsonpos.Object:
			for _, m := range n.Members() {
				if find(m.Value) {
					rev = append(rev, pilotage.EscapePointerToken(m.Key))
					return true
				}
			}
		case jsonpos.Array:
			for i, e := range n.Elems() {
				if find(e) {
					rev = append(rev, strconv.Itoa(i))
					return true
				}
			}
		}
		return false
	}
	find(d.Root)
	var b strings.Builder
	for i := len(rev) - 1; i >= 0; i-- {
		b.WriteString("/" + rev[i])
	}
	return b.String()
}

func (e *RangeError) Error() string {
	return "the number " + e.Number + " is out of the range of a 64-bit float; send a smaller number, or a string"
}

// CheckJSON applies DecodeCheckedJSON's policy without decoding, for a
// caller that validates the JSON against a schema before it holds the
// decoded value, so the two are never in memory together.
func CheckJSON(data []byte) error {
	_, err := CheckHeld(data)
	return err
}

// DecodeJSON decodes JSON into the Go values CEL takes: integral numbers
// become int64 (so `input.n + 1` stays an int), other numbers float64.
func DecodeJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		return number(string(t))
	case []any:
		for i := range t {
			t[i] = normalize(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = normalize(t[k])
		}
	}
	return v
}

// number is the value of a JSON number's text: an int64 when it is
// integral and fits, a float64 otherwise (out of range, ±Inf).
func number(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// FromCEL converts a CEL value into a JSON-compatible Go value. Values
// JSON cannot hold are rendered the way CEL's JSON mapping does: bytes as
// base64, timestamps and durations as strings; non-finite doubles fail.
func FromCEL(v ref.Val) (any, error) {
	switch t := v.(type) {
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(t), nil
	case types.Int:
		return int64(t), nil
	case types.Uint:
		if uint64(t) > math.MaxInt64 {
			return uint64(t), nil // int64 wrapped it to a negative number
		}
		return int64(t), nil
	case types.Double:
		if math.IsNaN(float64(t)) || math.IsInf(float64(t), 0) {
			return nil, fmt.Errorf("the value %v has no JSON form", float64(t))
		}
		return float64(t), nil
	case types.String:
		return string(t), nil
	case types.Bytes:
		return base64.StdEncoding.EncodeToString([]byte(t)), nil
	case types.Timestamp:
		return t.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		return t.Duration.String(), nil
	case *types.Err:
		return nil, t
	}
	if m, ok := v.(traits.Mapper); ok {
		out := map[string]any{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.Value().(string)
			if !ok {
				ks = fmt.Sprint(k.Value())
			}
			if _, twice := out[ks]; twice {
				// {1: 'a', '1': 'b'}: JSON names are strings, and which
				// value was kept depended on the map's order.
				return nil, fmt.Errorf("the map has two keys that are the one JSON member name %s, which has no JSON form", report.Quote(ks))
			}
			ev, err := FromCEL(m.Get(k))
			if err != nil {
				return nil, err
			}
			out[ks] = ev
		}
		return out, nil
	}
	if l, ok := v.(traits.Lister); ok {
		out := []any{}
		it := l.Iterator()
		for it.HasNext() == types.True {
			ev, err := FromCEL(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
		return out, nil
	}
	if v.Type() == types.TypeType {
		return fmt.Sprint(v.Value()), nil
	}
	return nil, fmt.Errorf("a value of CEL type %s has no JSON form", v.Type().TypeName())
}

// Path walks the dotted member names path ("temp", "a.b") into v, as an
// activation resolves a qualified name ("steps.read.output.temp") once it
// has the value of its head; "" is v itself.
func Path(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, f := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[f]; !ok {
			return nil, false
		}
	}
	return v, true
}
