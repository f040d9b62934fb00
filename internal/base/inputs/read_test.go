package inputs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// TestReadBound: an input of exactly the limit is read whole, whatever
// the reader hands out at a time; one byte more, or an input that never
// ends, is a TooLargeError naming the input, the limit and the hint.
func TestReadBound(t *testing.T) {
	b := Bound{Bytes: 100 << 10, Of: "the test's limit", Hint: "give less"}
	exact := bytes.Repeat([]byte("x"), int(b.Bytes))
	for _, tc := range []struct {
		name string
		r    io.Reader
		want []byte
	}{
		{"exact", bytes.NewReader(exact), exact},
		{"exact, a byte at a time", io.LimitReader(oneByte{bytes.NewReader(exact)}, b.Bytes), exact},
		{"empty", strings.NewReader(""), []byte{}},
		{"one over", bytes.NewReader(append(exact, 'x')), nil},
		{"endless", memtest.Endless{}, nil},
	} {
		got, err := ReadAll(tc.r, "in.json", b)
		if tc.want != nil {
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Errorf("%s: %d bytes, %v", tc.name, len(got), err)
			}
			continue
		}
		var big *TooLargeError
		if !errors.As(err, &big) || err.Error() != "in.json is larger than 100 KiB (the test's limit); give less" {
			t.Errorf("%s: %d bytes, %v", tc.name, len(got), err)
		}
	}
}

// oneByte hands out one byte a Read, as a slow pipe may.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

// TestReadFile: a regular file is read in one buffer of its size; one
// over the limit is refused without reading more than the limit and a
// byte; a missing one is the open's error.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if err := os.WriteFile(name, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(name, Bound{Bytes: 5}); err != nil || string(got) != "12345" || cap(got) != 6 {
		t.Errorf("within: %q (cap %d), %v", got, cap(got), err)
	}
	var big *TooLargeError
	if _, err := ReadFile(name, Bound{Bytes: 4}); !errors.As(err, &big) || big.Name != name {
		t.Errorf("over: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), Bound{Bytes: 4}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// BenchmarkReadFile compares ReadFile with os.ReadFile on a 16 MiB file
// (docs/performance.md, "Bounded reads"): the ratio of their median
// times, taken in turn in the same run, is reported as readfile-ratio;
// medians, since on a shared machine a few reads take several times the
// rest.
func BenchmarkReadFile(b *testing.B) {
	name := filepath.Join(b.TempDir(), "big")
	if err := os.WriteFile(name, bytes.Repeat([]byte("0123456789abcdef"), 1<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	bound := Bound{Bytes: MaxArtifact}
	var ours, std []time.Duration
	b.SetBytes(16 << 20)
	for b.Loop() {
		// Turn about, so neither always pays for the collection the
		// other's 16 MiB brings on.
		if len(ours)%2 == 0 {
			ours = append(ours, timed(b, func() ([]byte, error) { return ReadFile(name, bound) }))
			std = append(std, timed(b, func() ([]byte, error) { return os.ReadFile(name) }))
		} else {
			std = append(std, timed(b, func() ([]byte, error) { return os.ReadFile(name) }))
			ours = append(ours, timed(b, func() ([]byte, error) { return ReadFile(name, bound) }))
		}
	}
	b.ReportMetric(float64(median(ours))/float64(median(std)), "readfile-ratio")
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// timed is the time read takes.
func timed(b *testing.B, read func() ([]byte, error)) time.Duration {
	start := time.Now()
	got, err := read()
	if err != nil || len(got) != 16<<20 {
		b.Fatalf("%d bytes, %v", len(got), err)
	}
	return time.Since(start)
}
