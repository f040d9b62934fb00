package cgraph

import (
	"context"

	"github.com/goccy/go-graphviz/internal/wasm"
)

// pilotage's fork: the descriptors exist from the start and get their
// WebAssembly side when the module loads (upstream made them in this
// init, which loaded the module in every process; see wasm.OnLoad).
var (
	Directed         = &Desc{}
	StrictDirected   = &Desc{}
	UnDirected       = &Desc{}
	StrictUnDirected = &Desc{}
)

func init() {
	wasm.OnLoad(setGlobalVars)
}

func setGlobalVars(ctx context.Context) error {
	// Set MAX to prevent outputting internally generated errors or warnings with agerr to the stderr.
	wasm.SetError(ctx, wasm.MAX)

	directed, err := wasm.NewGraphDescriptor(ctx)
	if err != nil {
		return err
	}
	directed.SetDirected(1)
	directed.SetMaingraph(1)

	strictDirected, err := wasm.NewGraphDescriptor(ctx)
	if err != nil {
		return err
	}
	strictDirected.SetDirected(1)
	strictDirected.SetStrict(1)
	strictDirected.SetMaingraph(1)

	undirected, err := wasm.NewGraphDescriptor(ctx)
	if err != nil {
		return err
	}
	undirected.SetMaingraph(1)

	strictUndirected, err := wasm.NewGraphDescriptor(ctx)
	if err != nil {
		return err
	}
	strictUndirected.SetStrict(1)
	strictUndirected.SetMaingraph(1)

	Directed.wasm = directed
	StrictDirected.wasm = strictDirected
	UnDirected.wasm = undirected
	StrictUnDirected.wasm = strictUndirected

	return nil
}
