// Package lru is a least-recently-used map, safe for concurrent use,
// bounded by the total weight (estimated bytes) of its entries and,
// optionally, by their number. The caches of parsed and checked CEL
// (internal/model/expr), of the engine's compiled JSON Schemas and of
// the compiler's checked schema texts hold what programs and catalogs
// bring, which a caller controls: one expression may be a megabyte long,
// one schema may take megabytes to compile, so a count alone would not
// bound memory.
package lru

import (
	"container/list"
	"sync"
)

// Cache maps strings to values of type V.
type Cache[V any] struct {
	mu         sync.Mutex
	max, count int
	total      int
	ll         *list.List // front is the most recently used
	m          map[string]*list.Element
}

type entry[V any] struct {
	key string
	val V
	w   int
}

// New returns a cache holding at most maxWeight (the weights Put and Grow
// give, plus each key's length) and, when maxEntries is above 0, at most
// that many entries.
func New[V any](maxWeight, maxEntries int) *Cache[V] {
	return &Cache[V]{max: maxWeight, count: maxEntries, ll: list.New(), m: map[string]*list.Element{}}
}

// Get returns the value under k, which becomes the most recently used.
func (c *Cache[V]) Get(k string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*entry[V]).val, true
}

// Put stores v under k with weight w (the key's length is added), unless
// k is already present: the first value stored wins, so concurrent
// builders of the same value agree on one. It returns the stored value.
// An entry heavier than the whole budget is not kept.
func (c *Cache[V]) Put(k string, v V, w int) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*entry[V]).val
	}
	c.m[k] = c.ll.PushFront(&entry[V]{key: k, val: v, w: w + len(k)})
	c.total += w + len(k)
	c.evict()
	return v
}

// Grow adds w to the weight of the entry under k, for values that
// accumulate (an environment's checked expressions). It reports false
// when k is no longer cached: the caller should stop adding to it.
func (c *Cache[V]) Grow(k string, w int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return false
	}
	el.Value.(*entry[V]).w += w
	c.total += w
	c.ll.MoveToFront(el)
	c.evict()
	_, ok = c.m[k]
	return ok
}

// Reset drops every entry.
func (c *Cache[V]) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	c.m = map[string]*list.Element{}
	c.total = 0
}

// SetMax sets the most weight the cache holds, evicting down to it, and
// returns the most before.
func (c *Cache[V]) SetMax(maxWeight int) (before int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	before, c.max = c.max, maxWeight
	c.evict()
	return before
}

// Weight is the total weight held, keys included; Len the entries.
func (c *Cache[V]) Weight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// evict drops least recently used entries until the total weight and
// the number of entries fit.
func (c *Cache[V]) evict() {
	for c.total > c.max || c.count > 0 && len(c.m) > c.count {
		el := c.ll.Back()
		e := el.Value.(*entry[V])
		c.ll.Remove(el)
		delete(c.m, e.key)
		c.total -= e.w
	}
}
