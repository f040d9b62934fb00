// Package progress draws the one status line that long work (replaying a
// trace of hundreds of megabytes, linting a huge snapshot) keeps rewriting
// on standard error, so a user at a terminal sees that it advances and how
// fast. It lives under cmd because only the command line draws: the
// libraries (replay, lint) take a plain callback or are fed through a
// counting reader.
package progress

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Mode is the value of a --progress flag.
type Mode string

// The modes: auto draws when standard error is a terminal and the input
// is large enough to take a while (or of unknown size).
const (
	Auto   Mode = "auto"
	Always Mode = "always"
	Never  Mode = "never"
)

// FlagUsage is the help text of --progress, the same for every command.
const FlagUsage = "show progress on standard error: auto (when it is a terminal), always or never"

// ParseMode checks a --progress value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Always, Never:
		return m, nil
	}
	return "", fmt.Errorf("unknown --progress %q; use auto, always or never", s)
}

// IsTerminal reports whether w is a terminal. A character device is taken
// for one: that is what a terminal is to the file system, and the one
// other character device output commonly goes to, /dev/null, loses
// nothing by being written to.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Interval is the least time between two drawings of the line.
const Interval = 250 * time.Millisecond

// MinBytes is the input size under which auto draws nothing: lint and
// replay get through that much in well under a second, and a line that
// flashes and vanishes only distracts.
const MinBytes = 16 << 20

// Meter is one status line being drawn. Its counters are atomic, so the
// work may count from its own goroutine while the line is drawn from
// another. A nil *Meter draws nothing and its methods do nothing, so the
// work costs the same with and without it.
//
// The line goes to standard error only, never to standard output, and by
// default (--progress=auto) only when standard error is a terminal: CI
// logs and machine formats never see it. It is rewritten in place with a
// carriage return at most four times a second, padded with spaces over
// the previous one rather than cleared with escape codes so any terminal
// shows it, and erased when the work ends.
type Meter struct {
	w           io.Writer
	label, unit string
	total       int64 // bytes; 0 when unknown
	start       time.Time
	bytes       atomic.Int64
	units       atomic.Int64
	phase       atomic.Pointer[string]

	mu      sync.Mutex // serializes drawing
	width   int        // of the line on screen
	stop    chan struct{}
	done    chan struct{}
	stopped sync.Once
}

// Start returns a meter drawing on w, or nil when mode says not to draw:
// never; auto when w is not a terminal or when the input, of total bytes
// (0 when unknown), is under MinBytes. label names the work ("replay"),
// unit what Add counts ("steps"; "" when nothing is counted).
func Start(w io.Writer, mode Mode, total int64, label, unit string) *Meter {
	return start(w, mode, total, label, unit, Interval)
}

func start(w io.Writer, mode Mode, total int64, label, unit string, every time.Duration) *Meter {
	if mode == Never || mode == Auto && (!IsTerminal(w) || total > 0 && total < MinBytes) {
		return nil
	}
	m := &Meter{w: w, label: label, unit: unit, total: total, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	// Ctrl-C must still end the work at once, as without a meter, but not
	// leave a half-drawn line on the terminal: the meter takes the signal,
	// erases the line, and raises the signal again with Go's default
	// handling restored, so the process ends killed by it (exit 130 in a
	// shell), exactly as before. It takes the signal before it draws, so
	// no line is ever on screen while Ctrl-C would leave it there.
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	m.draw()
	go m.loop(every, interrupt)
	return m
}

func (m *Meter) loop(every time.Duration, interrupt chan os.Signal) {
	defer close(m.done)
	defer signal.Stop(interrupt)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.draw()
		case sig := <-interrupt:
			m.erase()
			signal.Stop(interrupt)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Signal(sig)
			}
			return
		}
	}
}

// Reader counts the bytes read through r.
func (m *Meter) Reader(r io.Reader) io.Reader {
	if m == nil {
		return r
	}
	return &countingReader{r, m}
}

type countingReader struct {
	r io.Reader
	m *Meter
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.m.bytes.Add(int64(n))
	return n, err
}

// AddBytes counts n bytes done without a reader.
func (m *Meter) AddBytes(n int64) {
	if m != nil {
		m.bytes.Add(n)
	}
}

// Add counts one unit done.
func (m *Meter) Add() {
	if m != nil {
		m.units.Add(1)
	}
}

// SetPhase replaces the counts on the line with what the work does now
// ("checking 2 files (300.0 MB)") when it can no longer count.
func (m *Meter) SetPhase(phase string) {
	if m == nil {
		return
	}
	m.phase.Store(&phase)
	select {
	case <-m.stop: // stopped, the line erased for good
	default:
		m.draw()
	}
}

// Stop stops drawing and erases the line. Call it before anything else
// is written to the terminal; calling it again does nothing, so it can
// also be deferred for the error paths.
func (m *Meter) Stop() {
	if m == nil {
		return
	}
	m.stopped.Do(func() {
		close(m.stop)
		<-m.done
		m.erase()
	})
}

// erase blanks the line and puts the cursor back at its start.
func (m *Meter) erase() {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintf(m.w, "\r%s\r", strings.Repeat(" ", m.width))
}

func (m *Meter) draw() {
	line := m.line(time.Since(m.start))
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len([]rune(line))
	fmt.Fprintf(m.w, "\r%s%s", line, strings.Repeat(" ", max(0, m.width-n)))
	m.width = n
}

// line is the text of the line after elapsed: short enough for an
// 80-column terminal, since a line that wraps cannot be rewritten.
func (m *Meter) line(elapsed time.Duration) string {
	parts := []string{}
	if p := m.phase.Load(); p != nil {
		parts = append(parts, *p)
	} else {
		done := m.bytes.Load()
		if m.total > 0 {
			parts = append(parts, fmt.Sprintf("%d%% of %s", min(100, done*100/m.total), MB(m.total)))
		} else {
			parts = append(parts, MB(done))
		}
		if m.unit != "" {
			parts = append(parts, thousands(m.units.Load())+" "+m.unit)
		}
		if s := elapsed.Seconds(); s > 0 {
			parts = append(parts, fmt.Sprintf("%.1f MB/s", float64(done)/(1<<20)/s))
		}
	}
	parts = append(parts, fmt.Sprintf("%.0fs", elapsed.Seconds()))
	return m.label + ": " + strings.Join(parts, ", ")
}

// MB formats a byte count in mebibytes, as the rates are.
func MB(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// thousands writes n with comma separators: 1,203,442.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
