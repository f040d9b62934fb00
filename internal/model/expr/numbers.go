package expr

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
)

// JSON has one number type and CEL two, which do not mix in arithmetic.
// A number takes its CEL type from the schema that describes it:
// `"type": "number"` declares a double and `"type": "integer"` an int, and
// values are converted to match when an expression reads them (10 is read
// as 10.0 where the schema says number, so `input.price * 1.2` works).
// A number no schema types keeps DecodeJSON's rule: an int when its JSON
// text has no fraction or exponent, a double otherwise. The rule is stated
// to Language users in internal/model/language/semantics.go.

// maxConvDepth bounds how deep number typing follows a schema; numbers
// deeper than that keep the untyped rule.
const maxConvDepth = 32

// conv is the number typing of a schema: which numbers inside a value it
// types, and as what.
type conv struct {
	// kind is 'd' for a number (ints become doubles), 'i' for an integer
	// (integral doubles become ints), 0 for neither.
	kind  byte
	props map[string]*conv
	// extra types the members additionalProperties describes.
	extra *conv
	items *conv
}

// convOf returns the number typing of s, nil when s types no number.
func convOf(s Schema, depth int) *conv {
	if s == nil || depth > maxConvDepth {
		return nil
	}
	c := &conv{kind: numberKind(s["type"])}
	sub := func(v any) *conv {
		m, _ := v.(map[string]any)
		return convOf(Schema(m), depth+1)
	}
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if pc := sub(p); pc != nil {
			if c.props == nil {
				c.props = map[string]*conv{}
			}
			c.props[name] = pc
		}
	}
	c.extra, c.items = sub(s["additionalProperties"]), sub(s["items"])
	if c.kind == 0 && c.props == nil && c.extra == nil && c.items == nil {
		return nil
	}
	return c
}

// numberKind reads a schema's type: "number" or "integer", alone or with
// "null" and other non-numeric types. A type list admitting both is
// left to the untyped rule.
func numberKind(t any) byte {
	var ts []any
	switch t := t.(type) {
	case string:
		ts = []any{t}
	case []any:
		ts = t
	}
	number, integer := slices.Contains(ts, any("number")), slices.Contains(ts, any("integer"))
	switch {
	case number && !integer:
		return 'd'
	case integer && !number:
		return 'i'
	}
	return 0
}

// key writes c in a canonical form, part of an environment's identity.
func (c *conv) key(b *strings.Builder) {
	if c.kind != 0 {
		b.WriteByte(c.kind)
	}
	if c.props != nil {
		b.WriteByte('{')
		for _, name := range slices.Sorted(maps.Keys(c.props)) {
			b.WriteString(name)
			b.WriteByte(':')
			c.props[name].key(b)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
	if c.extra != nil {
		b.WriteString("*(")
		c.extra.key(b)
		b.WriteByte(')')
	}
	if c.items != nil {
		b.WriteString("[")
		c.items.key(b)
		b.WriteByte(']')
	}
}

// apply returns v with its numbers typed as c says. Values are shared
// (they are also the trace's), so a map or list is copied only when
// something inside it changes.
func (c *conv) apply(v any) (any, bool) {
	switch t := v.(type) {
	case int64:
		if c.kind == 'd' {
			return float64(t), true
		}
	case float64:
		// 2^63 is the first double beyond int64.
		if c.kind == 'i' && t == math.Trunc(t) && math.Abs(t) < 1<<63 {
			return int64(t), true
		}
	case map[string]any:
		var out map[string]any
		set := func(k string, x any) {
			if out == nil {
				out = maps.Clone(t)
			}
			out[k] = x
		}
		for k, pc := range c.props {
			if x, ok := t[k]; ok {
				if y, changed := pc.apply(x); changed {
					set(k, y)
				}
			}
		}
		if c.extra != nil {
			for k, x := range t {
				if _, listed := c.props[k]; listed {
					continue
				}
				if y, changed := c.extra.apply(x); changed {
					set(k, y)
				}
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		if c.items == nil {
			break
		}
		var out []any
		for i, x := range t {
			if y, changed := c.items.apply(x); changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = y
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// typed resolves variables through act and types their numbers by the
// schemas that declared them.
type typed struct {
	interpreter.Activation
	conv map[string]*conv
}

func (a typed) ResolveName(name string) (any, bool) {
	v, ok := a.Activation.ResolveName(name)
	if c := a.conv[name]; ok && c != nil {
		v, _ = c.apply(v)
	}
	return v, ok
}

// Assignable reports whether a value of static type from may be passed
// where a schema's type want is expected: dyn on either side is left to
// run time, and an int may go where a number (double) is expected, as
// JSON Schema's number admits integers.
func Assignable(want, from *cel.Type) bool {
	switch {
	case from.Kind() == cel.DynKind || want.Kind() == cel.DynKind:
		return true
	case want.Kind() == cel.DoubleKind && (from.Kind() == cel.IntKind || from.Kind() == cel.UintKind):
		return true
	case want.Kind() == cel.ListKind && from.Kind() == cel.ListKind && len(want.Parameters()) == 1 && len(from.Parameters()) == 1:
		return Assignable(want.Parameters()[0], from.Parameters()[0])
	}
	return want.IsAssignableType(from)
}
