package basetest_test

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/lru"
)

func TestLruEvictsLeastRecentlyUsedByWeight(t *testing.T) {
	c := lru.New[int](100, 0)
	c.Put("a", 1, 29) // weight 30 with the key
	c.Put("b", 2, 29)
	c.Put("c", 3, 29)
	c.Get("a") // a is now more recent than b
	c.Put("d", 4, 29)
	if _, ok := c.Get("b"); ok {
		t.Error("b was least recently used and must be gone")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s must still be cached", k)
		}
	}
	if c.Weight() > 100 {
		t.Errorf("total %d over the budget 100", c.Weight())
	}
	if v := c.Put("a", 99, 1); v != 1 {
		t.Errorf("the first value stored wins, got %v", v)
	}
	if !c.Grow("d", 10) || c.Weight() > 100 {
		t.Errorf("growing d within budget: total %d", c.Weight())
	}
	if c.Grow("d", 1000) {
		t.Error("an entry grown past the whole budget must be dropped")
	}
	c.Put("huge", 0, 1000)
	if _, ok := c.Get("huge"); ok || c.Weight() > 100 {
		t.Errorf("an entry heavier than the budget must not stay (total %d)", c.Weight())
	}
	c.Reset()
	if _, ok := c.Get("a"); ok || c.Len() != 0 || c.Weight() != 0 {
		t.Errorf("after Reset: %d entries, weight %d", c.Len(), c.Weight())
	}
}

// With a count bound, the least recently used entry goes when one more
// would pass it, whatever the weights.
func TestLruEvictsByCount(t *testing.T) {
	c := lru.New[int](1<<20, 2)
	c.Put("a", 1, 1)
	c.Put("b", 2, 1)
	c.Get("a")
	c.Put("c", 3, 1)
	if _, ok := c.Get("b"); ok || c.Len() != 2 {
		t.Errorf("b must be gone and two entries left, have %d", c.Len())
	}
	if c.Weight() != 4 { // a and c, 1 each and a one-byte key
		t.Errorf("weight %d, want 4", c.Weight())
	}
}
