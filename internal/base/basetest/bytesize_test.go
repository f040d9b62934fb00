package basetest_test

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/bytesize"
)

func TestBytesizeParse(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "512KiB": 512 << 10, "16MiB": 16 << 20, "1GiB": 1 << 30,
		"5KB": 5000, "2MB": 2e6, "1GB": 1e9, "7B": 7, "1_000": 1000} {
		if got, ok := bytesize.Parse(in); !ok || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1.5MiB", "MiB", "12 MiB", "1TiB", "1048577GiB", "9223372036854775807KiB", "1mib"} {
		if got, ok := bytesize.Parse(in); ok {
			t.Errorf("Parse(%q) = %d; want refused", in, got)
		}
	}
}

func FuzzBytesizeParse(f *testing.F) {
	for _, s := range []string{"1024", "16MiB", "1_0KB", "-0", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := bytesize.Parse(s); ok && (n <= 0 || n > 1<<50) {
			t.Errorf("Parse(%q) = %d", s, n)
		}
	})
}
