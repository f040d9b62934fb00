package expr

import (
	"container/list"
	"sync"
)

// cache is a least-recently-used map, safe for concurrent use, bounded by
// the total weight (estimated bytes) of its entries rather than by their
// number: programs are attacker-controlled, so one expression may be a
// megabyte long and one environment may declare thousands of variables,
// and neither may grow memory without bound.
type cache struct {
	mu    sync.Mutex
	max   int
	total int
	ll    *list.List // front is the most recently used
	m     map[string]*list.Element
}

type cacheEntry struct {
	key string
	val any
	w   int
}

func newCache(maxWeight int) *cache {
	return &cache{max: maxWeight, ll: list.New(), m: map[string]*list.Element{}}
}

func (c *cache) get(k string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cacheEntry).val, true
}

// put stores v under k with weight w (the key's length is added), unless
// k is already present: the first value stored wins, so concurrent
// builders of the same value agree on one. It returns the stored value.
func (c *cache) put(k string, v any, w int) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*cacheEntry).val
	}
	c.m[k] = c.ll.PushFront(&cacheEntry{key: k, val: v, w: w + len(k)})
	c.total += w + len(k)
	c.evict()
	return v
}

// grow adds w to the weight of the entry under k, for values that
// accumulate (an environment's checked expressions). It reports false
// when k is no longer cached: the caller should stop adding to it.
func (c *cache) grow(k string, w int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return false
	}
	el.Value.(*cacheEntry).w += w
	c.total += w
	c.ll.MoveToFront(el)
	c.evict()
	_, ok = c.m[k]
	return ok
}

// evict drops least recently used entries until the total fits; an entry
// heavier than the whole budget is dropped too.
// reset drops every entry.
func (c *cache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ll.Init()
	c.m = map[string]*list.Element{}
	c.total = 0
}

// ResetCaches drops every cached environment, parsed expression and
// decoded schema. Results do not change, only their cost: a host may call
// it to give the memory back, and a benchmark to measure what a fresh
// process (one pilotage build) pays.
func ResetCaches() {
	envs.reset()
	parses.reset()
	schemas.reset()
}

func (c *cache) evict() {
	for c.total > c.max {
		el := c.ll.Back()
		e := el.Value.(*cacheEntry)
		c.ll.Remove(el)
		delete(c.m, e.key)
		c.total -= e.w
	}
}
