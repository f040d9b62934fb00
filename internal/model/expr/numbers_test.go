package expr

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
)

// eval checks src in env and evaluates it with the JSON input bound to
// input; issues come back as the error string.
func eval(t *testing.T, env *Env, src, input string) (any, string) {
	t.Helper()
	p := mustParse(t, env, src)
	x, issues := env.Check(p)
	if len(issues) > 0 {
		return nil, "check: " + issues[0].Message
	}
	in, err := DecodeJSON([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	v, err := x.Eval(context.Background(), inputVars{in.(map[string]any)})
	if err != nil {
		return nil, "eval: " + err.Error()
	}
	return v, ""
}

// inputVars resolves input and its qualified fields as the engine's
// scopes do.
type inputVars struct{ in map[string]any }

func (v inputVars) ResolveName(n string) (any, bool) {
	var x any = map[string]any{"input": v.in}
	for _, f := range strings.Split(n, ".") {
		m, _ := x.(map[string]any) // nil when x is no object: m[f] misses
		var ok bool
		if x, ok = m[f]; !ok {
			return nil, false
		}
	}
	return x, true
}

func (v inputVars) Parent() interpreter.Activation { return nil }

const priced = `{"type": "object", "properties": {
	"price": {"type": "number"},
	"count": {"type": "integer"},
	"discount": {"type": ["number", "null"]},
	"lines": {"type": "array", "items": {"type": "object", "properties": {"weight": {"type": "number"}}}},
	"rates": {"type": "object", "additionalProperties": {"type": "number"}},
	"note": {}
}}`

func TestNumbersFollowTheSchema(t *testing.T) {
	env, err := NewEnv(lim, ParseSchema([]byte(priced)).Decls("input"))
	if err != nil {
		t.Fatal(err)
	}
	const in = `{"price": 10, "count": 3.0, "discount": 2, "lines": [{"weight": 4}], "rates": {"eur": 2}, "note": 7}`
	for _, c := range []struct {
		src  string
		want any
	}{
		{"input.price * 1.2", 12.0},                    // a number is a double even when written 10
		{"input['price'] * 1.2", 12.0},                 // also when read through the object
		{"input.count + 1", int64(4)},                  // an integer is an int even when written 3.0
		{"input.discount * 0.5", 1.0},                  // nullable number: typed dyn, still a double
		{"input.lines[0].weight / 8.0", 0.5},           // array items
		{"input.rates.eur * 1.5", 3.0},                 // additionalProperties
		{"input.note + 1", int64(8)},                   // untyped: no fraction in the JSON text, an int
		{"input.price > 9 && input.count < 3.5", true}, // comparisons mix freely
	} {
		got, msg := eval(t, env, c.src, in)
		if msg != "" || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %#v %s, want %#v", c.src, got, msg, c.want)
		}
	}
	// Untyped numbers keep the JSON rule, so mixing fails at run time.
	if _, msg := eval(t, env, "input.note * 1.5", in); !strings.Contains(msg, "no such overload") {
		t.Errorf("an untyped integral number is an int: got %q", msg)
	}
}

func TestMixedArithmeticHasAHint(t *testing.T) {
	env, _ := NewEnv(lim, ParseSchema([]byte(priced)).Decls("input"))
	for _, src := range []string{"input.count * 1.2", "input.price + 1"} {
		_, issues := env.Check(mustParse(t, env, src))
		if len(issues) != 1 {
			t.Fatalf("%s: want one type issue, got %+v", src, issues)
		}
		if h := issues[0].Hint; !strings.Contains(h, "double(x)") || !strings.Contains(h, "number is a double") {
			t.Errorf("%s: %q has hint %q", src, issues[0].Message, h)
		}
	}
}

func TestNumberTypingDoesNotChangeTheValue(t *testing.T) {
	v, _ := DecodeJSON([]byte(`{"price": 10, "lines": [{"weight": 4}]}`))
	in := v.(map[string]any)
	env, _ := NewEnv(lim, ParseSchema([]byte(priced)).Decls("input"))
	x, _ := env.Check(mustParse(t, env, "input"))
	out, err := x.Eval(context.Background(), inputVars{in})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"price": 10.0, "lines": []any{map[string]any{"weight": 4.0}}}; !reflect.DeepEqual(out, want) {
		t.Errorf("got %#v", out)
	}
	// The bound value is shared with the trace: it is copied, not changed.
	if in["price"] != int64(10) || in["lines"].([]any)[0].(map[string]any)["weight"] != int64(4) {
		t.Errorf("the input was modified: %#v", in)
	}
}

// Two schemas that declare the same CEL types but type a deep number
// differently must not share an environment.
func TestEnvIdentityIncludesNumberTyping(t *testing.T) {
	deep := func(leaf string) Schema {
		return ParseSchema([]byte(`{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "object", "properties": {"d": {"type": "` + leaf + `"}}}}}}}}}`))
	}
	num, _ := NewEnv(lim, deep("number").Decls("input"))
	integer, _ := NewEnv(lim, deep("integer").Decls("input"))
	if num == integer {
		t.Fatal("environments with different number typing are shared")
	}
	if got, msg := eval(t, num, "input.a.b.c.d * 1.5", `{"a": {"b": {"c": {"d": 2}}}}`); got != 3.0 {
		t.Errorf("number below the declared depth: %v %s", got, msg)
	}
	if got, msg := eval(t, integer, "input.a.b.c.d + 1", `{"a": {"b": {"c": {"d": 2.0}}}}`); got != int64(3) {
		t.Errorf("integer below the declared depth: %v %s", got, msg)
	}
}

func TestAssignable(t *testing.T) {
	for _, c := range []struct {
		want, from *cel.Type
		ok         bool
	}{
		{cel.DoubleType, cel.IntType, true}, // JSON Schema's number admits integers
		{cel.ListType(cel.DoubleType), cel.ListType(cel.IntType), true},
		{cel.IntType, cel.DoubleType, false},
		{cel.DoubleType, cel.StringType, false},
		{cel.StringType, cel.DynType, true},
		{cel.BoolType, cel.BoolType, true},
	} {
		if got := Assignable(c.want, c.from); got != c.ok {
			t.Errorf("Assignable(%s, %s) = %v", c.want, c.from, got)
		}
	}
}

// A checked expression is 48 bytes, and one written as the name it is
// holds no string but the source the Env remembers it by: a Run of
// 20,000 steps holds one an argument (docs/performance.md, "A large
// valid program").
func TestExprSize(t *testing.T) {
	if n := unsafe.Sizeof(Expr{}); n > 48 {
		t.Errorf("an Expr is %d bytes, more than 48", n)
	}
	env, err := NewEnv(Limits{Depth: 8, Size: MaxSize, Cost: 1000}, Schema{"type": "object", "properties": map[string]any{"room": map[string]any{"type": "string"}}}.Decls("input"))
	if err != nil {
		t.Fatal(err)
	}
	p, issues := env.Parse("input.room")
	if issues != nil {
		t.Fatal(issues)
	}
	x, issues := env.Check(p)
	if issues != nil {
		t.Fatal(issues)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	for k, r := range env.checked {
		if r.x == x && (x.ident != "input.room" || unsafe.StringData(x.ident) != unsafe.StringData(k)) {
			t.Errorf("the identifier %q is not the bytes of the source the Env remembers", x.ident)
		}
	}
}

// TestIdentifierIsEvaluatedAsPlanned holds an expression that is one
// declared variable, evaluated without a plan (Expr.ident), to what the
// program cel-go plans for it gives: the same value, numbers typed by
// the schema, and the same error when the name does not resolve or its
// value is none CEL takes.
func TestIdentifierIsEvaluatedAsPlanned(t *testing.T) {
	env, err := NewEnv(lim, ParseSchema([]byte(priced)).Decls("input"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := []map[string]any{
		{"price": int64(3), "count": 4.0, "discount": nil, "lines": []any{map[string]any{"weight": int64(2)}}, "rates": map[string]any{"a": int64(1)}, "extra": "x"},
		{"price": 2.5, "count": int64(7), "discount": 0.5},
		{"count": 1.5},
		{"price": struct{}{}},
		{},
	}
	for _, src := range []string{"input", "input.price", "input . count", "(input.discount)", "input.lines", "input.rates"} {
		p, issues := env.Parse(src)
		if len(issues) > 0 {
			t.Fatalf("%s: %v", src, issues)
		}
		x, issues := env.Check(p)
		if len(issues) > 0 {
			t.Fatalf("%s: %v", src, issues)
		}
		if x.ident == "" || x.prg != nil {
			t.Fatalf("%s: a declared variable must be held without a plan (ident %q)", src, x.ident)
		}
		planned, err := x.planIdent()
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			got, gotErr := x.Eval(context.Background(), inputVars{in})
			want, wantErr := (&Expr{Type: x.Type, prg: planned, eval: x.eval}).Eval(context.Background(), inputVars{in})
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s of %v: %#v, %v; planned %#v, %v", src, in, got, gotErr, want, wantErr)
			}
		}
	}
	// Anything more is planned when checked.
	for _, src := range []string{"input.extra", "input.price + 1.0", "input.rates.a", "int", "[input.count]"} {
		x, issues := env.Check(mustParse(t, env, src))
		if len(issues) > 0 {
			t.Fatalf("%s: %v", src, issues)
		}
		if x.ident != "" || x.prg == nil {
			t.Errorf("%s: must be planned, not evaluated as the variable %q", src, x.ident)
		}
	}
}
