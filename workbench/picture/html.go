package picture

import (
	"embed"
	"html/template"
	"io"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

//go:embed templates
var templates embed.FS

// pages quote what came with the plan and the traces (ids, statuses,
// run ids, errors) through clip, as the drawing and every report quote
// it (report.Clip): an 8 MB step id, whole in each cell and attribute
// that names it, made a 53 MB page.
var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"indent": func(depth int) int { return 8 + 16*depth },
	"label":  func(t Tick) string { return t.Label + " in all" },
	"clip":   report.Clip[string],
}).ParseFS(templates, "templates/*.html"))

// css is the reports' one style sheet, inlined in each page so a report
// is one file that opens anywhere, offline.
var css = func() template.CSS {
	b, err := templates.ReadFile("templates/style.css")
	if err != nil {
		panic(err)
	}
	return template.CSS(b)
}()

// maxTraceRows bounds the trace table of a report; the groups above it
// count every trace.
const maxTraceRows = 1000

// traceView is a trace row with its link.
type traceView struct {
	*TraceRow
	Href string
}

// OutcomeText is the Run's outcome as a cell.
func (t *TraceRow) OutcomeText() string {
	if t.Outcome == nil {
		return "-"
	}
	s := t.Outcome.Status
	if t.Outcome.Error != "" {
		s += ": " + t.Outcome.Error
	}
	return s
}

// TimeText is the Run's time from its top-level entries.
func (t *TraceRow) TimeText() string {
	if !t.Timed {
		return "-"
	}
	return ms(t.Ms)
}

// WriteHTML writes the report as one self-contained HTML file: the plan
// graph as inline SVG, inline CSS, no script and no external resource
// (its Content-Security-Policy forbids loading any).
func (p *Page) WriteHTML(w io.Writer) error {
	svg, err := p.SVG()
	if err != nil {
		return err
	}
	shown := p.Traces
	more := 0
	if len(shown) > maxTraceRows {
		shown, more = shown[:maxTraceRows], len(shown)-maxTraceRows
	}
	views := make([]traceView, len(shown))
	for i, t := range shown {
		views[i] = traceView{t, p.link(t.File)}
	}
	return pages.ExecuteTemplate(w, "replay.html", struct {
		*Page
		CSS         template.CSS
		SVG         template.HTML
		ShownTraces []traceView
		MoreTraces  int
	}{p, css, svg, views, more})
}
