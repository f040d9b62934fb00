package expr

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"

	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

func TestEnvAndCheckAreShared(t *testing.T) {
	decls := ParseSchema([]byte(priced)).Decls("input")
	a, _ := NewEnv(lim, decls)
	b, _ := NewEnv(lim, decls)
	if a != b {
		t.Error("the same declarations must give the same environment")
	}
	x, _ := a.Check(mustParse(t, a, "input.price * 2.0"))
	y, _ := b.Check(mustParse(t, b, "input.price * 2.0"))
	if x == nil || x != y {
		t.Error("the same expression in the same environment must be checked once")
	}
	r1, r2 := mustParse(t, a, "input.price + n.m").Refs("input"), mustParse(t, b, "input.price + n.m").Refs("input")
	if len(r1) != 1 || &r1[0] != &r2[0] {
		t.Errorf("the references of one parse must be found once: %+v %+v", r1, r2)
	}
	if r3 := mustParse(t, a, "input.price + n.m").Refs("input", "n"); len(r3) != 2 {
		t.Errorf("other roots are other references: %+v", r3)
	}
	_, i1 := a.Check(mustParse(t, a, "input.price + 'x'"))
	_, i2 := a.Check(mustParse(t, a, "input.price + 'x'"))
	if len(i1) != 1 || len(i2) != 1 || i1[0] != i2[0] {
		t.Errorf("issues must be remembered as well: %+v %+v", i1, i2)
	}
	in1, _ := a.Extend(Decl{Name: "item", Type: cel.IntType})
	in2, _ := b.Extend(Decl{Name: "item", Type: cel.IntType})
	in3, _ := a.Extend(Decl{Name: "item", Type: cel.StringType})
	if in1 != in2 || in1 == in3 {
		t.Error("extended environments are shared by identity, and only by identity")
	}
	if _, issues := in3.Check(mustParse(t, in3, "item + 1")); len(issues) == 0 {
		t.Error("a string item plus an int must not check")
	}
}

// A hostile stream of distinct, long expressions must not grow the caches
// past their budgets (§10.1): they evict, and an environment whose checked
// expressions alone would fill the budget stops remembering them.
func TestCachesStayWithinBudget(t *testing.T) {
	const budget = 1 << 20
	savedParses, savedEnvs := parses, envs
	parses, envs = lru.New[*parseResult](budget, 0), lru.New[*Env](budget, 0)
	t.Cleanup(func() { parses, envs = savedParses, savedEnvs })
	env, err := NewEnv(lim, []Decl{{Name: "n", Type: cel.IntType}})
	if err != nil {
		t.Fatal(err)
	}
	elems := strings.Repeat(", 1", 300) // about 900 characters: 87 KB of estimated weight
	const n = 16
	for i := range n {
		src := fmt.Sprintf("size([%d%s]) + n", i, elems)
		x, issues := env.Check(mustParse(t, env, src))
		if len(issues) > 0 || x == nil {
			t.Fatalf("expression %d: %v", i, issues)
		}
		if parses.Weight() > budget || envs.Weight() > budget {
			t.Fatalf("over budget: parses %d, environments %d", parses.Weight(), envs.Weight())
		}
	}
	if parses.Len() >= n {
		t.Errorf("the parse cache kept all %d expressions", parses.Len())
	}
	env.mu.Lock()
	uncached, kept := env.uncached, len(env.checked)
	env.mu.Unlock()
	if !uncached || kept >= n {
		t.Errorf("the environment kept %d expressions and uncached is %v", kept, uncached)
	}
}

// Run with -race: shared environments, parses and programs are used from
// many goroutines at once.
func TestConcurrentChecksAgree(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := NewEnv(lim, ParseSchema([]byte(priced)).Decls("input"))
			if err != nil {
				errs <- err.Error()
				return
			}
			for i := range 20 {
				src := fmt.Sprintf("input.price * %d.5 + double(input.count)", (g+i)%5)
				p, issues := env.Parse(src)
				if len(issues) > 0 {
					errs <- issues[0].Message
					return
				}
				x, issues := env.Check(p)
				if len(issues) > 0 {
					errs <- issues[0].Message
					return
				}
				in, _ := DecodeJSON([]byte(`{"price": 2, "count": 1}`))
				v, err := x.Eval(context.Background(), inputVars{in.(map[string]any)})
				if want := 2*(float64((g+i)%5)+0.5) + 1; err != nil || v != want {
					errs <- fmt.Sprintf("%s = %v %v, want %v", src, v, err, want)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// ResetCaches empties every cache; what was cached is built again, with
// the same result.
func TestResetCaches(t *testing.T) {
	decls := ParseSchema([]byte(priced)).Decls("input")
	a, _ := NewEnv(lim, decls)
	x, _ := a.Check(mustParse(t, a, "input.price * 2.0"))
	ResetCaches()
	for _, c := range []interface{ Len() int }{envs, parses, schemas} {
		if c.Len() != 0 {
			t.Fatalf("a cache holds %d entries after ResetCaches", c.Len())
		}
	}
	b, _ := NewEnv(lim, decls)
	y, issues := b.Check(mustParse(t, b, "input.price * 2.0"))
	if b == a || y == x || len(issues) != 0 || !y.Type.IsExactType(x.Type) {
		t.Error("after ResetCaches the environment and the check must be built anew, alike")
	}
}

// TestLimitCachesOutOfOrder: limits restored in another order than they
// were set (two verbs in one process) leave the least held in force,
// and the caches' own budgets once none is.
func TestLimitCachesOutOfOrder(t *testing.T) {
	budgets := func() (env, parse int) {
		// SetMax returns the budget it replaces; set it straight back.
		env, parse = envs.SetMax(0), parses.SetMax(0)
		envs.SetMax(env)
		parses.SetMax(parse)
		return env, parse
	}
	restoreA := LimitCaches(1 << 20)
	restoreB := LimitCaches(2 << 20)
	if env, parse := budgets(); env != 1<<20 || parse != 1<<20 {
		t.Errorf("two limits held: budgets %d and %d, want the least, %d", env, parse, 1<<20)
	}
	restoreA()
	if env, parse := budgets(); env != 2<<20 || parse != 2<<20 {
		t.Errorf("the first restored: budgets %d and %d, want the one held, %d", env, parse, 2<<20)
	}
	restoreB()
	if env, parse := budgets(); env != envBudget || parse != parseBudget {
		t.Errorf("both restored: budgets %d and %d, want %d and %d", env, parse, envBudget, parseBudget)
	}
}
