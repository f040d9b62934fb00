package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
)

var lim = Limits{Depth: 16, Size: 1000, Cost: 10000}

func TestDecodeJSONNumbers(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"i": 3, "f": 3.5, "e": 1e3, "big": 12345678901234567890, "l": [1, 2.0]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": int64(3), "f": 3.5, "e": 1000.0, "big": 1.2345678901234567e19, "l": []any{int64(1), 2.0}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %#v", v)
	}
}

type vars map[string]any

func (v vars) ResolveName(n string) (any, bool) { x, ok := v[n]; return x, ok }
func (v vars) Parent() interpreter.Activation   { return nil }

func TestSchemaDeclsTypeFields(t *testing.T) {
	s := ParseSchema([]byte(`{"type": "object", "properties": {"temp": {"type": "integer"}, "name": {"type": "string"}, "in": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}}`))
	env, err := NewEnv(lim, s.Decls("out"))
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		"out.temp + 1":         "int",
		"out.tags":             "list(string)",
		"out.name + 'x'":       "string",
		"out.other":            "dyn",
		"out.temp + 'x' == ''": "error",
	} {
		p, issues := env.Parse(src)
		if len(issues) > 0 {
			t.Fatalf("%s: %v", src, issues)
		}
		x, issues := env.Check(p)
		got := "error"
		if len(issues) == 0 {
			got = x.Type.String()
		}
		if got != want {
			t.Errorf("%s: type %s, want %s", src, got, want)
		}
	}
}

func TestIssuesAndRefs(t *testing.T) {
	env, _ := NewEnv(lim, []Decl{{Name: "steps.a.output", Type: cel.DynType}})
	if _, issues := env.Parse("1 +"); len(issues) != 1 || !issues[0].Syntax || issues[0].Start != 2 || issues[0].End != 3 {
		t.Errorf("parse issue: %+v", issues)
	}
	// Depth 16 allows 128 parser recursions: long flat chains pass, deep
	// nesting is a limit issue (a resource_limit request error upstream).
	if _, issues := env.Parse(strings.Repeat("1 + ", 40) + "1"); len(issues) > 0 {
		t.Errorf("a flat chain of 40 additions must parse: %+v", issues)
	}
	deep := strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200)
	if _, issues := env.Parse(deep); len(issues) == 0 || !issues[0].Limit {
		t.Errorf("nesting beyond the parser's recursion limit must be a limit issue: %+v", issues)
	}
	if _, issues := env.Parse(strings.Repeat("1+", 600) + "1"); len(issues) == 0 || !issues[0].Limit {
		t.Errorf("an expression beyond the size limit must be a limit issue: %+v", issues)
	}
	p, _ := env.Parse("size(steps . b.output.x) + steps.a.output")
	refs := p.Refs("steps")
	if len(refs) != 2 || refs[0].Start != 5 || refs[0].End != 23 || strings.Join(refs[0].Path, ".") != "b.output.x" {
		t.Errorf("refs: %+v", refs)
	}
	if _, issues := env.Check(mustParse(t, env, "nope + 1")); len(issues) != 1 || !issues[0].Undeclared {
		t.Errorf("undeclared: %+v", issues)
	}
}

func mustParse(t *testing.T, env *Env, src string) *Parsed {
	p, issues := env.Parse(src)
	if len(issues) > 0 {
		t.Fatal(issues)
	}
	return p
}

func TestEvalBounds(t *testing.T) {
	env, _ := NewEnv(lim, []Decl{{Name: "xs", Type: cel.ListType(cel.IntType)}})
	x, _ := env.Check(mustParse(t, env, "xs.map(a, xs.map(b, a * b))"))
	xs := make([]any, 200)
	for i := range xs {
		xs[i] = int64(i)
	}
	if _, err := x.Eval(context.Background(), vars{"xs": xs}); !errors.Is(err, ErrCost) {
		t.Errorf("want the cost limit, got %v", err)
	}
	y, _ := env.Check(mustParse(t, env, "1.0 / 0.0"))
	if _, err := y.Eval(context.Background(), vars{}); err == nil {
		t.Error("infinity has no JSON form")
	}
}

// TestEvalJSONForms: a value reaches JSON whole or is an error, never
// changed: a uint past int64 was cast to a negative int, and a map with
// keys 1 and '1' became one member whose value depended on the map's
// order.
func TestEvalJSONForms(t *testing.T) {
	env, _ := NewEnv(lim, nil)
	for src, want := range map[string]any{
		"18446744073709551615u": uint64(math.MaxUint64),
		"9223372036854775808u":  uint64(1 << 63),
		"9223372036854775807u":  int64(math.MaxInt64),
	} {
		got, err := must(t, env, src).Eval(context.Background(), vars{})
		if err != nil || got != want {
			t.Errorf("%s = %#v, %v; want %#v", src, got, err, want)
		}
	}
	for range 20 { // the map's order varies from one evaluation to the next
		_, err := must(t, env, "{1: 'int key', '1': 'string key'}").Eval(context.Background(), vars{})
		if err == nil || !strings.Contains(err.Error(), `two keys that are the one JSON member name "1"`) {
			t.Fatalf("colliding keys: %v", err)
		}
	}
}

// must is src parsed and checked in env.
func must(t *testing.T, env *Env, src string) *Expr {
	t.Helper()
	x, issues := env.Check(mustParse(t, env, src))
	if len(issues) > 0 {
		t.Fatal(issues)
	}
	return x
}

// TestCachesKeepTheirOwnSource: what the caches keep of an expression (a
// checked Expr's identifier, the key it is remembered by, a parse,
// whose source cel-go copies) holds its own copy of the source, not a
// view into the caller's string. The program reader
// writes every expression into 4 KB blocks; a cached view kept a block
// alive for each distinct one-line program, 72 MB over 20,000 validates
// through serve.
func TestCachesKeepTheirOwnSource(t *testing.T) {
	env, err := NewEnv(lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	block := strings.Repeat(" ", 4096) + "17 + 25" + "input"
	src := block[4096 : 4096+7]
	p, iss := env.Parse(src)
	if iss != nil {
		t.Fatal(iss)
	}
	if _, iss := env.Check(p); iss != nil {
		t.Fatal(iss)
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(block)))
	within := func(s string) bool {
		at := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return at >= start && at < start+uintptr(len(block))
	}
	in, err := NewEnv(lim, []Decl{{Name: "input", Type: cel.DynType}})
	if err != nil {
		t.Fatal(err)
	}
	if x := must(t, in, block[4096+7:]); within(x.ident) {
		t.Error("the checked identifier is a view into the caller's string")
	}
	env.mu.Lock()
	for k := range env.checked {
		if within(k) {
			t.Errorf("the Env remembers %q by a view into the caller's string", k)
		}
	}
	env.mu.Unlock()
	if r, ok := parses.Get(fmt.Sprintf("%d:%d\x00%s", lim.Depth, lim.Size, src)); !ok || within(r.ast.Source().Content()) {
		t.Errorf("the cached parse (found %v) keeps a view into the caller's string", ok)
	}
}
