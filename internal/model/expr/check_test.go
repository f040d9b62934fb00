package expr

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"
)

// Three input schemas under which `input.x` has three types; in the last
// it is not declared on its own, so `input.x` is a field of a map.
var xSchemas = []struct{ schema, want string }{
	{`{"type": "object", "properties": {"x": {"type": "string"}}}`, "string"},
	{`{"type": "object", "properties": {"x": {"type": "integer"}}}`, "int"},
	{`{"type": "object"}`, "dyn"},
}

const xSrc = "input.x + input.x"

// typeIn checks p in a fresh environment for schema and returns the type,
// or the first issue's message.
func typeIn(t *testing.T, newEnv func(Limits, []Decl) (*Env, error), schema string, p *Parsed) string {
	t.Helper()
	env, err := newEnv(lim, ParseSchema([]byte(schema)).Decls("input"))
	if err != nil {
		t.Fatal(err)
	}
	x, issues := env.Check(p)
	if len(issues) > 0 {
		return issues[0].Message
	}
	return x.Type.String()
}

// The checker rewrites the AST it checks (a select chain with a declared
// name becomes one identifier), so one parse checked against two schemas
// must not see the first check's rewriting: a cached parse is copied for
// the checker, a private one is parsed again once a check has taken it.
// Either way every check gives its schema's type, and the references are
// those of the text as written.
func TestOneParseCheckedAgainstTwoSchemas(t *testing.T) {
	for name, newEnv := range map[string]func(Limits, []Decl) (*Env, error){"shared": NewEnv, "private": NewPrivateEnv} {
		t.Run(name, func(t *testing.T) {
			ResetCaches()
			parser, _ := newEnv(lim, nil)
			p := mustParse(t, parser, xSrc)
			for round := range 2 {
				for _, s := range xSchemas {
					if got := typeIn(t, newEnv, s.schema, p); got != s.want {
						t.Errorf("round %d, schema %s: %s has type %q, want %q", round, s.schema, xSrc, got, s.want)
					}
				}
			}
			refs := p.Refs("input")
			if len(refs) != 2 || strings.Join(refs[1].Path, ".") != "x" || refs[1].Start != 10 || refs[1].End != 17 {
				t.Errorf("references after checking: %+v", refs)
			}
			if name == "shared" {
				if q := mustParse(t, parser, xSrc); q.r != p.r {
					t.Error("a shared Env must return the cached parse")
				}
			}
		})
	}
}

// A private Env checks exactly as a shared one: the same types, and the
// same issues at the same offsets, although it checks the parse itself
// instead of a copy whose ranges were restored. Type, which does not
// plan the program, finds what Check finds.
func TestPrivateEnvChecksAsShared(t *testing.T) {
	srcs := []string{
		"input.price * 2.0",
		"input.price + 1",
		"input.count + input.price",
		"input.missing.deeper + 1",
		"nope + input.count",
		"[input.count].map(c, c + 'x')",
		"input.price > 2 ? input.count : 'y'",
		"has(input.price) && input.count.size() > 0",
	}
	ResetCaches()
	decls := ParseSchema([]byte(priced)).Decls("input")
	shared, err := NewEnv(lim, decls)
	if err != nil {
		t.Fatal(err)
	}
	private, err := NewPrivateEnv(lim, decls)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range srcs {
		x1, i1 := shared.Check(mustParse(t, shared, src))
		x2, i2 := private.Check(mustParse(t, private, src))
		if !reflect.DeepEqual(i1, i2) {
			t.Errorf("%s: issues differ: shared %+v, private %+v", src, i1, i2)
		}
		if (x1 == nil) != (x2 == nil) || x1 != nil && !x1.Type.IsExactType(x2.Type) {
			t.Errorf("%s: shared %+v, private %+v", src, x1, x2)
		}
		typ, i3 := private.Type(mustParse(t, private, src))
		if !reflect.DeepEqual(i1, i3) || (x1 == nil) != (typ == nil) || x1 != nil && !x1.Type.IsExactType(typ) {
			t.Errorf("%s: Check gives %+v %+v, Type gives %v %+v", src, x1, i1, typ, i3)
		}
		if typ, i4 := shared.Type(mustParse(t, shared, src)); !reflect.DeepEqual(i1, i4) || x1 != nil && typ != x1.Type {
			t.Errorf("%s: in a shared Env, Type must give what Check remembered: %v %+v", src, typ, i4)
		}
	}
	if len(private.checked) != 0 || parses.Len() != len(srcs) {
		t.Errorf("a private Env remembers nothing and caches no parse: %d checked, %d parses cached", len(private.checked), parses.Len())
	}
	envsBefore := envs.Len()
	inner, err := private.Extend(Decl{Name: "item", Type: cel.IntType})
	if err != nil {
		t.Fatal(err)
	}
	if x, issues := inner.Check(mustParse(t, inner, "item + input.count")); len(issues) > 0 || x.Type.String() != "int" {
		t.Errorf("a private Env's inner scope: %v %v", x, issues)
	}
	if !inner.private || envs.Len() != envsBefore || parses.Len() != len(srcs) {
		t.Error("the inner scope of a private Env must be private, outside the caches")
	}
}

// Run with -race: one parse, shared or private, checked against three
// schemas and asked for its references from many goroutines at once.
func TestConcurrentChecksOfOneParse(t *testing.T) {
	ResetCaches()
	shared, _ := NewEnv(lim, nil)
	private, _ := NewPrivateEnv(lim, nil)
	ps := map[string]*Parsed{"shared": mustParse(t, shared, xSrc), "private": mustParse(t, private, xSrc)}
	newEnvs := map[string]func(Limits, []Decl) (*Env, error){"shared": NewEnv, "private": NewPrivateEnv}
	var wg sync.WaitGroup
	for name, p := range ps {
		for g := range 6 {
			wg.Go(func() {
				for i := range 10 {
					s := xSchemas[(g+i)%len(xSchemas)]
					env, err := newEnvs[name](lim, ParseSchema([]byte(s.schema)).Decls("input"))
					if err != nil {
						t.Error(err)
						return
					}
					x, issues := env.Check(p)
					if len(issues) > 0 || x.Type.String() != s.want {
						t.Errorf("%s: %s under %s: %v %v, want %s", name, xSrc, s.schema, x, issues, s.want)
						return
					}
					if refs := p.Refs("input"); len(refs) != 2 {
						t.Errorf("%s: references %+v", name, refs)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}
