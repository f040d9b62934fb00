package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

// Compiled schemas are found by their text as written; equal schemas
// written differently validate alike, and a schema that does not compile
// admits everything (schemaViolations' contract).
func TestCompiledSchemasAreShared(t *testing.T) {
	a := raw(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1}}}`)
	b := raw(`{ "properties": {"n": {"minimum": 1, "type": "integer"}}, "required": ["n"], "type": "object" }`)
	sa, err := compiled(a)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := compiled(a); again != sa {
		t.Error("the same schema text must compile once")
	}
	for _, in := range []string{`{"n": 0}`, `{"n": 1.5}`, `{}`, `{"n": 2}`} {
		va, vb := violations(a, raw(in)), violations(b, raw(in))
		if !reflect.DeepEqual(va, vb) {
			t.Errorf("%s: %+v against %+v", in, va, vb)
		}
		if (len(va) == 0) != (in == `{"n": 2}`) {
			t.Errorf("%s: violations %+v", in, va)
		}
	}
	if v := violations(raw(`{"type": 3}`), raw(`{}`)); v != nil {
		t.Errorf("a schema that does not compile admits everything, got %+v", v)
	}
	if v := violations(a, raw(`{"n": `)); len(v) != 1 {
		t.Errorf("an instance that is not JSON is one violation, got %+v", v)
	}
}

// The cache holds at most maxCachedSchemas schemas. -short bounds a
// cache of 64 the same way: compiling 4,106 schemas was a tenth of the
// package's time.
func TestSchemaCacheIsBounded(t *testing.T) {
	limit := maxCachedSchemas
	if testing.Short() {
		limit = 64
	}
	saved := schemaCache
	schemaCache = lru.New[schemaResult](schemaBudget, limit)
	t.Cleanup(func() { schemaCache = saved })
	for i := range limit + 10 {
		compiled(raw(`{"maximum": ` + string(rune('0'+i%10)) + `, "$comment": "` + string(rune(0x4e00+i)) + `"}`))
	}
	if n := schemaCache.Len(); n > limit {
		t.Errorf("%d schemas cached, cap %d", n, limit)
	}
}

// The cache holds at most its budget of estimated bytes (schemacost),
// however few the schemas: twenty distinct schemas of 100 subschemas
// each, about 200 KB apiece, through a budget of 1 MiB. The estimated
// bytes held never exceed it; the schema used between the others stays,
// the least recently used go; and an evicted schema compiles again and
// validates as it did.
func TestSchemaCacheBoundedByBytes(t *testing.T) {
	const budget = 1 << 20
	saved := schemaCache
	schemaCache = lru.New[schemaResult](budget, maxCachedSchemas)
	t.Cleanup(func() { schemaCache = saved })
	schema := func(i int) json.RawMessage {
		return raw(fmt.Sprintf(`{"type": "object", "required": ["n"], "properties": {"n": {"minimum": %d}}, "anyOf": [%s{}]}`,
			i, strings.Repeat("{}, ", 99)))
	}
	check := func(i int) *jsonschema.Schema {
		t.Helper()
		s, err := compiled(schema(i))
		if err != nil {
			t.Fatal(err)
		}
		if v := violations(schema(i), raw(fmt.Sprintf(`{"n": %d}`, i-1))); len(v) != 1 || v[0].Pointer != "/n" {
			t.Errorf("schema %d: {\"n\": %d} gives %+v, want one violation at /n", i, i-1, v)
		}
		if v := violations(schema(i), raw(fmt.Sprintf(`{"n": %d}`, i))); len(v) != 0 {
			t.Errorf("schema %d: {\"n\": %d} gives %+v, want none", i, i, v)
		}
		return s
	}
	if w := schemaWeight(schema(0)); w < budget/8 || w > budget/4 {
		t.Fatalf("a schema weighs %d, want a fifth of the budget or so", w)
	}
	first := check(0)
	hot := check(1)
	for i := 2; i < 20; i++ {
		check(i)
		if again := check(1); again != hot {
			t.Fatalf("schema 1, used between the others, was evicted at schema %d", i)
		}
		if w := schemaCache.Weight(); w > budget {
			t.Fatalf("after schema %d: %d estimated bytes held, over the budget of %d", i, w, budget)
		}
	}
	if n := schemaCache.Len(); n < 3 || n > 5 {
		t.Errorf("%d schemas held, want the budget's 4 or so", n)
	}
	if _, ok := schemaCache.Get(string(schema(0))); ok {
		t.Fatal("schema 0, least recently used, is still cached")
	}
	if again := check(0); again == first {
		t.Error("schema 0 was evicted, yet the same compiled schema came back")
	}
}

// compiled and violations are compileSchema and schemaViolations under
// a context that does not end.
func compiled(raw json.RawMessage) (*jsonschema.Schema, error) {
	s, err, _ := compileSchema(context.Background(), raw)
	return s, err
}

func violations(schema, value json.RawMessage) []pilotage.SchemaViolation {
	vs, _ := schemaViolations(context.Background(), schema, value)
	return vs
}

// anyOfSchema is a distinct schema (by its title) of k empty subschemas,
// weighing about 2 KiB each (schemacost).
func anyOfSchema(title string, k int) json.RawMessage {
	return raw(fmt.Sprintf(`{"title": %q, "anyOf": [%s{}]}`, title, strings.Repeat("{}, ", k-1)))
}

// freshCache gives the test a cache of its own, large enough to evict
// nothing.
func freshCache(t *testing.T) {
	saved := schemaCache
	schemaCache = lru.New[schemaResult](1<<30, 0)
	t.Cleanup(func() { schemaCache = saved })
}

// The estimated cost of the schemas compiled at once never exceeds the
// gate's limit, counted by the compiles themselves as they run; a schema
// over the whole limit compiles alone; every call completes; and calls
// of the same text at once compile it once. -short compiles 20 schemas
// beside the big one, not 40 (the largest weighs 136 KiB: two of them
// are over the limit together).
func TestCompilesInFlightWithinLimit(t *testing.T) {
	freshCache(t)
	const limit = 256 << 10
	big := anyOfSchema("big", 200) // about 400 KiB, over the limit
	var inFlight atomic.Int64
	var mu sync.Mutex
	compiles := map[string]int{}
	g := newGate(limit, func(raw json.RawMessage) schemaResult {
		w := min(int64(schemaWeight(raw)), limit)
		now := inFlight.Add(w)
		defer inFlight.Add(-w)
		if now > limit {
			t.Errorf("%d estimated bytes compiling at once, over the limit of %d", now, limit)
		}
		if string(raw) == string(big) && now != w {
			t.Errorf("the schema over the limit compiled beside %d estimated bytes of others", now-w)
		}
		mu.Lock()
		compiles[string(raw)]++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return compileText(raw)
	})
	schemas := []json.RawMessage{big}
	n := 40
	if testing.Short() {
		n = 20
	}
	for i := range n {
		schemas = append(schemas, anyOfSchema(fmt.Sprint(i), 10+i*3))
	}
	var wg sync.WaitGroup
	for range 3 {
		for _, s := range schemas {
			wg.Go(func() {
				r, err := g.get(context.Background(), s)
				if err != nil || r.s == nil || r.err != nil {
					t.Errorf("get: %v, %v, %v", r.s, r.err, err)
				}
			})
		}
	}
	wg.Wait()
	for _, s := range schemas {
		if n := compiles[string(s)]; n != 1 {
			t.Errorf("%.20s… compiled %d times, want once", s, n)
		}
	}
}

// A call waiting for room ends when its context does, with the context's
// error; one waiting on the same text behind it then compiles it under
// its own context once there is room; and the compile that filled the
// gate completes.
func TestCompileWaitEndsWithContext(t *testing.T) {
	freshCache(t)
	const limit = 64 << 10
	big, small := anyOfSchema("big", 100), anyOfSchema("small", 3)
	started, release := make(chan struct{}), make(chan struct{})
	g := newGate(limit, func(raw json.RawMessage) schemaResult {
		if string(raw) == string(big) {
			close(started)
			<-release
		}
		return compileText(raw)
	})
	result := func(ctx context.Context, s json.RawMessage) chan error {
		c := make(chan error, 1)
		go func() {
			r, err := g.get(ctx, s)
			if err == nil && r.s == nil {
				err = errors.New("no schema")
			}
			c <- err
		}()
		return c
	}
	bigDone := result(context.Background(), big)
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := result(ctx, small)
	for flying := false; !flying; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		_, flying = g.flights[string(small)]
		g.mu.Unlock()
		if _, ok := schemaCache.Get(string(small)); ok {
			t.Fatal("the small schema compiled while the gate was full")
		}
	}
	behind := result(context.Background(), small)
	cancel()
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled call ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call still waits")
	}
	select {
	case err := <-behind:
		t.Fatalf("the call behind it ended (%v) while the gate was full", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	for _, c := range []chan error{bigDone, behind} {
		if err := <-c; err != nil {
			t.Error(err)
		}
	}
	if _, ok := schemaCache.Get(string(small)); !ok {
		t.Error("the schema compiled for the call behind is not cached")
	}
}

// A Run whose call's input_schema waits to compile, the gate full, ends
// as a cancelled Run does when its request is cancelled meanwhile:
// partial, "the Run was cancelled", at that call.
func TestRunCancelledWhileSchemaWaits(t *testing.T) {
	freshCache(t)
	fill := anyOfSchema("fill", 2)
	started, release := make(chan struct{}), make(chan struct{})
	saved := compiling
	compiling = newGate(1, func(raw json.RawMessage) schemaResult {
		if string(raw) == string(fill) {
			close(started)
			<-release
		}
		return compileText(raw)
	})
	t.Cleanup(func() { compiling = saved })
	filled := make(chan error, 1)
	go func() {
		_, err := compiling.get(context.Background(), fill)
		filled <- err
	}()
	<-started
	e := newEngine(t, homeServer(), t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	type answer struct {
		resp *pilotage.ExecuteResponse
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := e.Execute(ctx, alice, "home/v1", pilotage.ExecuteRequest{
			Program: raw(`{"steps": [{"id": "r", "call": "sensors.read", "with": {"room": "'attic'"}}]}`)})
		answered <- answer{resp, err}
	}()
	for waiting := false; !waiting; time.Sleep(time.Millisecond) {
		compiling.mu.Lock()
		waiting = len(compiling.flights) == 2
		compiling.mu.Unlock()
		if len(answered) > 0 {
			t.Fatalf("the Run ended before its call's schema waited: %+v", <-answered)
		}
	}
	cancel()
	a := <-answered
	close(release)
	if err := <-filled; err != nil {
		t.Fatal(err)
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	if o := a.resp.Outcome; o.OK || o.Status != pilotage.StatusPartial || !strings.Contains(o.Error, "the Run was cancelled") {
		t.Errorf("outcome %+v, want partial: the Run was cancelled", o)
	}
	if steps := a.resp.Trace.Steps; len(steps) != 1 || steps[0].ID != "r" || steps[0].Outcome.OK {
		t.Errorf("trace steps %+v, want the call r, failed", steps)
	}
}
