package expr

import "sync"

// cache is a bounded map safe for concurrent use. When full it starts
// over: programs are attacker-controlled, so the cache must not grow
// without bound, and a simple reset keeps hot entries cheap to refill.
type cache struct {
	mu  sync.RWMutex
	max int
	m   map[string]any
}

func newCache(n int) *cache { return &cache{max: n, m: map[string]any{}} }

func (c *cache) get(k string) (any, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *cache) put(k string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		c.m = map[string]any{}
	}
	c.m[k] = v
}
