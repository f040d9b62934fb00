package memtest

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// HeapGoalPeak runs fn and returns how far above the goal of the heap
// before it the largest goal a collection set while it ran went. The
// collector lets the heap grow to twice what it found live (GOGC=100),
// so that goal is the peak of the heap; it is read after every
// collection when the test runs in a StoppedWorld.
func HeapGoalPeak(fn func()) uint64 {
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	runtime.GC()
	metrics.Read(goal)
	base := goal[0].Value.Uint64()
	done, peak := make(chan struct{}), make(chan uint64)
	go func() {
		top := base
		for {
			metrics.Read(goal)
			top = max(top, goal[0].Value.Uint64())
			select {
			case <-done:
				peak <- top
				return
			case <-time.After(50 * time.Microsecond):
			}
		}
	}()
	fn()
	close(done)
	return <-peak - base
}
