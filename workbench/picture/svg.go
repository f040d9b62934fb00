package picture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/goccy/go-graphviz"

	// Before go-graphviz first draws, a cache this user may write.
	_ "github.com/pilotage-dev/pilotage/internal/base/gvcache"
)

// svgMu serialises renders: go-graphviz runs Graphviz as one WebAssembly
// module, which is not safe for concurrent use.
var svgMu sync.Mutex

// SVG writes the graph as SVG, laid out by Graphviz's dot in-process: no
// external program, no network, and the same bytes for the same plan.
func SVG(w io.Writer, g *Graph) error {
	b, err := drawSVG(layout(g), false)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// renderSVG lays out DOT text and returns the SVG document.
func renderSVG(dot string) ([]byte, error) {
	svgMu.Lock()
	defer svgMu.Unlock()
	ctx := context.Background()
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting Graphviz: %w", err)
	}
	defer gv.Close()
	graph, err := graphviz.ParseBytes([]byte(dot))
	if err != nil {
		return nil, fmt.Errorf("reading the DOT graph: %w", err)
	}
	defer graph.Close()
	var buf bytes.Buffer
	if err := gv.Render(ctx, graph, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("laying out the graph: %w", err)
	}
	return buf.Bytes(), nil
}

// Prepare starts Graphviz now, for a command that will draw SVG (a
// valid plan within MaxBoxes in svg, a replay's HTML page) and is about
// to build what it draws; go-graphviz starts at its first use
// (internal/third_party/go-graphviz). A command that fails first never
// starts it. Its start allocates megabytes; over the heap a command has
// built by the time it draws (a live heap of a few megabytes, under
// cmd's soft memory limit), that runs a collection every few hundred
// kilobytes and nearly doubles the CPU of plan --format svg
// (docs/performance.md). An error is left to the drawing to report.
func Prepare() {
	svgMu.Lock()
	defer svgMu.Unlock()
	if gv, err := graphviz.New(context.Background()); err == nil {
		gv.Close()
	}
}
