package picture

import (
	"fmt"
	"io"
	"slices"
)

// PlanFormats are the formats a plan is drawn in.
var PlanFormats = []string{"mermaid", "dot", "svg"}

// IsPlanFormat reports whether format draws a plan.
func IsPlanFormat(format string) bool { return slices.Contains(PlanFormats, format) }

// WritePlan draws the graph in one of PlanFormats.
func WritePlan(w io.Writer, format string, g *Graph) error {
	switch format {
	case "mermaid":
		return Mermaid(w, g)
	case "dot":
		return DOT(w, g)
	case "svg":
		return SVG(w, g)
	}
	return fmt.Errorf("unknown picture format %q; use mermaid, dot or svg", format)
}
