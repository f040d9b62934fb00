package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStart: never and auto into a non-terminal give no meter (nil, whose
// methods do nothing); auto into a character device draws unless the
// input is known to be small; always draws into anything.
func TestStart(t *testing.T) {
	var buf bytes.Buffer
	for _, m := range []*Meter{Start(&buf, Never, 1<<30, "x", ""), Start(&buf, Auto, 1<<30, "x", "")} {
		if m != nil {
			t.Fatal("a meter where none should draw")
		}
		m.Add()
		m.AddBytes(3)
		m.SetPhase("p")
		if r := m.Reader(&buf); r != &buf {
			t.Error("a nil meter wraps readers")
		}
		m.Stop()
	}
	if buf.Len() > 0 {
		t.Errorf("a nil meter wrote %q", buf.String())
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if !IsTerminal(null) || IsTerminal(&buf) {
		t.Fatalf("IsTerminal: %s %v, a buffer %v", os.DevNull, IsTerminal(null), IsTerminal(&buf))
	}
	for _, c := range []struct {
		total int64
		draws bool
	}{{0, true}, {MinBytes, true}, {MinBytes - 1, false}} {
		m := Start(null, Auto, c.total, "x", "")
		if (m != nil) != c.draws {
			t.Errorf("auto on a terminal, %d bytes: meter %v, want %v", c.total, m != nil, c.draws)
		}
		m.Stop()
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("ParseMode accepted sometimes")
	}
}

// TestMeterDraws counts from several goroutines while the line is drawn
// every millisecond (go test -race checks the sharing), then checks the
// final drawing and the erasing.
func TestMeterDraws(t *testing.T) {
	var buf bytes.Buffer
	m := start(&buf, Always, 2<<20, "replay", "steps", time.Millisecond)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			r := m.Reader(strings.NewReader(strings.Repeat("x", 1<<18)))
			b := make([]byte, 1024)
			for {
				if _, err := r.Read(b); err != nil {
					return
				}
				m.Add()
				time.Sleep(10 * time.Microsecond)
			}
		})
	}
	wg.Wait()
	m.draw()
	m.Stop()
	m.Stop() // a second Stop does nothing
	out := buf.String()
	drawings := strings.Split(out, "\r")
	last := drawings[len(drawings)-3]
	if !strings.HasPrefix(last, "replay: 50% of 2.0 MB, 1,024 steps, ") {
		t.Errorf("last drawing %q", last)
	}
	if blank := drawings[len(drawings)-2]; strings.Trim(blank, " ") != "" || len(blank) < len(last) || drawings[len(drawings)-1] != "" {
		t.Errorf("not erased at the end: %q", out[max(0, len(out)-200):])
	}
}

// TestLine: the line's wording, with and without a known total, and a
// phase replacing the counts.
func TestLine(t *testing.T) {
	m := &Meter{w: io.Discard, label: "replay", unit: "steps", total: 300 << 20}
	m.bytes.Store(120 << 20)
	m.units.Store(1203442)
	if got, want := m.line(10*time.Second), "replay: 40% of 300.0 MB, 1,203,442 steps, 12.0 MB/s, 10s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	m.total = 0
	if got, want := m.line(10*time.Second), "replay: 120.0 MB, 1,203,442 steps, 12.0 MB/s, 10s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	m.SetPhase("checking 2 files (300.0 MB)")
	if got, want := m.line(3*time.Second), "replay: checking 2 files (300.0 MB), 3s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
