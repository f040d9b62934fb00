package cmd

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// memPerByte and memSlack make the soft memory limit of a verb that reads
// files (limitMemory): the Go runtime's memory at the verb's start, plus
// memSlack, plus memPerByte bytes a byte of the files. For a file of
// some hundred kilobytes the slack is most of the limit, and the heap
// grew to it: lint of 25,000 risk levels (442 KB) took 10.5 to 12.1
// bytes a byte over a one-line file's with 4 MiB, 8.4 to 11.1 with 3
// (docs/performance.md, "The last Language rows under 10 bytes a
// byte"), at the same CPU; lint of langs/* runs as many collections (2
// or 3) either way.
const (
	memPerByte = 6
	memSlack   = 3 << 20
)

// progMemPerByte is memPerByte for validate, plan and run. Their live
// heap at its largest is 5 to 6 bytes a byte of a large valid program
// (the step model, the program's bytes, a Run's checked expressions),
// and the collector let the heap grow to the limit all the same: 10.5
// to 12 bytes a byte over the baseline at 6 a byte, 9 to 10 at 5, for
// 10 to 25% more CPU; at 4, 9 to 10 for up to twice the CPU
// (docs/performance.md, "A large valid program").
const progMemPerByte = 5

// limitMemory sets a soft memory limit (runtime/debug.SetMemoryLimit) for
// a verb reading the files args name, and returns it, whose restore gives
// back the limit before. Build and lint of a large PDL keep less than 10 bytes a byte of
// it live, but the collector, which lets the heap grow to twice what it
// last found live and counts as live what the CEL checks allocate while it
// marks, let the process reach 10 to 12 times the file over its baseline
// (issue 13 item 8; docs/performance.md, "build"). Near the limit the
// collector runs sooner. The limit is soft: a verb that needs more memory
// gets it, at up to twice the CPU, never an error. Standard input (-) is
// of no size known in advance, so no limit is set for it (limitMemory
// returns nil, whose methods set nothing), and a lower limit set by
// GOMEMLIMIT is kept.
func limitMemory(args []string) *memLimit { return limitMemoryPer(memPerByte, args) }

// limitMemoryPer is limitMemory at perByte bytes a byte of the files.
func limitMemoryPer(perByte int64, args []string) *memLimit {
	var size int64
	for _, a := range args {
		if a == "-" {
			return nil
		}
		size += sizeOf(a)
	}
	l := newMemLimit()
	l.perByte = perByte
	l.read(size)
	return l
}

// memLimit is limitMemory's limit for a verb that learns what it reads as
// it goes (test: the case files, then each PDL they name).
type memLimit struct {
	held, before, size, perByte int64
}

// newMemLimit starts a limit from the runtime's memory now; read sets it.
func newMemLimit() *memLimit {
	return &memLimit{held: runtimeMemory(), before: debug.SetMemoryLimit(-1), perByte: memPerByte}
}

// runtimeMemory is the memory the Go runtime holds from the system.
func runtimeMemory() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(sample)
	return int64(sample[0].Value.Uint64() - sample[1].Value.Uint64())
}

// lspLimitFrom is the least bytes under analysis for which the
// language server sets a soft memory limit (lspMemory): below it the
// slack is most of the limit, and finding what the server holds (a
// collection) would cost a small document's analysis more than it.
const lspLimitFrom = 256 << 10

// lspMemory is the language server's soft memory limit
// (lsp.Options.Memory): while it analyses documents of lspLimitFrom
// bytes or more in all, memPerByte a byte of them over what it held
// when the analyses started, as lint's of a file. Without it the
// collector let the heap grow to twice an analysis's live heap: 19 to
// 23 bytes a byte of a 3 MB PDL over an idle server's peak, against
// lint's 9.6 (docs/performance.md, "The language server's memory").
// Between analyses no limit is set: what the server holds then, the
// open documents and their findings, is what the next analysis starts
// from.
type lspMemory struct {
	mu sync.Mutex
	l  *memLimit
}

// analysing sets the limit for n bytes under analysis.
func (m *lspMemory) analysing(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n < lspLimitFrom {
		m.l.restore()
		m.l = nil
		return
	}
	if m.l == nil {
		// What a collection leaves is what the server holds: the garbage
		// of the messages that brought the text is not.
		runtime.GC()
		m.l = &memLimit{held: heldMemory(), before: debug.SetMemoryLimit(-1), perByte: memPerByte}
	}
	m.l.read(n)
}

// heldMemory is runtimeMemory less the heap's free spans, which the
// runtime keeps to reuse: after a collection, the memory it holds for
// what is live.
func heldMemory() int64 {
	free := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(free)
	return runtimeMemory() - int64(free[0].Value.Uint64())
}

// read sets the limit for size bytes read in all, unless the limit
// before was lower (GOMEMLIMIT): it stands.
func (l *memLimit) read(size int64) {
	l.size = size
	limit := l.held + memSlack + min(size, (math.MaxInt64-l.held-memSlack)/l.perByte)*l.perByte
	if l.before > limit {
		debug.SetMemoryLimit(limit)
	}
}

// keep runs start, which takes memory the verb keeps to its end
// (Graphviz's start, picture.Prepare), without the limit, and then counts
// what it took as held, like the runtime's memory at the verb's start.
// Under a limit of the files alone, Graphviz's start ran a collection
// every few hundred kilobytes it allocated (plan --format svg: twice the
// CPU).
func (l *memLimit) keep(start func()) {
	if l == nil {
		start()
		return
	}
	debug.SetMemoryLimit(l.before)
	was := runtimeMemory()
	start()
	l.held += max(0, runtimeMemory()-was)
	l.read(l.size)
}

// restore gives back the limit before.
func (l *memLimit) restore() {
	if l != nil {
		debug.SetMemoryLimit(l.before)
	}
}

// sizeOf is the bytes of the file at path, or of the regular files under
// it when it is a directory; what cannot be read counts nothing (the verb
// reports it).
func sizeOf(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	if n == 0 {
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			n = info.Size()
		}
	}
	return n
}
