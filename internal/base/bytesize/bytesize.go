// Package bytesize reads sizes as the project writes them, in PDL limits
// and in flags: 1024, 512KiB, 16MiB, 1GiB, and KB/MB/GB as powers of ten.
package bytesize

import (
	"strconv"
	"strings"
)

// Parse reads a positive size; "_" may group digits (1_000). It is false
// for anything else, and for sizes above 1 PiB.
func Parse(s string) (int64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}, {"", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 || n > (1<<50)/u.mult {
				return 0, false
			}
			return n * u.mult, true
		}
	}
	return 0, false
}
