package expr

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

// heldShapes are documents of n values of one shape each, the hostile
// inputs of the memory bound (§10.1): one-character values, empty and
// small containers, objects of many members, long strings.
func heldShapes(n int) map[string][]byte {
	list := func(el string, count int) []byte {
		return []byte(`{"a":[` + strings.TrimSuffix(strings.Repeat(el+",", count), ",") + `]}`)
	}
	object := func(k int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range k {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%d":0`, i)
		}
		return b.String() + "}"
	}
	shapes := map[string][]byte{}
	for _, el := range []string{"0", "300", "1.5", "true", "null", `""`, `"a"`, `"abcdefghij"`,
		`"` + strings.Repeat("x", 100) + `"`, `"\u0061\n"`, "[]", "{}", "[0]", "[[]]", `{"a":0}`, `{"a":{}}`} {
		shapes[el] = list(el, n)
	}
	for _, k := range []int{2, 8, 9, 16, 17, 100, 449, 897, 1000, 5000} {
		shapes[fmt.Sprintf("objects of %d members", k)] = list(object(k), n/k)
	}
	shapes["one object"] = []byte(object(n))
	return shapes
}

// TestHeldBoundsDecode: CheckHeld's estimate is at least what
// DecodeCheckedJSON's values hold once decoded (live heap after a
// collection) and at most three and a half times it, on every hostile
// shape; and decoding allocates at most six times the estimate on the
// way, so a caller that refuses data whose estimate is over its memory
// limit decodes what it accepts within a bounded multiple of that limit
// (the collector reclaims the rest as decoding goes).
func TestHeldBoundsDecode(t *testing.T) {
	if testing.Short() {
		t.Skip("measures what decoding megabytes holds; run without -short")
	}
	const noise = 16 << 10
	n := 100_000
	for name, data := range heldShapes(n) {
		est, err := CheckHeld(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var before, decoded, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v, err := DecodeCheckedJSON(data)
		runtime.ReadMemStats(&decoded)
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		alloc := int64(decoded.TotalAlloc - before.TotalAlloc)
		t.Logf("%-22s %9d bytes: estimate %10d, live %10d (%.2f), allocated %.2f times the estimate",
			name, len(data), est, live, float64(est)/float64(live), float64(alloc)/float64(est))
		// The live heap is measured to within a few KiB (the test's own
		// allocations); an object of 8 members fills one group of slots,
		// which the charge for a large map's spare slots overcounts 3.3
		// times.
		if est+noise < live || est > 7*live/2 {
			t.Errorf("%s: estimate %d for %d bytes held, want between 1 and 3.5 times", name, est, live)
		}
		if alloc > 6*est {
			t.Errorf("%s: decoding allocated %d, over 6 times the estimate %d", name, alloc, est)
		}
	}
}

// TestCheckHeld: empty data holds nothing, and invalid JSON is refused
// with the checker's error, not estimated.
func TestCheckHeld(t *testing.T) {
	for _, data := range []string{"", " \n"} {
		if est, err := CheckHeld([]byte(data)); est != 0 || err != nil {
			t.Errorf("CheckHeld(%q) = %d, %v; want 0, nil", data, est, err)
		}
	}
	if est, err := CheckHeld([]byte(`{"a": 1, "a": 2}`)); est != 0 || err == nil || !strings.Contains(err.Error(), "duplicate member name") {
		t.Errorf("CheckHeld of a duplicate name = %d, %v; want 0 and the duplicate", est, err)
	}
}

// TestSchemaChargeBoundsDecode: what the decoded-schema cache charges a
// schema (ParseSchema) is at least what it holds for it (live heap after
// a collection, the key and the decoded values), on the shapes that hold
// the most a byte: an anyOf of many {} (about 24 bytes a byte, which the
// 16 a byte charged before undercounted), an enum of numbers, properties
// nested deep, and an object of many properties.
func TestSchemaChargeBoundsDecode(t *testing.T) {
	const noise = 16 << 10
	n := 30_000
	if testing.Short() {
		n = 5_000
	}
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 1000) + "{}" + strings.Repeat("}}", 1000)
	var props strings.Builder
	for i := range n {
		fmt.Fprintf(&props, `"p%d":{"type":"integer"},`, i)
	}
	for name, raw := range map[string]string{
		"anyOf of {}":     `{"anyOf":[` + strings.Repeat("{},", n) + `{}]}`,
		"enum of numbers": `{"enum":[` + strings.Repeat("1,", n) + `1]}`,
		"deep properties": deep,
		"many properties": `{"type":"object","properties":{` + strings.TrimSuffix(props.String(), ",") + `}}`,
	} {
		data := []byte(raw)
		saved := schemas
		schemas = lru.New[Schema](1<<30, 0)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := ParseSchema(data)
		runtime.GC()
		runtime.ReadMemStats(&after)
		charged := schemas.Weight()
		runtime.KeepAlive(schemas)
		runtime.KeepAlive(data)
		schemas = saved
		if s == nil {
			t.Fatalf("%s: not decoded", name)
		}
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%-16s %8d bytes: charged %9d, live %9d (%.2f)", name, len(data), charged, live, float64(charged)/float64(live))
		if int64(charged)+noise < live {
			t.Errorf("%s: charged %d for %d bytes held", name, charged, live)
		}
	}
}
