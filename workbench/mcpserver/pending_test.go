package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// validates is a client that writes, as fast as the server reads, an
// initialize and then validates of distinct programs, and measures the
// live heap as the server reads the lines at measureAt; after the last
// it ends the input with errStop, which ends the Session without waiting
// for answers.
type validates struct {
	n, line   int
	measureAt map[int]*uint64
	pending   []byte
}

var errStop = errors.New("the client stops")

// padding makes each program three kilobytes, as a real one can be, so that what
// the server holds per request read shows above the heap's noise.
var padding = strings.Repeat("x", 3000)

// validAnswers counts the answers that say a program is valid.
type validAnswers struct{ n int }

func (w *validAnswers) Write(p []byte) (int, error) {
	w.n += bytes.Count(p, []byte(`\"valid\":true`))
	return len(p), nil
}

func (v *validates) Read(p []byte) (int, error) {
	if len(v.pending) == 0 {
		switch {
		case v.line == 0:
			v.pending = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		case v.line > v.n:
			return 0, errStop
		default:
			if heap := v.measureAt[v.line]; heap != nil {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				*heap = m.HeapAlloc
			}
			v.pending = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"homeflow_v1_validate","arguments":{"program":{"steps":[],"output":"size('%s') + %d"}}}}`+"\n", v.line, padding, v.line)
		}
		v.line++
	}
	n := copy(p, v.pending)
	v.pending = v.pending[n:]
	return n, nil
}

// A client that writes validates of distinct programs faster than they
// are answered must not grow the server past its caches' budgets: go-sdk
// queues every request read, so the reader reads ahead no further than
// maxPending unanswered requests. The caches are held to a megabyte, full
// long before the first measure, so what the heap gains between the two
// measures is what the server holds per request read. Once the Session
// has ended and the caches are dropped, the heap must be back where it
// was before the Session: nothing else (go-sdk's state, serve's maps)
// may keep what requests brought.
func TestServeIOHeapLevelsOffUnderDistinctValidates(t *testing.T) {
	if testing.Short() {
		t.Skip("a memory test: thousands of validates")
	}
	defer expr.LimitCaches(1 << 20)()
	s, err := New(context.Background(), homeflowEngine(t), Options{Principal: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	const first, last = 2000, 8000
	var atFirst, atLast uint64
	idle := memtest.Live()
	in := &validates{n: last, measureAt: map[int]*uint64{first: &atFirst, last: &atLast}}
	var out validAnswers
	if err := s.ServeIO(context.Background(), in, &out); err != nil && !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	if atFirst == 0 || atLast == 0 || out.n < first {
		t.Fatalf("the server read to line %d and found %d programs valid", in.line, out.n)
	}
	const margin = 8 << 20
	t.Logf("live heap: %.1f MB at validate %d, %.1f MB at %d", float64(atFirst)/1e6, first, float64(atLast)/1e6, last)
	if atLast > atFirst+margin {
		t.Errorf("the live heap grew by %.1f MB from validate %d to %d (at most %d MB): the server holds what it read ahead",
			float64(atLast-atFirst)/1e6, first, last, margin>>20)
	}
	expr.ResetCaches()
	const slack = 2 << 20
	after := memtest.Live()
	t.Logf("live heap: %.1f MB before the Session, %.1f MB after it without the caches", float64(idle)/1e6, float64(after)/1e6)
	if after > idle+slack {
		t.Errorf("the live heap is %.1f MB after the Session without the caches, %.1f MB before it: something else keeps what requests brought",
			float64(after)/1e6, float64(idle)/1e6)
	}
	runtime.KeepAlive(s)
}
