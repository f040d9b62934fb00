package expr

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/google/cel-go/cel"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

// maxSchemaDepth bounds how deep property declarations follow a schema;
// deeper fields are still reachable, typed dyn.
const maxSchemaDepth = 3

// maxSchemaDecls bounds the declarations one schema contributes, so a
// huge catalog schema cannot make every environment expensive.
const maxSchemaDecls = 128

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are CEL's reserved words; a property with such a name cannot be
// written as a field selection and gets no declaration of its own.
var reserved = map[string]bool{
	"in": true, "as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true, "loop": true,
	"package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true,
	"true": true, "false": true, "null": true,
}

// IsIdentifier reports whether name can be a CEL variable name.
func IsIdentifier(name string) bool { return identifier.MatchString(name) && !reserved[name] }

// Schema is a JSON Schema decoded for typing; nil means "anything".
type Schema map[string]any

// ParseSchema decodes a schema; an absent or malformed schema types as dyn,
// as does one that gives a member name twice (the project's JSON policy,
// docs/json.md). Decoded schemas are shared and must not be modified.
func ParseSchema(raw json.RawMessage) Schema {
	if len(raw) == 0 {
		return nil
	}
	if s, ok := schemas.Get(string(raw)); ok {
		return s
	}
	// Charged what the decoded values hold, which CheckHeld estimates for
	// jsonpos.Decode from the tally it checks: a flat charge a byte of
	// text undercounts dense shapes (an anyOf of many {} holds about 24
	// bytes a byte, a nest of one-member objects over 40).
	var s Schema
	held, err := CheckHeld(raw)
	if err == nil {
		v, _ := jsonpos.Decode(raw, decimal)
		s, _ = v.(map[string]any)
	}
	schemas.Put(string(raw), s, perEntry+int(held))
	return s
}

// decimal makes a schema's numbers float64, as encoding/json does.
func decimal(text []byte) any {
	f, _ := strconv.ParseFloat(string(text), 64)
	return f
}

// schemas caches decoded catalog schemas: the same few are read for every
// argument of every call of every program.
var schemas = lru.New[Schema](16<<20, 0)

// Property returns the schema of a property and whether the object schema
// lists it; closed is true when the schema forbids unlisted properties.
func (s Schema) Property(name string) (prop Schema, listed, closed bool) {
	if s == nil {
		return nil, true, false
	}
	props, _ := s["properties"].(map[string]any)
	if ap, ok := s["additionalProperties"].(bool); ok && !ap {
		closed = true
	}
	if props == nil {
		return nil, !closed, closed
	}
	p, ok := props[name]
	if !ok {
		return nil, false, closed
	}
	m, _ := p.(map[string]any)
	return Schema(m), true, closed
}

// Properties lists the property names an object schema declares.
func (s Schema) Properties() []string {
	props, _ := s["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// Required lists the required property names.
func (s Schema) Required() []string {
	req, _ := s["required"].([]any)
	var out []string
	for _, r := range req {
		if n, ok := r.(string); ok {
			out = append(out, n)
		}
	}
	return out
}

// Type is the CEL type of values the schema admits. A number is a double
// and an integer an int (numbers.go converts values to match); a schema
// without a single type is dyn.
func (s Schema) Type() *cel.Type {
	if s == nil {
		return cel.DynType
	}
	t, _ := s["type"].(string)
	switch t {
	case "string":
		return cel.StringType
	case "number":
		return cel.DoubleType
	case "integer":
		return cel.IntType
	case "boolean":
		return cel.BoolType
	case "null":
		return cel.NullType
	case "array":
		items, _ := s["items"].(map[string]any)
		return cel.ListType(Schema(items).Type())
	case "object":
		return objectType
	}
	return cel.DynType
}

// objectType is an object schema's type, one value for all of them: a
// type made for each declaration was 100 bytes of every step output a
// program declares.
var objectType = cel.MapType(cel.StringType, cel.DynType)

// Decls declares name with the schema's type and, for objects, each
// listed property (recursively, bounded) as a qualified name. Each
// declaration carries the number typing of its part of the schema.
func (s Schema) Decls(name string) []Decl {
	root := convOf(s, 0)
	out := []Decl{{Name: name, Type: s.Type(), conv: root}}
	var walk func(prefix string, s Schema, c *conv, depth int)
	walk = func(prefix string, s Schema, c *conv, depth int) {
		if depth >= maxSchemaDepth || s == nil {
			return
		}
		for _, p := range s.Properties() {
			if !IsIdentifier(p) || len(out) >= maxSchemaDecls {
				continue
			}
			ps, _, _ := s.Property(p)
			var pc *conv
			if c != nil {
				pc = c.props[p]
			}
			out = append(out, Decl{Name: prefix + "." + p, Type: ps.Type(), conv: pc})
			walk(prefix+"."+p, ps, pc, depth+1)
		}
	}
	walk(name, s, root, 0)
	return out
}
