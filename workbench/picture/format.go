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

// ReportFormats are the formats a replay (or a Run) is reported in as a
// picture: one self-contained HTML file, or Markdown for CI summaries.
var ReportFormats = []string{"html", "markdown"}

// IsReportFormat reports whether format is one of ReportFormats.
func IsReportFormat(format string) bool { return slices.Contains(ReportFormats, format) }

// Write writes the page in one of ReportFormats.
func (p *Page) Write(w io.Writer, format string) error {
	switch format {
	case "html":
		return p.WriteHTML(w)
	case "markdown":
		return p.WriteMarkdown(w)
	}
	return fmt.Errorf("unknown report format %q; use html or markdown", format)
}
