package expr

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/google/cel-go/cel"

	"github.com/pilotage-dev/pilotage/internal/base/lru"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// Each cache must hold no more than it counts: its budget is what bounds
// a server's memory against a stream of distinct programs (docs/serve.md,
// "Memory of the caches"). A validate parses each expression, finds its
// references (program.Check) and types it; one-line expressions are where
// what an entry holds besides its text weighs most. Before, the parse
// cache held 1,540 bytes an expression of `N+1` and counted 1,145.
func TestCachesHoldWhatTheyCount(t *testing.T) {
	if testing.Short() {
		t.Skip("a memory test: thousands of expressions")
	}
	for name, form := range map[string]string{
		"one-line":   "%d+1",
		"references": "input.a + steps.s%d.output",
	} {
		t.Run(name, func(t *testing.T) { holdsWhatItCounts(t, form) })
	}
}

func holdsWhatItCounts(t *testing.T, form string) {
	savedParses, savedEnvs := parses, envs
	parses, envs = lru.New[*parseResult](1<<30, 0), lru.New[*Env](1<<30, 0)
	t.Cleanup(func() { parses, envs = savedParses, savedEnvs })
	env, err := NewEnv(lim, []Decl{{Name: "input", Type: cel.DynType}, {Name: "steps", Type: cel.DynType}, {Name: "context", Type: cel.DynType}})
	if err != nil {
		t.Fatal(err)
	}
	live := func() int64 { return int64(memtest.Live()) }
	const n = 20000
	srcs := make([]string, n)
	for i := range srcs {
		srcs[i] = fmt.Sprintf(form, i)
	}
	// The test's own *Parsed, made before the first measure, are not
	// counted as the cache's.
	parsed := make([]Parsed, n)
	start, parseStart, envStart := live(), parses.Weight(), envs.Weight()
	for i, src := range srcs {
		p := mustParse(t, env, src)
		p.Refs("steps", "input", "context")
		parsed[i] = *p
	}
	afterParse := live()
	for i := range parsed {
		if _, issues := env.Typed(&parsed[i]); issues != nil {
			t.Fatal(issues)
		}
	}
	afterCheck := live()
	runtime.KeepAlive(srcs)
	runtime.KeepAlive(parsed)
	for _, c := range []struct {
		name          string
		held, charged int64
	}{
		{"parses", afterParse - start, int64(parses.Weight() - parseStart)},
		{"checked expressions", afterCheck - afterParse, int64(envs.Weight() - envStart)},
	} {
		t.Logf("%s: %.0f bytes held and %.0f counted an expression", c.name, float64(c.held)/n, float64(c.charged)/n)
		if c.held > c.charged {
			t.Errorf("the cache of %s holds %d bytes and counts %d", c.name, c.held, c.charged)
		}
	}
}
