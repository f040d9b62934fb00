package wasm

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/api"
)

// pilotage's fork: upstream compiles and instantiates the WebAssembly
// Graphviz in this package's init, so every process that links
// go-graphviz paid for it before main (30 ms of CPU from the
// compilation cache, more than half of a pilotage command's start),
// whether it drew a graph or not. Here the first call that reaches the
// module loads it.
var (
	loaded atomic.Pointer[api.Module]
	loadMu sync.Mutex
	// onLoad holds what other packages of the module did in their
	// init with the module loaded (cgraph: the error level and the
	// graph descriptors).
	onLoad []func(context.Context) error
)

// OnLoad registers f to run once the module is loaded, before the call
// that loaded it goes on. Call it from an init.
func OnLoad(f func(context.Context) error) { onLoad = append(onLoad, f) }

// Load loads the module if no call has yet.
func Load() { mod.module() }

// module returns the instantiated module, loading it on first use. The
// module is published before the OnLoad functions run, so their own
// calls into it find it; a concurrent caller may too, as it may any
// other call, which go-graphviz's single module never made safe.
func (m *WasmModule) module() api.Module {
	if p := loaded.Load(); p != nil {
		return *p
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	if p := loaded.Load(); p != nil {
		return *p
	}
	a := load()
	loaded.Store(&a)
	for _, f := range onLoad {
		if err := f(context.Background()); err != nil {
			// Unpublished first: a caller that recovers must not find
			// a module that what its OnLoad sets up is missing from.
			loaded.Store(nil)
			panic(err) // as upstream's init did
		}
	}
	return a
}
