package memtest

import "runtime"

// Allocated returns the bytes f allocates on the heap, live or not
// (runtime.MemStats.TotalAlloc before and after): what a test bounds
// when it holds code to a multiple of its input, whatever the collector
// reclaims on the way. Allocations of other goroutines meanwhile count
// too: a test of a server calls it around the whole exchange, and other
// tests call it with nothing else running.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Live returns the bytes live on the heap after a collection
// (runtime.MemStats.HeapAlloc): what a test holds code to when it bounds
// what stays, not what passes through.
func Live() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
