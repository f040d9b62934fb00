//go:build !unix

package lint_test

import "time"

// processCPU is not measured here; the cpu-ratio metric is then omitted.
func processCPU() time.Duration { return 0 }
