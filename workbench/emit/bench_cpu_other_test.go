//go:build !unix

package emit_test

// cpuNow is not measured here; the cpu-ratio metric is then left out.
func cpuNow() int64 { return 0 }
